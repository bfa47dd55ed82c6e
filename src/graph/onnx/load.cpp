// graph::load_onnx and load_onnx_tensor (nabla/graph/import.h): the ModelProto parsed by
// libonnx-dev's protobuf classes, then each node mapped to op-table nodes by
// `Importer::map` (map.cpp).
//
// Note [Imported weights]
// An initializer read as data (a Conv's weight, an Add's bias) becomes a parameter when it
// is floating point, so the imported model trains; an integer one becomes a constant. An
// initializer or Constant that an operator reads as a setting (a Reshape's shape, a Clip's
// bound) is read at import time and never becomes a node.
#include "graph/onnx/importer.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

#include "graph/import_shapes.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/detail/allocation_limit.h"
#include "nabla/ops/factories.h"

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

namespace onnx_import {

// ONNX's element types nabla has a dtype for.
constexpr std::pair<int32_t, ScalarType> kOnnxTypes[] = {
    {onnx::TensorProto::FLOAT, kFloat},  {onnx::TensorProto::DOUBLE, kDouble},
    {onnx::TensorProto::INT64, kLong},   {onnx::TensorProto::INT32, kInt},
    {onnx::TensorProto::UINT8, kByte},   {onnx::TensorProto::INT8, kChar},
    {onnx::TensorProto::INT16, kShort},  {onnx::TensorProto::BOOL, kBool},
    {onnx::TensorProto::FLOAT16, kHalf}, {onnx::TensorProto::BFLOAT16, kBFloat16}};

// ONNX's unsigned types wider than a byte, which nabla has no dtype for: read widened to
// the signed type that holds every value (uint64: those below 2^63), with their size.
constexpr std::tuple<int32_t, ScalarType, size_t> kWidened[] = {
    {onnx::TensorProto::UINT16, kInt, 2},
    {onnx::TensorProto::UINT32, kLong, 4},
    {onnx::TensorProto::UINT64, kLong, 8}};

ScalarType dtype_of(int32_t type, bool& known) {
  known = true;
  for (const auto& [onnx_type, dtype] : kOnnxTypes)
    if (onnx_type == type) return dtype;
  for (const auto& [onnx_type, dtype, size] : kWidened)
    if (onnx_type == type) return dtype;
  known = false;
  return kFloat;
}

// dtype_of's inverse.
int32_t onnx_type_of(ScalarType t) {
  for (const auto& [onnx_type, dtype] : kOnnxTypes)
    if (dtype == t) return onnx_type;
  return onnx::TensorProto::UNDEFINED;
}

namespace {

// Unsigned little-endian values of `size` bytes, widened into `out`'s (signed) dtype.
template <class T>
void widen(const char* bytes, size_t size, int64_t n, T* out, const std::string& what) {
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    std::memcpy(&v, bytes + static_cast<size_t>(i) * size, size);  // little-endian, as ONNX's
    NABLA_CHECK(v <= static_cast<uint64_t>(std::numeric_limits<T>::max()), what, " holds ", v,
                ", beyond nabla's widest signed integer");
    out[i] = static_cast<T>(v);
  }
}

}  // namespace

// A TensorProto's data as a tensor; errors begin with `what` ("load_onnx: 'f.onnx':
// initializer 'w'").
Tensor tensor_from_proto(const onnx::TensorProto& t, const std::string& what) {
  auto fail = [&](const std::string& why) { NABLA_CHECK(false, what, " ", why); };
  bool known = false;
  const int32_t type = t.data_type();
  const ScalarType dtype = dtype_of(type, known);
  if (!known)
    fail("has ONNX data type " + std::to_string(type) +
         " (nabla reads float32/64, float16, bfloat16, int64/32/16/8, uint64/32/16/8 (the "
         "wider unsigned ones widened to int64/int64/int32) and bool)");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail("keeps its data in an external file, which nabla does not read yet");
  std::vector<int64_t> dims;
  int64_t numel = 1, bound = 1;  // bound: the product with zeros counted as ones (strides)
  if (t.dims_size() > 64) fail("has " + std::to_string(t.dims_size()) + " dims (at most 64)");
  for (int64_t d : t.dims()) {
    if (d < 0 || bound > (int64_t{1} << 40) / std::max<int64_t>(d, 1))
      fail("has an impossible shape");
    dims.push_back(d);
    numel *= d;
    bound *= std::max<int64_t>(d, 1);
  }
  size_t size = elementSize(dtype);  // bytes per value in the file
  bool widened = false;
  for (const auto& [onnx_type, wide, bytes] : kWidened)
    if (onnx_type == type) size = bytes, widened = true;
  const auto n = static_cast<size_t>(numel);
  // The data's size checked before allocating: a shape alone proves nothing.
  const int values = dtype == kFloat    ? t.float_data_size()
                     : dtype == kDouble ? t.double_data_size()
                     : dtype == kLong   ? (widened ? t.uint64_data_size() : t.int64_data_size())
                                        : t.int32_data_size();
  if (t.has_raw_data() && t.raw_data().size() != n * size)
    fail("holds " + std::to_string(t.raw_data().size()) + " bytes, its shape needs " +
         std::to_string(n * size));
  if (!t.has_raw_data() && static_cast<size_t>(values) != n)
    fail("holds " + std::to_string(values) + " values, its shape needs " + std::to_string(n));
  Tensor out = empty(dims, TensorOptions(dtype));
  if (t.has_raw_data()) {
    const char* raw = t.raw_data().data();
    if (!widened)
      std::memcpy(out.data_ptr(), raw, n * size);  // little-endian, as ONNX's
    else if (dtype == kInt)
      widen(raw, size, numel, out.data_ptr<int32_t>(), what);
    else
      widen(raw, size, numel, out.data_ptr<int64_t>(), what);
    return out;
  }
  // Typed fields (writers other than torch's), each value converted to the dtype.
  auto fill = [&](const auto& field, auto* dst) {
    if (static_cast<size_t>(field.size()) != n)
      fail("holds " + std::to_string(field.size()) + " values, its shape needs " +
           std::to_string(n));
    using T = std::remove_pointer_t<decltype(dst)>;
    for (size_t i = 0; i < n; ++i) {
      const auto v = field[static_cast<int>(i)];
      if constexpr (std::is_same_v<std::remove_cv_t<decltype(v)>, uint64_t>)
        NABLA_CHECK(v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), what,
                    " holds ", v, ", beyond nabla's widest signed integer");
      dst[i] = static_cast<T>(v);
    }
  };
  if (dtype == kFloat) {
    fill(t.float_data(), out.data_ptr<float>());
  } else if (dtype == kDouble) {
    fill(t.double_data(), out.data_ptr<double>());
  } else if (dtype == kLong) {
    if (widened)
      fill(t.uint64_data(), out.data_ptr<int64_t>());  // uint32, uint64
    else
      fill(t.int64_data(), out.data_ptr<int64_t>());
  } else if (dtype == kInt) {
    fill(t.int32_data(), out.data_ptr<int32_t>());  // int32, uint16
  } else {
    // int16, int8, uint8, bool, and float16/bfloat16 as their 16 bits: in int32_data
    std::vector<int32_t> values(n);
    fill(t.int32_data(), values.data());
    auto* dst = static_cast<char*>(out.data_ptr());
    for (size_t i = 0; i < n; ++i) std::memcpy(dst + i * size, &values[i], size);  // low bytes
  }
  return out;
}

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

Tensor Importer::example(const Node& n, int i) {
  if (is_constant(n, i)) return constant(n, i);
  for (const auto& [name, shape] : unknown_shape_)
    fail(n, "it needs the shape of the input '" + name + "', which the file gives as " + shape +
                " (-1: any size): pass the input shapes to load_onnx");
  shapes_used_ = true;  // the graph now depends on the example inputs' shapes
  NoGradGuard no_grad;
  return g_.forward(input(n, i));
}

std::vector<int64_t> Importer::shape_of(const Node& n, int i) {
  return example(n, i).sizes().vec();
}

// The rank does not change with the inputs' sizes: reading it leaves the inputs free.
// -1 when an input's shape is unknown (a dynamic size the caller gave no shape for).
int64_t Importer::rank_of(const Node& n, int i) {
  if (!is_constant(n, i) && !unknown_shape_.empty()) return -1;
  const bool used = shapes_used_;
  const int64_t rank = example(n, i).dim();
  shapes_used_ = used;
  return rank;
}

// The node's inputs that are given, in order, for a function node that reads them by
// position: the ones the operator cannot do without must be there.
std::vector<Value> Importer::present_inputs(const Node& n) {
  static const std::unordered_map<std::string, int> required = {
      {"GatherND", 2},        {"ScatterND", 3},  {"OneHot", 3},    {"Compress", 2},
      {"ReverseSequence", 2}, {"GridSample", 2}, {"MaxUnpool", 2}, {"STFT", 2},
      {"MelWeightMatrix", 5}};
  const auto it = required.find(n.op_type());
  for (int i = 0; i < (it == required.end() ? 1 : it->second); ++i)
    if (!has_input(n, i)) fail(n, "input " + std::to_string(i) + " is missing");
  std::vector<Value> in;
  for (int i = 0; i < n.input_size(); ++i)
    if (has_input(n, i)) in.push_back(input(n, i));
  return in;
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

Graph Importer::run() {
  // Nodes take the file's names; one the importer's own nodes took first gets a suffix.
  detail::GraphAccess::of(g_).rename_taken = true;
  for (const auto& t : onnx_.initializer()) {
    constants_[t.name()] = tensor_of(t, "initializer '" + t.name() + "'");
    initializers_.insert(t.name());
  }
  // Note [Allocation limits]: what import computes is bounded (the initializers, which
  // the file holds, were read above).
  std::optional<nabla::detail::AllocationLimit> limit;
  if (known_.empty())
    limit.emplace(size_t{1} << 30,
                  "load_onnx: '" + path_ + "': a value computed at import would take over 1 GiB");
  std::vector<Value> inputs;
  for (const auto& in : onnx_.input()) {
    if (constants_.count(in.name())) continue;  // an initializer listed as an input too
    if (values_.count(in.name())) fail("the input '" + in.name() + "' is listed twice");
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
    for (const auto& o : n.output())
      if (!o.empty() && (values_.count(o) || constants_.count(o)))
        fail(n, "its output '" + o + "' is defined before (an ONNX graph defines a name once)");
    const auto first_new = static_cast<uint32_t>(detail::GraphAccess::of(g_).nodes.size());
    try {
      map(n);
    } catch (const SettingsAtRunTime&) {
      // Importing it again with every input known cannot need another round.
      if (!known_.empty()) fail(n, "a setting is unknown even with every input's value");
      settings_at_run_time(n);
    } catch (const Error& e) {  // an op's or the graph's error: named after the node
      const std::string_view msg = e.what();
      if (msg.substr(0, 11) == "load_onnx: ") throw;
      fail(n, std::string(msg));
    }
    if (known_.empty()) record_function_nodes(n, first_new);
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
  detail::GraphAccess::of(g_).rename_taken = false;  // the caller's names: unique again
  return std::move(g_);
}

}  // namespace onnx_import

using onnx_import::Importer;

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
  try {
    return Importer(model.graph(), path, input_shapes, version).run();
  } catch (const Error& e) {  // an error of a lower layer, named after the file
    const std::string_view msg = e.what();
    if (msg.substr(0, 11) == "load_onnx: ") throw;
    NABLA_CHECK(false, "load_onnx: '", path, "': ", msg);
  }
}

Tensor load_onnx_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.is_open(), "load_onnx_tensor: cannot open '", path, "'");
  onnx::TensorProto proto;
  NABLA_CHECK(proto.ParseFromIstream(&in), "load_onnx_tensor: '", path,
              "' is not a serialized ONNX TensorProto (its protobuf does not parse)");
  try {
    return onnx_import::tensor_from_proto(proto, "load_onnx_tensor: '" + path + "':");
  } catch (const Error& e) {  // an error of a lower layer, named after the file
    const std::string_view msg = e.what();
    if (msg.substr(0, 18) == "load_onnx_tensor: ") throw;
    NABLA_CHECK(false, "load_onnx_tensor: '", path, "': ", msg);
  }
}

#endif

}  // namespace nabla::graph
