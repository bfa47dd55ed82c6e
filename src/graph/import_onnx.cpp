// graph::load_onnx (nabla/graph/import.h): the ModelProto parsed by libonnx-dev's protobuf
// classes, then each node mapped to op-table nodes by the table in `Importer::map`.
//
// Note [Imported weights]
// An initializer read as data (a Conv's weight, an Add's bias) becomes a parameter when it
// is floating point, so the imported model trains; an integer one becomes a constant. An
// initializer or Constant that an operator reads as a setting (a Reshape's shape, a Clip's
// bound) is read at import time and never becomes a node.
#include "nabla/graph/import.h"

#include <algorithm>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "graph/import_shapes.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX
#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h (ONNX_ML=1)
#endif

namespace nabla::graph {

bool onnx_available() { return NABLA_HAVE_ONNX != 0; }

#if !NABLA_HAVE_ONNX

Graph load_onnx(const std::string& path, const std::vector<std::vector<int64_t>>&) {
  NABLA_CHECK(false, "load_onnx: '", path,
              "': this nabla was built without ONNX support (install Debian's libonnx-dev and "
              "libprotobuf-dev, then rebuild)");
}

Tensor load_onnx_tensor(const std::string& path) {
  NABLA_CHECK(false, "load_onnx_tensor: '", path,
              "': this nabla was built without ONNX support (install Debian's libonnx-dev and "
              "libprotobuf-dev, then rebuild)");
}

#else

namespace detail {
Tensor tensor_from_proto(const onnx::TensorProto& t, const std::string& what);
}

namespace {

using Attrs = ops::Attributes;

class Importer {
 public:
  Importer(const onnx::GraphProto& graph, std::string path,
           std::vector<std::vector<int64_t>> input_shapes)
      : onnx_(graph), path_(std::move(path)), input_shapes_(std::move(input_shapes)) {}
  Graph run();

 private:
  using Node = onnx::NodeProto;
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    NABLA_CHECK(false, "load_onnx: '", path_, "': node '", n.name(), "' (", n.op_type(),
                "): ", what);
  }
  [[noreturn]] void fail(const std::string& what) const {
    NABLA_CHECK(false, "load_onnx: '", path_, "': ", what);
  }
  Tensor tensor_of(const onnx::TensorProto& t, const std::string& what) const {
    return detail::tensor_from_proto(t, "load_onnx: '" + path_ + "': " + what);
  }

  // ---- inputs
  bool has_input(const Node& n, int i) const { return i < n.input_size() && !n.input(i).empty(); }
  Value input(const Node& n, int i);
  const Tensor& constant(const Node& n, int i);
  std::vector<int64_t> constant_ints(const Node& n, int i);
  double constant_scalar(const Node& n, int i);
  bool is_constant(const Node& n, int i) const {
    return has_input(n, i) && (constants_.count(n.input(i)) ||
                               (values_.count(n.input(i)) && !dynamic_.count(n.input(i))));
  }
  // ---- attributes
  const onnx::AttributeProto* attr(const Node& n, const char* name) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attr_int(const Node& n, const char* name, int64_t fallback) const {
    const auto* a = attr(n, name);
    return a ? a->i() : fallback;
  }
  double attr_float(const Node& n, const char* name, double fallback) const {
    const auto* a = attr(n, name);
    return a ? a->f() : fallback;
  }
  // The attribute `axis` (default `fallback`) of an input of `rank` dimensions, negative
  // counted from the end.
  int64_t axis_of(const Node& n, int64_t rank, int64_t fallback) const {
    const int64_t a = attr_int(n, "axis", fallback);
    if (a < -rank || a >= rank) fail(n, "axis " + std::to_string(a) + " out of range");
    return a < 0 ? a + rank : a;
  }
  std::vector<int64_t> attr_ints(const Node& n, const char* name,
                                 std::vector<int64_t> fallback) const {
    const auto* a = attr(n, name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
  }
  // ---- outputs
  Value call(const Node& n, const std::string& op, std::vector<Value> in, Attrs attrs = {},
             bool final = true) {
    return g_.call(op, std::move(in), std::move(attrs), final ? n.output(0) : "");
  }
  void define(const Node& n, Value v) {
    if (n.output_size() > 1)
      for (int i = 1; i < n.output_size(); ++i)
        if (!n.output(i).empty()) fail(n, "its output " + std::to_string(i) + " is not supported");
    values_[n.output(0)] = v;
    for (const auto& in : n.input())
      if (dynamic_.count(in)) dynamic_.insert(n.output(0));
  }

  // ---- operators
  void map(const Node& n);
  void conv(const Node& n);
  void pool(const Node& n, bool max);
  void gemm(const Node& n);
  void flatten(const Node& n);
  void batch_norm(const Node& n);
  std::vector<int64_t> symmetric_pads(const Node& n, size_t dims) const;
  void fold(const Node& n);
  void shape_op(const Node& n);
  void gather(const Node& n);
  void unsqueeze(const Node& n, bool squeeze);
  void slice(const Node& n);
  void layer_norm(const Node& n);
  void expand(const Node& n);
  void lstm(const Node& n);
  void reduce(const Node& n);
  void split(const Node& n);
  void cast(const Node& n);
  // The value of input i on the example inputs (the file's input shapes): its shape.
  std::vector<int64_t> shape_of(const Node& n, int i);

  const onnx::GraphProto& onnx_;
  std::string path_;
  std::vector<std::vector<int64_t>> input_shapes_;
  Graph g_;
  std::unordered_map<std::string, Value> values_;      // value name -> node
  std::unordered_map<std::string, Tensor> constants_;  // initializers and Constant outputs
  std::unordered_set<std::string> initializers_;
  std::unordered_set<std::string> dynamic_;  // values that depend on the graph's inputs
  std::unordered_map<std::string, std::string> unknown_shape_;  // inputs without an example
  bool shapes_used_ = false;  // a shape was read from the examples (Note [Import shapes])
};

ScalarType dtype_of(int32_t type, bool& known) {
  known = true;
  switch (type) {
    case onnx::TensorProto::FLOAT:
      return kFloat;
    case onnx::TensorProto::DOUBLE:
      return kDouble;
    case onnx::TensorProto::INT64:
      return kLong;
    case onnx::TensorProto::INT32:
      return kInt;
    case onnx::TensorProto::UINT8:
      return kByte;
    case onnx::TensorProto::INT8:
      return kChar;
    case onnx::TensorProto::INT16:
      return kShort;
    case onnx::TensorProto::BOOL:
      return kBool;
    case onnx::TensorProto::FLOAT16:
      return kHalf;
    case onnx::TensorProto::BFLOAT16:
      return kBFloat16;
    default:
      known = false;
      return kFloat;
  }
}

}  // namespace

// A TensorProto's data as a tensor; errors begin with `what` ("load_onnx: 'f.onnx':
// initializer 'w'").
Tensor detail::tensor_from_proto(const onnx::TensorProto& t, const std::string& what) {
  auto fail = [&](const std::string& why) { NABLA_CHECK(false, what, " ", why); };
  bool known = false;
  const ScalarType dtype = dtype_of(t.data_type(), known);
  if (!known)
    fail("has ONNX data type " + std::to_string(t.data_type()) +
         " (nabla reads float32/64, float16, bfloat16, int64, int32, int16, int8, uint8, bool)");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail("keeps its data in an external file, which nabla does not read yet");
  std::vector<int64_t> dims;
  int64_t numel = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d > 0 && numel > (int64_t{1} << 40) / d)) fail("has an impossible shape");
    dims.push_back(d);
    numel *= d;
  }
  Tensor out = empty(dims, TensorOptions(dtype));
  const size_t bytes = static_cast<size_t>(numel) * elementSize(dtype);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes)
      fail("holds " + std::to_string(t.raw_data().size()) + " bytes, its shape needs " +
           std::to_string(bytes));
    std::memcpy(out.data_ptr(), t.raw_data().data(), bytes);  // little-endian, as ONNX's
    return out;
  }
  // Typed fields (writers other than torch's): float_data, int64_data, int32_data, double_data.
  auto fill = [&](const auto& field) {
    if (static_cast<int64_t>(field.size()) != numel)
      fail("holds " + std::to_string(field.size()) + " values, its shape needs " +
           std::to_string(numel));
    std::vector<double> values(field.begin(), field.end());
    out.copy_(tensor(values, TensorOptions(kDouble)).view(dims));
  };
  if (dtype == kFloat)
    fill(t.float_data());
  else if (dtype == kDouble)
    fill(t.double_data());
  else if (dtype == kLong)
    fill(t.int64_data());
  else
    fill(t.int32_data());  // int32/16/8, uint8, bool, float16 bits: ONNX keeps them there
  return out;
}

namespace {

// Note [Imported weights].
Value Importer::input(const Node& n, int i) {
  if (!has_input(n, i)) fail(n, "input " + std::to_string(i) + " is missing");
  const std::string& name = n.input(i);
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  auto c = constants_.find(name);
  if (c == constants_.end()) fail(n, "input '" + name + "' is defined by no earlier node");
  const bool trainable = initializers_.count(name) && c->second.is_floating_point();
  Value v = trainable ? g_.parameter(name, c->second) : g_.constant(c->second, name);
  values_[name] = v;
  return v;
}

// An initializer, a Constant, or a node computed from those alone (shape arithmetic),
// evaluated now.
const Tensor& Importer::constant(const Node& n, int i) {
  if (!has_input(n, i)) fail(n, "input " + std::to_string(i) + " is missing");
  const std::string& name = n.input(i);
  if (auto c = constants_.find(name); c != constants_.end()) return c->second;
  if (!is_constant(n, i))
    fail(n, "input '" + name + "' must be known at import (it depends on the model's inputs)");
  NoGradGuard no_grad;
  return constants_[name] = g_.forward(values_.at(name));
}

std::vector<int64_t> Importer::shape_of(const Node& n, int i) {
  if (is_constant(n, i)) return constant(n, i).sizes().vec();
  for (const auto& [name, shape] : unknown_shape_)
    fail(n, "it needs the shape of the input '" + name + "', which the file gives as " + shape +
                " (-1: any size): pass the input shapes to load_onnx");
  shapes_used_ = true;  // the graph now depends on the example inputs' shapes
  NoGradGuard no_grad;
  return g_.forward(input(n, i)).sizes().vec();
}

std::vector<int64_t> Importer::constant_ints(const Node& n, int i) {
  const Tensor& t = constant(n, i);
  if (t.scalar_type() != kLong && t.scalar_type() != kInt)
    fail(n, "input " + std::to_string(i) + " must hold integers");
  const Tensor l = t.to(kLong).contiguous();
  return std::vector<int64_t>(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
}

double Importer::constant_scalar(const Node& n, int i) {
  const Tensor& t = constant(n, i);
  if (t.numel() != 1) fail(n, "input " + std::to_string(i) + " must be a single number");
  return t.to(kDouble).item<double>();
}

std::vector<int64_t> Importer::symmetric_pads(const Node& n, size_t dims) const {
  if (const auto* a = attr(n, "auto_pad"); a && a->s() != "NOTSET")
    fail(n, "auto_pad=" + a->s() + " (only explicit pads are supported)");
  const auto pads = attr_ints(n, "pads", std::vector<int64_t>(2 * dims, 0));
  if (pads.size() != 2 * dims) fail(n, "pads has " + std::to_string(pads.size()) + " values");
  for (size_t d = 0; d < dims; ++d)
    if (pads[d] != pads[d + dims]) fail(n, "pads differ at the two ends of a dimension");
  return {pads.begin(), pads.begin() + static_cast<int64_t>(dims)};
}

void Importer::conv(const Node& n) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims =
      kernel.empty() ? static_cast<size_t>(constant(n, 1).dim() - 2) : kernel.size();
  if (dims != 1 && dims != 2) fail(n, std::to_string(dims) + "-d convolutions are not mapped yet");
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  define(n, call(n, dims == 2 ? "conv2d" : "conv1d", std::move(in),
                 {{"stride", attr_ints(n, "strides", std::vector<int64_t>(dims, 1))},
                  {"padding", symmetric_pads(n, dims)},
                  {"dilation", attr_ints(n, "dilations", std::vector<int64_t>(dims, 1))},
                  {"groups", attr_int(n, "group", 1)}}));
}

void Importer::pool(const Node& n, bool max) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  if (kernel.size() != 2) fail(n, "only 2-d pooling is mapped yet");
  Attrs a = {{"kernel_size", kernel},
             {"stride", attr_ints(n, "strides", {1, 1})},
             {"padding", symmetric_pads(n, 2)},
             {"ceil_mode", attr_int(n, "ceil_mode", 0) != 0}};
  if (max)
    a.push_back({"dilation", attr_ints(n, "dilations", {1, 1})});
  else
    a.push_back({"count_include_pad", attr_int(n, "count_include_pad", 0) != 0});
  define(n, call(n, max ? "max_pool2d" : "avg_pool2d", {input(n, 0)}, std::move(a)));
}

// Y = alpha * A' B' + beta * C; torch's Linear is the plain case (transB, alpha = beta = 1).
void Importer::gemm(const Node& n) {
  const bool ta = attr_int(n, "transA", 0), tb = attr_int(n, "transB", 0);
  const double alpha = attr_float(n, "alpha", 1.0), beta = attr_float(n, "beta", 1.0);
  Value a = input(n, 0), b = input(n, 1);
  if (!ta && tb && alpha == 1.0 && beta == 1.0) {
    std::vector<Value> in = {a, b};
    if (has_input(n, 2)) in.push_back(input(n, 2));
    return define(n, call(n, "linear", std::move(in)));
  }
  if (ta) a = call(n, "t", {a}, {}, false);
  if (tb) b = call(n, "t", {b}, {}, false);
  const bool bias = has_input(n, 2) && beta != 0.0;
  Value y = call(n, "matmul", {a, b}, {}, !bias && alpha == 1.0);
  if (alpha != 1.0) y = call(n, "mul", {y}, {{"other", alpha}}, !bias);
  if (bias) {
    Value c = input(n, 2);
    if (beta != 1.0) c = call(n, "mul", {c}, {{"other", beta}}, false);
    y = call(n, "add", {y, c});
  }
  define(n, y);
}

// [d0, ..., dk-1, dk, ...] -> [d0 * ... * dk-1, dk * ...]: the tail merged, then the head.
void Importer::flatten(const Node& n) {
  const int64_t axis = attr_int(n, "axis", 1);
  if (axis < 0) fail(n, "a negative axis is not mapped yet");
  if (axis == 0)
    return define(n, call(n, "reshape", {input(n, 0)}, {{"shape", std::vector<int64_t>{1, -1}}}));
  Value tail = call(n, "flatten", {input(n, 0)}, {{"start_dim", axis}, {"end_dim", -1}}, axis == 1);
  if (axis == 1) return define(n, tail);
  define(n, call(n, "flatten", {tail}, {{"start_dim", 0}, {"end_dim", axis - 1}}));
}

// Inference form: X, scale, B, mean, var (the statistics constants, scale and B trainable).
void Importer::batch_norm(const Node& n) {
  if (attr_int(n, "training_mode", 0) != 0) fail(n, "training_mode=1 is not supported");
  for (int i = 3; i <= 4; ++i)
    if (!constants_.count(n.input(i))) fail(n, "its running statistics must be initializers");
  std::vector<Value> in = {input(n, 0), input(n, 1), input(n, 2),
                           g_.constant(constant(n, 3), n.input(3) + ".stat"),
                           g_.constant(constant(n, 4), n.input(4) + ".stat")};
  define(n, call(n, "batch_norm", std::move(in),
                 {{"training", false}, {"eps", attr_float(n, "epsilon", 1e-5)}}));
}

// Shape arithmetic on integers (ONNX's Div truncates them), computed at import.
void Importer::fold(const Node& n) {
  const Tensor a = constant(n, 0), b = constant(n, 1);
  const std::string& op = n.op_type();
  constants_[n.output(0)] = op == "Add"   ? a + b
                            : op == "Sub" ? a - b
                            : op == "Mul"
                                ? a * b
                                : (a.to(kDouble) / b.to(kDouble)).trunc().to(a.scalar_type());
}

// The example shapes are the file's: Shape of a value is known at import.
void Importer::shape_op(const Node& n) {
  std::vector<int64_t> shape = shape_of(n, 0);
  const auto rank = static_cast<int64_t>(shape.size());
  int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
  start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);
  end = std::clamp(end < 0 ? end + rank : end, int64_t{0}, rank);
  shape = std::vector<int64_t>(shape.begin() + start, shape.begin() + std::max(start, end));
  constants_[n.output(0)] =
      tensor(shape, TensorOptions(kLong)).view({static_cast<int64_t>(shape.size())});
}

// Gather(data, indices) along `axis`, negative indices counted from the end (ONNX's rule).
void Importer::gather(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), 0);
  // An embedding: a table (an initializer) indexed by the model's input.
  if (axis == 0 && !is_constant(n, 1) && initializers_.count(n.input(0)))
    return define(n, call(n, "embedding", {input(n, 0), input(n, 1)}));
  Tensor idx = constant(n, 1).to(kLong);
  if (idx.dim() > 1) fail(n, "indices of more than one dimension are not mapped yet");
  const int64_t size = shape[static_cast<size_t>(axis)];
  idx = idx + idx.lt(0).to(kLong) * size;
  Value data = input(n, 0);
  if (idx.dim() == 0)
    return define(n, call(n, "select", {data}, {{"dim", axis}, {"index", idx.item<int64_t>()}}));
  define(n, call(n, "index_select", {data, g_.constant(idx)}, {{"dim", axis}}));
}

// Unsqueeze: each axis of the output, ascending; Squeeze: each axis of the input, descending.
void Importer::unsqueeze(const Node& n, bool squeeze) {
  std::vector<int64_t> axes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "axes", {});
  const auto in_rank = static_cast<int64_t>(shape_of(n, 0).size());
  if (squeeze && axes.empty()) {
    const auto shape = shape_of(n, 0);
    for (int64_t d = 0; d < in_rank; ++d)
      if (shape[d] == 1) axes.push_back(d);
  }
  const int64_t rank = squeeze ? in_rank : in_rank + static_cast<int64_t>(axes.size());
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  if (squeeze) std::reverse(axes.begin(), axes.end());
  Value v = input(n, 0);
  for (size_t k = 0; k < axes.size(); ++k)
    v = call(n, squeeze ? "squeeze" : "unsqueeze", {v}, {{"dim", axes[k]}}, k + 1 == axes.size());
  define(n, v);
}

// Slice(data, starts, ends[, axes[, steps]]), bounds clamped as ONNX's (INT64_MAX: the end).
void Importer::slice(const Node& n) {
  const auto shape = shape_of(n, 0);
  const auto starts = constant_ints(n, 1), ends = constant_ints(n, 2);
  std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
  for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
  if (has_input(n, 3)) axes = constant_ints(n, 3);
  if (has_input(n, 4)) steps = constant_ints(n, 4);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(n, "starts, ends, axes and steps differ in length");
  Value v = input(n, 0);
  for (size_t k = 0; k < starts.size(); ++k) {
    const auto rank = static_cast<int64_t>(shape.size());
    const int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank) fail(n, "axis " + std::to_string(axes[k]) + " out of range");
    if (steps[k] <= 0) fail(n, "a step of " + std::to_string(steps[k]) + " is not mapped yet");
    const int64_t size = shape[static_cast<size_t>(axis)];
    auto clampi = [&](int64_t x) { return std::clamp(x < 0 ? x + size : x, int64_t{0}, size); };
    v = call(
        n, "slice", {v},
        {{"dim", axis}, {"start", clampi(starts[k])}, {"end", clampi(ends[k])}, {"step", steps[k]}},
        k + 1 == starts.size());
  }
  define(n, v);
}

void Importer::layer_norm(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), -1);
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  define(n, call(n, "layer_norm", std::move(in),
                 {{"normalized_shape", std::vector<int64_t>(shape.begin() + axis, shape.end())},
                  {"eps", attr_float(n, "epsilon", 1e-5)}}));
}

// Expand broadcasts both ways: the result's shape is that of x and `shape` broadcast.
void Importer::expand(const Node& n) {
  std::vector<int64_t> x = shape_of(n, 0), to = constant_ints(n, 1);
  const size_t in_rank = x.size(), rank = std::max(x.size(), to.size());
  x.insert(x.begin(), rank - x.size(), 1);
  to.insert(to.begin(), rank - to.size(), 1);
  for (size_t d = 0; d < rank; ++d) {
    if (x[d] != 1 && to[d] != 1 && x[d] != to[d]) fail(n, "shapes that do not broadcast");
    to[d] = x[d] == 1 ? to[d] : x[d];
  }
  Value v = input(n, 0);
  if (in_rank < rank) v = call(n, "reshape", {v}, {{"shape", x}}, false);
  define(n, call(n, "expand", {v}, {{"size", to}}));
}

// ONNX's LSTM (layout 0: X [seq, batch, input]) as nabla's lstm op. Gates are stored in
// the order i, o, f, c, PyTorch's are i, f, g, o: the weights are reordered once at import
// into new parameters (W, R and B's halves per direction). Y [seq, dirs, batch, hidden].
void Importer::lstm(const Node& n) {
  const int64_t hidden = attr_int(n, "hidden_size", 0);
  const auto* direction = attr(n, "direction");
  const std::string dir = direction ? direction->s() : "forward";
  if (dir == "reverse" || attr(n, "activations") || attr(n, "clip") ||
      attr_int(n, "input_forget", 0) || attr_int(n, "layout", 0))
    fail(n,
         "only forward or bidirectional LSTMs with the default activations, no clip and "
         "layout 0 are mapped");
  if (has_input(n, 4)) fail(n, "sequence_lens is not mapped yet");
  const bool bidirectional = dir == "bidirectional";
  const int64_t dirs = bidirectional ? 2 : 1;
  const auto x_shape = shape_of(n, 0);
  if (x_shape.size() != 3) fail(n, "X must have 3 dimensions");
  const Tensor w = constant(n, 1), r = constant(n, 2);
  const Tensor b =
      has_input(n, 3) ? constant(n, 3) : zeros({dirs, 8 * hidden}, TensorOptions(w.scalar_type()));
  auto reorder = [](const Tensor& t) {
    const auto g = t.chunk(4, 0);
    return cat({g[0], g[2], g[3], g[1]}, 0).contiguous();
  };
  std::vector<Value> in = {input(n, 0)};
  for (int i : {5, 6}) {
    if (has_input(n, i)) {
      in.push_back(input(n, i));
    } else {
      in.push_back(g_.constant(zeros({dirs, x_shape[1], hidden}, TensorOptions(w.scalar_type()))));
    }
  }
  for (int64_t d = 0; d < dirs; ++d) {
    const std::string at = n.name() + (d ? ".reverse" : "");
    in.push_back(g_.parameter(at + ".weight_ih", reorder(w[d])));
    in.push_back(g_.parameter(at + ".weight_hh", reorder(r[d])));
    in.push_back(g_.parameter(at + ".bias_ih", reorder(b[d].slice(0, 0, 4 * hidden))));
    in.push_back(g_.parameter(at + ".bias_hh", reorder(b[d].slice(0, 4 * hidden, 8 * hidden))));
  }
  Value out = g_.call("lstm", std::move(in),
                      {{"has_biases", true},
                       {"num_layers", int64_t{1}},
                       {"dropout", 0.0},
                       {"train", false},
                       {"bidirectional", bidirectional},
                       {"batch_first", false}});
  // [seq, batch, dirs * hidden] -> [seq, dirs, batch, hidden]
  Value y = call(n, "reshape", {out.output(0)},
                 {{"shape", std::vector<int64_t>{x_shape[0], x_shape[1], dirs, hidden}}}, false);
  values_[n.output(0)] = call(n, "transpose", {y}, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
  for (int i = 1; i < std::min(n.output_size(), 3); ++i)
    if (!n.output(i).empty()) values_[n.output(i)] = out.output(i);
  for (const auto& o : n.output()) dynamic_.insert(o);
}

// ReduceSum's axes are an input from opset 13, the others' from opset 18; no axes: all
// of them, unless noop_with_empty_axes.
void Importer::reduce(const Node& n) {
  static const std::unordered_map<std::string, std::string> ops = {
      {"ReduceMean", "mean"}, {"ReduceSum", "sum"}, {"ReduceMax", "amax"}, {"ReduceMin", "amin"}};
  auto axes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "axes", {});
  if (axes.empty()) {
    if (attr_int(n, "noop_with_empty_axes", 0)) return define(n, input(n, 0));
    for (int64_t d = 0; d < static_cast<int64_t>(shape_of(n, 0).size()); ++d) axes.push_back(d);
  }
  define(n, call(n, ops.at(n.op_type()), {input(n, 0)},
                 {{"dim", axes}, {"keepdim", attr_int(n, "keepdims", 1) != 0}}));
}

// Split(input[, split]) along `axis`: the sizes from the input (opset 13), the attribute
// (before), or equal parts, one per output.
void Importer::split(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), 0);
  std::vector<int64_t> sizes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "split", {});
  const int64_t parts = n.output_size(), size = shape[static_cast<size_t>(axis)];
  if (sizes.empty()) {
    if (size % parts != 0) fail(n, "the axis does not split into equal parts");
    sizes.assign(static_cast<size_t>(parts), size / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts)
    fail(n, "split sizes and outputs differ in number");
  Value v = call(n, "split_with_sizes", {input(n, 0)}, {{"split_sizes", sizes}, {"dim", axis}});
  for (int i = 0; i < n.output_size(); ++i) {
    values_[n.output(i)] = v.output(i);
    if (dynamic_.count(n.input(0))) dynamic_.insert(n.output(i));
  }
}

// Cast to `to`: computed at import on constants (shape arithmetic), else a node.
void Importer::cast(const Node& n) {
  bool known = false;
  const ScalarType dtype = dtype_of(static_cast<int32_t>(attr_int(n, "to", 0)), known);
  if (!known) fail(n, "a cast to ONNX type " + std::to_string(attr_int(n, "to", 0)));
  if (is_constant(n, 0)) {
    constants_[n.output(0)] = constant(n, 0).to(dtype);
    return;
  }
  define(n, call(n, "to", {input(n, 0)}, {{"dtype", dtype}}));
}

void Importer::map(const Node& n) {
  static const std::unordered_map<std::string, std::string> unary = {
      {"Relu", "relu"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Erf", "erf"}, {"Sqrt", "sqrt"},
      {"Exp", "exp"},   {"Log", "log"},         {"Neg", "neg"},   {"Abs", "abs"}};
  static const std::unordered_map<std::string, std::string> binary = {
      {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Div", "div"}, {"MatMul", "matmul"}};
  const std::string& op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx") fail(n, "domain '" + n.domain() + "'");
  if (auto u = unary.find(op); u != unary.end())
    return define(n, call(n, u->second, {input(n, 0)}));
  if (op != "MatMul" && binary.count(op) && is_constant(n, 0) && is_constant(n, 1) &&
      !constant(n, 0).is_floating_point())
    return fold(n);
  if (auto b = binary.find(op); b != binary.end())
    return define(n, call(n, b->second, {input(n, 0), input(n, 1)}));
  // Dropout: inference, its mask output unused. torch's exporter replaces an initializer
  // equal to another by an Identity of it: a copy, so that the two train apart.
  if (op == "Identity" || op == "Dropout") {
    if (auto c = constants_.find(n.input(0)); c != constants_.end() && !values_.count(n.input(0))) {
      constants_[n.output(0)] = c->second.clone();
      if (initializers_.count(n.input(0))) initializers_.insert(n.output(0));
      return;
    }
    return define(n, input(n, 0));
  }
  if (op == "Shape") return shape_op(n);
  if (op == "Gather") return gather(n);
  if (op == "Unsqueeze" || op == "Squeeze") return unsqueeze(n, op == "Squeeze");
  if (op == "Slice") return slice(n);
  if (op == "LayerNormalization") return layer_norm(n);
  if (op == "Expand") return expand(n);
  if (op == "LSTM") return lstm(n);
  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin")
    return reduce(n);
  if (op == "Split") return split(n);
  if (op == "Cast") return cast(n);
  if (op == "Where") return define(n, call(n, "where", {input(n, 0), input(n, 1), input(n, 2)}));
  if (op == "Constant") {
    const auto* v = attr(n, "value");
    if (v == nullptr || !v->has_t()) fail(n, "only the tensor form (value=) is supported");
    constants_[n.output(0)] = tensor_of(v->t(), "Constant '" + n.output(0) + "'");
    return;
  }
  if (op == "Conv") return conv(n);
  if (op == "MaxPool" || op == "AveragePool") return pool(n, op == "MaxPool");
  if (op == "GlobalAveragePool")
    return define(n, call(n, "adaptive_avg_pool2d", {input(n, 0)},
                          {{"output_size", std::vector<int64_t>{1, 1}}}));
  if (op == "Gemm") return gemm(n);
  if (op == "Flatten") return flatten(n);
  if (op == "BatchNormalization") return batch_norm(n);
  if (op == "Clip") {
    Attrs a;
    if (has_input(n, 1)) a.push_back({"min", constant_scalar(n, 1)});
    if (has_input(n, 2)) a.push_back({"max", constant_scalar(n, 2)});
    return define(n, call(n, "clamp", {input(n, 0)}, std::move(a)));
  }
  if (op == "Softmax")
    return define(n, call(n, "softmax", {input(n, 0)}, {{"dim", attr_int(n, "axis", -1)}}));
  if (op == "Concat") {
    std::vector<Value> in;
    for (int i = 0; i < n.input_size(); ++i) in.push_back(input(n, i));
    return define(n, call(n, "cat", std::move(in), {{"dim", attr_int(n, "axis", 0)}}));
  }
  if (op == "Transpose") {
    const auto perm = attr_ints(n, "perm", {});
    if (perm.empty()) fail(n, "a Transpose without perm is not mapped yet");
    return define(n, call(n, "permute", {input(n, 0)}, {{"dims", perm}}));
  }
  if (op == "Reshape") {
    auto shape = constant_ints(n, 1);
    if (std::count(shape.begin(), shape.end(), 0) && !attr_int(n, "allowzero", 0)) {
      const auto in = shape_of(n, 0);  // 0: copy the input's dimension
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] == 0) {
          if (d >= in.size()) fail(n, "a 0 in the shape past the input's rank");
          shape[d] = in[d];
        }
    }
    return define(n, call(n, "reshape", {input(n, 0)}, {{"shape", shape}}));
  }
  if (op == "Pow" && constants_.count(n.input(1)))
    return define(n, call(n, "pow", {input(n, 0)}, {{"exponent", constant_scalar(n, 1)}}));
  fail(n, "the operator is not supported by nabla's importer yet");
}

Graph Importer::run() {
  for (const auto& t : onnx_.initializer()) {
    constants_[t.name()] = tensor_of(t, "initializer '" + t.name() + "'");
    initializers_.insert(t.name());
  }
  std::vector<Value> inputs;
  for (const auto& in : onnx_.input()) {
    if (constants_.count(in.name())) continue;  // an initializer listed as an input too
    Value v = g_.input(in.name());
    values_[in.name()] = v;
    dynamic_.insert(in.name());
    // An example of the file's shape (zeros), for the shapes shape arithmetic reads.
    const auto& type = in.type().tensor_type();
    bool known = false;
    const ScalarType dtype = dtype_of(type.elem_type(), known);
    std::vector<int64_t> shape;
    for (const auto& d : type.shape().dim())
      shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
    if (const size_t i = g_.inputs().size() - 1; i < input_shapes_.size()) {  // the caller's
      const auto& given = input_shapes_[i];
      if (!detail::shape_fits(shape, given))
        fail("the shape given for input '" + in.name() + "', " + str(IntArrayRef(given)) +
             ", does not fit the file's " + str(IntArrayRef(shape)) + " (-1: any size)");
      shape = given;
    }
    if (known && std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d >= 0; }))
      g_.set_value(v, zeros(shape, TensorOptions(dtype)));
    else
      unknown_shape_[in.name()] = str(IntArrayRef(shape));
  }
  for (const auto& n : onnx_.node()) {
    if (n.output_size() == 0) fail(n, "no outputs");
    map(n);
  }
  std::vector<Value> outputs;
  for (const auto& out : onnx_.output()) {
    auto it = values_.find(out.name());
    if (it == values_.end()) fail("output '" + out.name() + "' is computed by no node");
    outputs.push_back(it->second);
  }
  g_.set_outputs(std::move(outputs));
  if (shapes_used_) detail::fix_example_shapes(g_);  // Note [Import shapes]
  return std::move(g_);
}

}  // namespace

Graph load_onnx(const std::string& path, const std::vector<std::vector<int64_t>>& input_shapes) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.is_open(), "load_onnx: cannot open '", path, "'");
  onnx::ModelProto model;
  NABLA_CHECK(model.ParseFromIstream(&in), "load_onnx: '", path,
              "' is not an ONNX model (its protobuf does not parse)");
  NABLA_CHECK(model.has_graph(), "load_onnx: '", path, "' has no graph");
  for (const auto& opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      NABLA_CHECK(opset.version() >= 7 && opset.version() <= 17, "load_onnx: '", path,
                  "' uses opset ", opset.version(), "; nabla maps opsets 7-17");
  return Importer(model.graph(), path, input_shapes).run();
}

Tensor load_onnx_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.is_open(), "load_onnx_tensor: cannot open '", path, "'");
  onnx::TensorProto proto;
  NABLA_CHECK(proto.ParseFromIstream(&in), "load_onnx_tensor: '", path,
              "' is not a serialized ONNX TensorProto (its protobuf does not parse)");
  return detail::tensor_from_proto(proto, "load_onnx_tensor: '" + path + "':");
}

#endif

}  // namespace nabla::graph
