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

#include <fstream>

#include "graph/import_shapes.h"
#include "nabla/autograd/grad_mode.h"
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

// A TensorProto's data as a tensor; errors begin with `what` ("load_onnx: 'f.onnx':
// initializer 'w'").
Tensor tensor_from_proto(const onnx::TensorProto& t, const std::string& what) {
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
  return Importer(model.graph(), path, input_shapes, version).run();
}

Tensor load_onnx_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.is_open(), "load_onnx_tensor: cannot open '", path, "'");
  onnx::TensorProto proto;
  NABLA_CHECK(proto.ParseFromIstream(&in), "load_onnx_tensor: '", path,
              "' is not a serialized ONNX TensorProto (its protobuf does not parse)");
  return onnx_import::tensor_from_proto(proto, "load_onnx_tensor: '" + path + "':");
}

#endif

}  // namespace nabla::graph
