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
#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/padding.h"

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

// Thrown by Importer::constant for a setting that depends on the model's inputs: the
// node is then imported as one that reads its settings when the graph runs (Note
// [Settings at run time]).
struct SettingsAtRunTime {};

class Importer {
 public:
  Importer(const onnx::GraphProto& graph, std::string path,
           std::vector<std::vector<int64_t>> input_shapes, int64_t opset)
      : onnx_(graph),
        path_(std::move(path)),
        input_shapes_(std::move(input_shapes)),
        opset_(opset) {}
  Graph run();
  /// Values of the graph's inputs known now (a node imported at run time: Note [Settings
  /// at run time]); every setting is read from them.
  void set_known_inputs(std::unordered_map<std::string, Tensor> known) {
    known_ = std::move(known);
  }

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
  void define(const Node& n, Value v, std::vector<Value> more = {}) {
    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty() && static_cast<size_t>(i) > more.size())
        fail(n, "its output " + std::to_string(i) + " is not supported");
    more.insert(more.begin(), v);
    for (int i = 0; i < n.output_size(); ++i) {
      if (n.output(i).empty()) continue;
      values_[n.output(i)] = more[static_cast<size_t>(i)];
      for (const auto& in : n.input())
        if (dynamic_.count(in)) dynamic_.insert(n.output(i));
    }
  }
  // A node computing f(inputs' values) -> one tensor, named after n's output (Graph::custom).
  template <class F>
  Value function_node(const Node& n, std::string op, std::vector<Value> in, F f) {
    return g_.custom(
        std::move(op),
        [f = std::move(f)](const std::vector<Tensor>& x) { return std::vector<Tensor>{f(x)}; },
        std::move(in), n.output(0));
  }
  bool wants_output(const Node& n, int i) const {
    return i < n.output_size() && !n.output(i).empty();
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
  void softmax(const Node& n, const std::string& op);
  void arg_extreme(const Node& n, const std::string& op);
  void variadic(const Node& n, const std::string& op);
  void settings_at_run_time(const Node& n);
  void class_loss(const Node& n, bool from_scores);
  void pad(const Node& n);
  void conv_transpose(const Node& n);
  // The value of input i on the example inputs (the file's input shapes): its shape.
  std::vector<int64_t> shape_of(const Node& n, int i);

  const onnx::GraphProto& onnx_;
  std::string path_;
  std::vector<std::vector<int64_t>> input_shapes_;
  int64_t opset_;  // the model's ai.onnx opset: some operators changed meaning between them
  Graph g_;
  std::unordered_map<std::string, Value> values_;      // value name -> node
  std::unordered_map<std::string, Tensor> constants_;  // initializers and Constant outputs
  std::unordered_set<std::string> initializers_;
  std::unordered_set<std::string> dynamic_;  // values that depend on the graph's inputs
  std::unordered_map<std::string, std::string> unknown_shape_;  // inputs without an example
  std::unordered_map<std::string, Tensor> known_;               // set_known_inputs
  bool shapes_used_ = false;  // a shape was read from the examples (Note [Import shapes])
};

// ONNX's element types nabla has a dtype for.
constexpr std::pair<int32_t, ScalarType> kOnnxTypes[] = {
    {onnx::TensorProto::FLOAT, kFloat},  {onnx::TensorProto::DOUBLE, kDouble},
    {onnx::TensorProto::INT64, kLong},   {onnx::TensorProto::INT32, kInt},
    {onnx::TensorProto::UINT8, kByte},   {onnx::TensorProto::INT8, kChar},
    {onnx::TensorProto::INT16, kShort},  {onnx::TensorProto::BOOL, kBool},
    {onnx::TensorProto::FLOAT16, kHalf}, {onnx::TensorProto::BFLOAT16, kBFloat16}};

ScalarType dtype_of(int32_t type, bool& known) {
  for (const auto& [onnx_type, dtype] : kOnnxTypes)
    if (onnx_type == type) return known = true, dtype;
  known = false;
  return kFloat;
}

// dtype_of's inverse.
int32_t onnx_type_of(ScalarType t) {
  for (const auto& [onnx_type, dtype] : kOnnxTypes)
    if (dtype == t) return onnx_type;
  return onnx::TensorProto::UNDEFINED;
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
  if (!is_constant(n, i)) throw SettingsAtRunTime{};  // Note [Settings at run time]
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
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d convolutions are not mapped");
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  define(n, call(n, "conv" + std::to_string(dims) + "d", std::move(in),
                 {{"stride", attr_ints(n, "strides", std::vector<int64_t>(dims, 1))},
                  {"padding", symmetric_pads(n, dims)},
                  {"dilation", attr_ints(n, "dilations", std::vector<int64_t>(dims, 1))},
                  {"groups", attr_int(n, "group", 1)}}));
}

// ConvTranspose. Explicit symmetric pads map to the op's padding. An output_shape, or
// auto_pad SAME_* (an output of input * stride), fixes the output's size instead: the
// pads come from it (ONNX's formula, the odd one at the end for SAME_UPPER, else at the
// start), and the op runs without padding and its result is cropped by them.
void Importer::conv_transpose(const Node& n) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims = kernel.empty() ? shape_of(n, 1).size() - 2 : kernel.size();
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d transposed convolutions");
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  const std::vector<int64_t> ones(dims, 1), zeros(dims, 0);
  const auto strides = attr_ints(n, "strides", ones), dilations = attr_ints(n, "dilations", ones);
  const auto output_padding = attr_ints(n, "output_padding", zeros);
  const std::string op = "conv_transpose" + std::to_string(dims) + "d";
  const auto* auto_pad = attr(n, "auto_pad");
  const bool same = auto_pad && auto_pad->s().rfind("SAME", 0) == 0;
  if (!attr(n, "output_shape") && !same)
    return define(n, call(n, op, std::move(in),
                          {{"stride", strides},
                           {"padding", symmetric_pads(n, dims)},
                           {"output_padding", output_padding},
                           {"groups", attr_int(n, "group", 1)},
                           {"dilation", dilations}}));
  const auto x = shape_of(n, 0), w = shape_of(n, 1);
  std::vector<int64_t> out_shape = attr_ints(n, "output_shape", {});
  if (out_shape.empty())
    for (size_t d = 0; d < dims; ++d) out_shape.push_back(x[2 + d] * strides[d]);
  if (out_shape.size() > dims) out_shape.erase(out_shape.begin(), out_shape.end() - dims);
  if (out_shape.size() != dims) fail(n, "output_shape has the wrong number of values");
  const bool upper = auto_pad && auto_pad->s() == "SAME_UPPER";
  Value v = call(n, op, std::move(in),
                 {{"stride", strides},
                  {"padding", zeros},
                  {"output_padding", output_padding},
                  {"groups", attr_int(n, "group", 1)},
                  {"dilation", dilations}},
                 false);
  for (size_t d = 0; d < dims; ++d) {
    const int64_t full =
        strides[d] * (x[2 + d] - 1) + output_padding[d] + (w[2 + d] - 1) * dilations[d] + 1;
    const int64_t total = full - out_shape[d];
    if (total < 0) fail(n, "output_shape is larger than the transposed convolution gives");
    const int64_t begin = upper ? total / 2 : total - total / 2;
    v = call(n, "slice", {v},
             {{"dim", static_cast<int64_t>(2 + d)},
              {"start", begin},
              {"end", begin + out_shape[d]},
              {"step", int64_t{1}}},
             d + 1 == dims);
  }
  define(n, v);
}

void Importer::pool(const Node& n, bool max) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims = kernel.size();
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d pooling is not mapped");
  Attrs a = {{"kernel_size", kernel},
             {"stride", attr_ints(n, "strides", std::vector<int64_t>(dims, 1))},
             {"padding", symmetric_pads(n, dims)},
             {"ceil_mode", attr_int(n, "ceil_mode", 0) != 0}};
  if (max)
    a.push_back({"dilation", attr_ints(n, "dilations", std::vector<int64_t>(dims, 1))});
  else
    a.push_back({"count_include_pad", attr_int(n, "count_include_pad", 0) != 0});
  define(n, call(n, std::string(max ? "max_pool" : "avg_pool") + std::to_string(dims) + "d",
                 {input(n, 0)}, std::move(a)));
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
  const int64_t size = shape[static_cast<size_t>(axis)];
  idx = idx + idx.lt(0).to(kLong) * size;
  Value data = input(n, 0);
  if (idx.dim() > 1) {  // index_select by the flat indices, then the indices' shape restored
    std::vector<int64_t> out(shape.begin(), shape.begin() + axis);
    for (int64_t d : idx.sizes()) out.push_back(d);
    out.insert(out.end(), shape.begin() + axis + 1, shape.end());
    Value flat =
        call(n, "index_select", {data, g_.constant(idx.reshape({-1}))}, {{"dim", axis}}, false);
    return define(n, call(n, "reshape", {flat}, {{"shape", out}}));
  }
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
  const bool by_attributes = opset_ < 10;  // starts, ends and axes were attributes then
  const auto starts = by_attributes ? attr_ints(n, "starts", {}) : constant_ints(n, 1);
  const auto ends = by_attributes ? attr_ints(n, "ends", {}) : constant_ints(n, 2);
  std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
  for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
  if (by_attributes && attr(n, "axes")) axes = attr_ints(n, "axes", {});
  if (!by_attributes && has_input(n, 3)) axes = constant_ints(n, 3);
  if (!by_attributes && has_input(n, 4)) steps = constant_ints(n, 4);
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

// LayerNormalization; its optional outputs Mean and InvStdDev (over the normalized dims,
// kept as size 1) come from a node of their own.
void Importer::layer_norm(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), -1);
  const double eps = attr_float(n, "epsilon", 1e-5);
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  Value y = call(n, "layer_norm", std::move(in),
                 {{"normalized_shape", std::vector<int64_t>(shape.begin() + axis, shape.end())},
                  {"eps", eps}});
  if (!wants_output(n, 1) && !wants_output(n, 2)) return define(n, y);
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < static_cast<int64_t>(shape.size()); ++d) dims.push_back(d);
  Value stats = g_.custom(
      "layer_norm_statistics",
      [dims, eps](const std::vector<Tensor>& x) -> std::vector<Tensor> {
        const Tensor mean = x[0].mean(dims, true);
        const Tensor var = (x[0] - mean).square().mean(dims, true);
        return {mean, (var + eps).rsqrt()};
      },
      {input(n, 0)}, n.output(0) + ".statistics");
  define(n, y, {stats.output(0), stats.output(1)});
}

// NegativeLogLikelihoodLoss (log-probabilities in) and SoftmaxCrossEntropyLoss (scores in;
// its optional second output is their log_softmax): inputs [N, C, d1...], targets
// [N, d1...], optional class weights; reduction and ignore_index as LibTorch's nll_loss.
void Importer::class_loss(const Node& n, bool from_scores) {
  const auto* r = attr(n, "reduction");
  const std::string reduction = r ? r->s() : "mean";
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    fail(n, "reduction '" + reduction + "'");
  const auto* ignore = attr(n, "ignore_index");
  Value scores = input(n, 0);
  Value log_prob =
      from_scores ? call(n, "log_softmax", {scores}, {{"dim", int64_t{1}}}, false) : scores;
  Value target = call(n, "to", {input(n, 1)}, {{"dtype", kLong}}, false);
  std::vector<Value> in = {log_prob, target};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  Value loss = call(n, "nll_loss_nd", std::move(in),
                    {{"reduction", int64_t{reduction == "none"   ? 0
                                           : reduction == "mean" ? 1
                                                                 : 2}},
                     {"ignore_index", ignore ? ignore->i() : int64_t{-100}}});
  define(n, loss,
         from_scores && wants_output(n, 1) ? std::vector<Value>{log_prob} : std::vector<Value>{});
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
// The Reduce operators without an op of their own (a node computing them from sums,
// products and logsumexp, with the gradients those give).
Tensor reduce_other(const std::string& op, Tensor x, std::vector<int64_t> axes, bool keep) {
  for (int64_t& a : axes) a = a < 0 ? a + x.dim() : a;
  if (op == "ReduceLogSumExp") return x.logsumexp(axes, keep);
  if (op == "ReduceProd") {
    std::sort(axes.rbegin(), axes.rend());  // dims from the last, so the others keep their place
    for (int64_t a : axes) x = x.prod(a, keep);
    return x;
  }
  if (op == "ReduceL1") return x.abs().sum(axes, keep);
  if (op == "ReduceL2") return x.square().sum(axes, keep).sqrt();
  if (op == "ReduceSumSquare") return x.square().sum(axes, keep);
  return x.sum(axes, keep).log();  // ReduceLogSum
}

void Importer::reduce(const Node& n) {
  static const std::unordered_map<std::string, std::string> ops = {
      {"ReduceMean", "mean"}, {"ReduceSum", "sum"}, {"ReduceMax", "amax"}, {"ReduceMin", "amin"}};
  auto axes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "axes", {});
  if (axes.empty()) {
    if (attr_int(n, "noop_with_empty_axes", 0)) return define(n, input(n, 0));
    for (int64_t d = 0; d < static_cast<int64_t>(shape_of(n, 0).size()); ++d) axes.push_back(d);
  }
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  if (auto it = ops.find(n.op_type()); it != ops.end())
    return define(n, call(n, it->second, {input(n, 0)}, {{"dim", axes}, {"keepdim", keep}}));
  static const std::unordered_set<std::string> others = {
      "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"};
  if (!others.count(n.op_type())) fail(n, "the operator is not supported by nabla's importer yet");
  define(n, function_node(n, n.op_type(), {input(n, 0)},
                          [op = n.op_type(), axes, keep](const std::vector<Tensor>& x) {
                            return reduce_other(op, x[0], axes, keep);
                          }));
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

// Softmax and LogSoftmax: along `axis` (default -1) from opset 13; before, the input is
// seen as a matrix of its dims before `axis` (default 1) by those from it on, and the
// rows are normalized: the same along the last dim, a normalization over every dim from
// `axis` on otherwise (a node of its own, which flattens and restores the shape).
void Importer::softmax(const Node& n, const std::string& op) {
  if (opset_ >= 13)
    return define(n, call(n, op, {input(n, 0)}, {{"dim", attr_int(n, "axis", -1)}}));
  const int64_t axis = attr_int(n, "axis", 1);
  const bool log = op == "log_softmax";
  define(n, function_node(n, op, {input(n, 0)}, [axis, log](const std::vector<Tensor>& x) {
           const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
           const Tensor rows = x[0].flatten(a);
           const Tensor out = log ? nabla::log_softmax(rows, -1) : nabla::softmax(rows, -1);
           return out.view(x[0].sizes());
         }));
}

// ArgMax/ArgMin along `axis` (default 0), keepdims (default 1); the last of equal extremes
// (select_last_index) through the input reversed along the axis.
void Importer::arg_extreme(const Node& n, const std::string& op) {
  const int64_t axis = attr_int(n, "axis", 0);
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  if (!attr_int(n, "select_last_index", 0))
    return define(n, call(n, op, {input(n, 0)}, {{"dim", axis}, {"keepdim", keep}}));
  // The last of equal extremes: the first one of the input reversed along the axis.
  define(n, function_node(n, op, {input(n, 0)},
                          [axis, keep, max = op == "argmax"](const std::vector<Tensor>& x) {
                            const Tensor r = x[0].flip({axis});
                            const Tensor first = max ? r.argmax(axis, keep) : r.argmin(axis, keep);
                            return (x[0].size(axis) - 1) - first;
                          }));
}

// Max, Min, Sum, Mean of any number of inputs, broadcast together.
void Importer::variadic(const Node& n, const std::string& op) {
  const std::string pairwise = op == "Max" ? "maximum" : op == "Min" ? "minimum" : "add";
  if (n.input_size() == 0) fail(n, "no inputs");
  Value acc = input(n, 0);
  for (int i = 1; i < n.input_size(); ++i)
    acc = call(n, pairwise, {acc, input(n, i)}, {}, /*final=*/false);
  if (op == "Mean")
    acc = call(n, "div", {acc, g_.constant(scalar_tensor(n.input_size()), n.output(0) + ".count")},
               {}, false);
  define(n, acc);
}

// Note [Settings at run time]
// ONNX gives many operators their settings as tensors (a Reshape's shape, a Clip's bounds,
// CumSum's axis). When such a tensor is known at import (an initializer, a Constant, shape
// arithmetic on fixed shapes) the operator maps to op-table nodes with the settings as
// attributes. When it depends on the model's inputs, the operator becomes one node
// (Graph::custom) that, each time the graph runs, imports that single operator again with
// the values its inputs have then (every one of them known, so the settings are too) and
// applies the small graph it gets to them (Graph::apply): eager ops, so gradients flow to
// the data inputs as through any node. The same mapping code serves both cases.
std::vector<Tensor> import_and_apply(const onnx::NodeProto& node, const std::string& path,
                                     int64_t opset, const std::vector<std::string>& names,
                                     const std::vector<Tensor>& values) {
  onnx::GraphProto sub;
  *sub.add_node() = node;
  std::unordered_map<std::string, Tensor> known;
  for (size_t i = 0; i < names.size(); ++i) {
    auto* in = sub.add_input();
    in->set_name(names[i]);
    auto* type = in->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx_type_of(values[i].scalar_type()));
    for (int64_t d : values[i].sizes()) type->mutable_shape()->add_dim()->set_dim_value(d);
    known[names[i]] = values[i];
  }
  sub.add_output()->set_name(node.output(0));
  Importer importer(sub, path, {}, opset);
  importer.set_known_inputs(std::move(known));
  return importer.run().apply(values);
}

void Importer::settings_at_run_time(const Node& n) {
  int outputs = 0;
  for (const auto& o : n.output()) outputs += o.empty() ? 0 : 1;
  if (outputs != 1 || n.output(0).empty())
    fail(n,
         "its settings depend on the model's inputs, which nabla reads when the graph runs "
         "only for operators of one output");
  std::vector<std::string> names;
  std::vector<Value> in;
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && std::find(names.begin(), names.end(), n.input(i)) == names.end()) {
      names.push_back(n.input(i));
      in.push_back(input(n, i));
    }
  define(n, g_.custom(
                n.op_type(),
                [node = n, path = path_, opset = opset_, names](const std::vector<Tensor>& x) {
                  return import_and_apply(node, path, opset, names, x);
                },
                std::move(in), n.output(0)));
}

// Pad: `pads` (an attribute before opset 11, then an input) as [begin of each dim..., end
// of each dim...]; modes constant (value: an attribute, then an optional input), reflect
// and edge (LibTorch's replication) over the last one to three dims.
void Importer::pad(const Node& n) {
  const bool by_attributes = opset_ < 11;
  const auto pads = by_attributes ? attr_ints(n, "pads", {}) : constant_ints(n, 1);
  const auto* m = attr(n, "mode");
  const std::string mode = m ? m->s() : "constant";
  const size_t rank = pads.size() / 2;
  if (pads.size() % 2 != 0) fail(n, "pads holds an odd number of values");
  // LibTorch's order: the last dim's (begin, end) first.
  std::vector<int64_t> torch_pad;
  for (size_t d = rank; d-- > 0;) {
    torch_pad.push_back(pads[d]);
    torch_pad.push_back(pads[d + rank]);
  }
  if (mode == "constant") {
    const double value = by_attributes     ? attr_float(n, "value", 0.0)
                         : has_input(n, 2) ? constant_scalar(n, 2)
                                           : 0.0;
    return define(
        n, call(n, "constant_pad_nd", {input(n, 0)}, {{"pad", torch_pad}, {"value", value}}));
  }
  if (mode != "reflect" && mode != "edge") fail(n, "mode '" + mode + "'");
  // Only the trailing dims may be padded: drop the leading zero pairs.
  while (torch_pad.size() > 2 && torch_pad[torch_pad.size() - 1] == 0 &&
         torch_pad[torch_pad.size() - 2] == 0)
    torch_pad.resize(torch_pad.size() - 2);
  const size_t dims = torch_pad.size() / 2;
  if (dims > 3) fail(n, mode + " padding of more than the last three dims");
  define(n, g_.custom(
                "Pad",
                [torch_pad, dims, reflect = mode == "reflect"](const std::vector<Tensor>& x) {
                  using PadFn = Tensor (*)(const Tensor&, IntArrayRef);
                  static const PadFn reflect_fns[] = {reflection_pad1d, reflection_pad2d,
                                                      reflection_pad3d};
                  static const PadFn edge_fns[] = {replication_pad1d, replication_pad2d,
                                                   replication_pad3d};
                  const PadFn fn = (reflect ? reflect_fns : edge_fns)[dims - 1];
                  // LibTorch's forms take a batch dim and a channel dim before the padded ones.
                  Tensor in = x[0];
                  const int64_t lead = in.dim() - static_cast<int64_t>(dims);
                  const auto shape = in.sizes().vec();
                  in = in.reshape([&] {
                    std::vector<int64_t> s = {1, -1};
                    s.insert(s.end(), shape.end() - static_cast<int64_t>(dims), shape.end());
                    return s;
                  }());
                  Tensor out = fn(in, torch_pad);
                  std::vector<int64_t> out_shape(shape.begin(), shape.begin() + lead);
                  for (int64_t d = out.dim() - static_cast<int64_t>(dims); d < out.dim(); ++d)
                    out_shape.push_back(out.size(d));
                  return std::vector<Tensor>{out.reshape(out_shape)};
                },
                {input(n, 0)}, n.output(0)));
}

void Importer::map(const Node& n) {
  static const std::unordered_map<std::string, std::string> unary = {
      {"Relu", "relu"},       {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"},
      {"Erf", "erf"},         {"Sqrt", "sqrt"},       {"Exp", "exp"},
      {"Log", "log"},         {"Neg", "neg"},         {"Abs", "abs"},
      {"Sin", "sin"},         {"Cos", "cos"},         {"Tan", "tan"},
      {"Asin", "asin"},       {"Acos", "acos"},       {"Atan", "atan"},
      {"Sinh", "sinh"},       {"Cosh", "cosh"},       {"Asinh", "asinh"},
      {"Acosh", "acosh"},     {"Atanh", "atanh"},     {"Ceil", "ceil"},
      {"Floor", "floor"},     {"Round", "round"},     {"Sign", "sign"},
      {"Not", "logical_not"}, {"IsNaN", "isnan"},     {"Reciprocal", "reciprocal"}};
  static const std::unordered_map<std::string, std::string> binary = {
      {"Add", "add"},         {"Sub", "sub"},        {"Mul", "mul"},
      {"MatMul", "matmul"},   {"Equal", "eq"},       {"Less", "lt"},
      {"Greater", "gt"},      {"LessOrEqual", "le"}, {"GreaterOrEqual", "ge"},
      {"And", "logical_and"}, {"Or", "logical_or"},  {"Xor", "logical_xor"}};
  const std::string& op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx") fail(n, "domain '" + n.domain() + "'");
  if (auto u = unary.find(op); u != unary.end())
    return define(n, call(n, u->second, {input(n, 0)}));
  // Integer arithmetic on constants (shape arithmetic) is done now.
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && is_constant(n, 0) &&
      is_constant(n, 1) && !constant(n, 0).is_floating_point())
    return fold(n);
  if (auto b = binary.find(op); b != binary.end())
    return define(n, call(n, b->second, {input(n, 0), input(n, 1)}));
  // Div with a floating constant operand (a model's `x / scale`) is the op table's div;
  // otherwise the types are known only when the graph runs.
  auto floating_constant = [&](int i) {
    return is_constant(n, i) && constant(n, i).is_floating_point();
  };
  if (op == "Div" && (floating_constant(0) || floating_constant(1)))
    return define(n, call(n, "div", {input(n, 0), input(n, 1)}));
  if (op == "Div")  // integers divide to integers, rounded toward zero, as ONNX's Div
    return define(
        n, function_node(n, "Div", {input(n, 0), input(n, 1)}, [](const std::vector<Tensor>& x) {
          const Tensor &a = x[0], &b = x[1];
          if (a.is_floating_point() || b.is_floating_point()) return a.div(b);
          // floor division, moved up by one where it rounded a negative
          // inexact quotient down
          const Tensor up = a.remainder(b).ne(0).logical_and(a.lt(0).ne(b.lt(0)));
          return a.floor_divide(b) + up.to(a.scalar_type());
        }));
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
  if (op == "ConstantOfShape") {  // `value` (one element; float 0 by default) in that shape
    const auto shape = constant_ints(n, 0);
    Tensor value = zeros({1}, TensorOptions(kFloat));
    if (const auto* v = attr(n, "value"); v && v->has_t())
      value = tensor_of(v->t(), "ConstantOfShape '" + n.output(0) + "' value");
    if (value.numel() != 1) fail(n, "its value must hold one element");
    constants_[n.output(0)] = value.reshape({}).expand(shape).contiguous();
    return;
  }
  if (op == "Size") {  // the number of elements, from the shape (Note [Import shapes])
    const auto shape = shape_of(n, 0);
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    constants_[n.output(0)] = scalar_tensor(numel, TensorOptions(kLong));
    return;
  }
  if (op == "Gather") return gather(n);
  if (op == "Unsqueeze" || op == "Squeeze") return unsqueeze(n, op == "Squeeze");
  if (op == "Slice") return slice(n);
  if (op == "LayerNormalization") return layer_norm(n);
  if (op == "Expand") return expand(n);
  if (op == "LSTM") return lstm(n);
  if (op.rfind("Reduce", 0) == 0) return reduce(n);
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
  if (op == "ConvTranspose") return conv_transpose(n);
  if (op == "MaxPool" || op == "AveragePool") return pool(n, op == "MaxPool");
  if (op == "GlobalAveragePool")
    return define(n, call(n, "adaptive_avg_pool2d", {input(n, 0)},
                          {{"output_size", std::vector<int64_t>{1, 1}}}));
  if (op == "Gemm") return gemm(n);
  if (op == "Flatten") return flatten(n);
  if (op == "BatchNormalization") return batch_norm(n);
  if (op == "Clip" && opset_ < 11) {  // bounds were float attributes then
    Attrs a;
    if (attr(n, "min")) a.push_back({"min", attr_float(n, "min", 0)});
    if (attr(n, "max")) a.push_back({"max", attr_float(n, "max", 0)});
    if (a.empty()) return define(n, input(n, 0));
    return define(n, call(n, "clamp", {input(n, 0)}, std::move(a)));
  }
  if (op == "Clip") {  // bounds of an integer type keep an integer input's type
    Attrs a;
    auto bound = [&](int i, const char* name) {
      if (!has_input(n, i)) return;
      const Tensor& c = constant(n, i);
      if (c.is_floating_point())
        a.push_back({name, constant_scalar(n, i)});
      else
        a.push_back({name, c.to(kLong).item<int64_t>()});
    };
    bound(1, "min");
    bound(2, "max");
    if (a.empty()) return define(n, input(n, 0));  // no bounds: the input as it is
    return define(n, call(n, "clamp", {input(n, 0)}, std::move(a)));
  }
  if (op == "Softmax" || op == "LogSoftmax")
    return softmax(n, op == "Softmax" ? "softmax" : "log_softmax");
  if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss")
    return class_loss(n, op == "SoftmaxCrossEntropyLoss");
  if (op == "ArgMax" || op == "ArgMin") return arg_extreme(n, op == "ArgMax" ? "argmax" : "argmin");
  if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") return variadic(n, op);
  if (op == "Pad") return pad(n);
  if (op == "InstanceNormalization")
    return define(n, call(n, "instance_norm", {input(n, 0), input(n, 1), input(n, 2)},
                          {{"use_input_stats", true}, {"eps", attr_float(n, "epsilon", 1e-5)}}));
  if (op == "ScatterElements") {           // negative indices count from the end; duplicates add up
    const auto* r = attr(n, "reduction");  // with reduction "add" (else one of them wins)
    const std::string reduction = r ? r->s() : "none";
    if (reduction != "none" && reduction != "add") fail(n, "reduction '" + reduction + "'");
    return define(n, function_node(n, "ScatterElements", {input(n, 0), input(n, 1), input(n, 2)},
                                   [axis = attr_int(n, "axis", 0),
                                    add = reduction == "add"](const std::vector<Tensor>& x) {
                                     const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
                                     const Tensor idx = x[1].to(kLong);
                                     const Tensor i = idx.where(idx.ge(0), idx + x[0].size(a));
                                     return add ? x[0].scatter_add(a, i, x[2])
                                                : x[0].scatter(a, i, x[2]);
                                   }));
  }
  if (op == "CastLike")  // input 0 in input 1's type
    return define(
        n, function_node(n, "CastLike", {input(n, 0), input(n, 1)},
                         [](const std::vector<Tensor>& x) { return x[0].to(x[1].scalar_type()); }));
  if (op == "Range") {  // start, limit, delta: known at import, or read each run
    const Tensor &start = constant(n, 0), &limit = constant(n, 1), &delta = constant(n, 2);
    const ScalarType t = start.scalar_type();
    constants_[n.output(0)] =
        start.is_floating_point()
            ? arange(start.item<double>(), limit.item<double>(), delta.item<double>(),
                     TensorOptions(kDouble))
                  .to(t)
            : arange(start.to(kLong).item<int64_t>(), limit.to(kLong).item<int64_t>(),
                     delta.to(kLong).item<int64_t>(), TensorOptions(kLong))
                  .to(t);
    return;
  }
  if (op == "Hardmax")  // 1 at the first largest value along the axis (before opset 13:
                        // over every dim from `axis` on, as Softmax then), 0 elsewhere
    return define(n, function_node(n, "Hardmax", {input(n, 0)},
                                   [axis = attr_int(n, "axis", opset_ >= 13 ? -1 : 1),
                                    coerce = opset_ < 13](const std::vector<Tensor>& x) {
                                     const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
                                     const Tensor rows = coerce ? x[0].flatten(a) : x[0];
                                     const int64_t d = coerce ? rows.dim() - 1 : a;
                                     const Tensor at = rows.argmax(d, true);
                                     const Tensor out = zeros_like(rows).scatter(d, at, 1);
                                     return out.view(x[0].sizes());
                                   }));
  if (op == "Softplus") return define(n, call(n, "softplus", {input(n, 0)}));
  if (op == "Selu")  // gamma * elu(x, alpha); LibTorch's selu is the default alpha and gamma
    return define(
        n, call(n, "mul",
                {call(n, "elu", {input(n, 0)},
                      {{"alpha", attr_float(n, "alpha", 1.67326319217681884765625)}}, false)},
                {{"other", attr_float(n, "gamma", 1.05070102214813232421875)}}));
  if (op == "PRelu")  // the slope broadcasts to the input; before opset 7, one per channel
    return define(n, function_node(n, "PRelu", {input(n, 0), input(n, 1)},
                                   [per_channel = opset_ < 7](const std::vector<Tensor>& x) {
                                     Tensor slope = x[1];
                                     if (per_channel && slope.dim() == 1 && x[0].dim() >= 2) {
                                       std::vector<int64_t> s(static_cast<size_t>(x[0].dim() - 1),
                                                              1);
                                       s[0] = slope.numel();
                                       slope = slope.view(s);
                                     }
                                     return x[0].where(x[0].ge(0), x[0] * slope);
                                   }));
  if (op == "LeakyRelu")
    return define(n, call(n, "leaky_relu", {input(n, 0)},
                          {{"negative_slope", attr_float(n, "alpha", 0.01)}}));
  if (op == "Elu" || op == "Celu")
    return define(n, call(n, op == "Elu" ? "elu" : "celu", {input(n, 0)},
                          {{"alpha", attr_float(n, "alpha", 1.0)}}));
  if (op == "Trilu") {
    const int64_t k = has_input(n, 1) ? static_cast<int64_t>(constant_scalar(n, 1)) : 0;
    return define(
        n, call(n, attr_int(n, "upper", 1) ? "triu" : "tril", {input(n, 0)}, {{"diagonal", k}}));
  }
  if (op == "GatherElements")
    return define(n,
                  call(n, "gather", {input(n, 0), input(n, 1)}, {{"dim", attr_int(n, "axis", 0)}}));
  if (op == "Tile")
    return define(n, call(n, "tile", {input(n, 0)}, {{"dims", constant_ints(n, 1)}}));
  if (op == "CumSum") {
    if (attr_int(n, "exclusive", 0) || attr_int(n, "reverse", 0))
      fail(n, "exclusive or reverse sums are not mapped yet");
    return define(n, call(n, "cumsum", {input(n, 0)},
                          {{"dim", static_cast<int64_t>(constant_scalar(n, 1))}}));
  }
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
  if (op == "Pow")  // the result has the base's type (an integer base truncates)
    return define(
        n, function_node(n, "Pow", {input(n, 0), input(n, 1)}, [](const std::vector<Tensor>& x) {
          return x[0].pow(x[1]).to(x[0].scalar_type());
        }));
  if (op == "Mod")  // fmod=1: the sign of the dividend (C's fmod); else of the divisor
    return define(
        n, call(n, attr_int(n, "fmod", 0) ? "fmod" : "remainder", {input(n, 0), input(n, 1)}));
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
  for (const auto& [name, value] : known_) constants_[name] = value;
  for (const auto& n : onnx_.node()) {
    if (n.output_size() == 0) fail(n, "no outputs");
    try {
      map(n);
    } catch (const SettingsAtRunTime&) {
      // Importing it again with every input known cannot need another round.
      if (!known_.empty()) fail(n, "a setting is unknown even with every input's value");
      settings_at_run_time(n);
    }
  }
  std::vector<Value> outputs;
  for (const auto& out : onnx_.output()) {
    auto it = values_.find(out.name());
    if (it == values_.end() && constants_.count(out.name()))  // computed at import
      it = values_.emplace(out.name(), g_.constant(constants_.at(out.name()), out.name())).first;
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
  int64_t version = 17;
  for (const auto& opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      NABLA_CHECK(opset.version() >= 6 && opset.version() <= 17, "load_onnx: '", path,
                  "' uses opset ", opset.version(), "; nabla maps opsets 6-17");
      version = opset.version();
    }
  return Importer(model.graph(), path, input_shapes, version).run();
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
