// graph::save_onnx (nabla/graph/import.h): Note [ONNX export], src/graph/onnx/exporter.h.
#include <cstring>

#include "graph/onnx/exporter.h"
#include "graph/onnx/importer.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/detail/atomic_file.h"
#include "nabla/ops/factories.h"

namespace nabla::graph {

#if !NABLA_HAVE_ONNX

void save_onnx(const Graph&, const std::string& path, int64_t) {
  NABLA_CHECK(false, "save_onnx: '", path,
              "': this nabla was built without ONNX support (install Debian's libonnx-dev and "
              "libprotobuf-dev, then rebuild)");
}

#else

namespace onnx_export {

using detail::Node;
using detail::NodeKind;

onnx::TensorProto tensor_proto(const Tensor& t, const std::string& name) {
  onnx::TensorProto p;
  p.set_name(name);
  const int32_t type = onnx_import::onnx_type_of(t.scalar_type());
  NABLA_CHECK(type != onnx::TensorProto::UNDEFINED, "save_onnx: '", name, "' has dtype ",
              t.scalar_type(), ", which ONNX has no type for");
  p.set_data_type(type);
  for (int64_t d : t.sizes()) p.add_dims(d);
  const Tensor c = t.to(kCPU).contiguous();
  p.set_raw_data(static_cast<const char*>(c.data_ptr()), c.nbytes());  // little-endian
  return p;
}

void set_int(onnx::NodeProto& n, const char* name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_float(onnx::NodeProto& n, const char* name, double v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}

void set_ints(onnx::NodeProto& n, const char* name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_string(onnx::NodeProto& n, const char* name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

namespace {

void set_type(onnx::ValueInfoProto& v, const Tensor& t) {
  auto* type = v.mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx_import::onnx_type_of(t.scalar_type()));
  auto* shape = type->mutable_shape();
  for (int64_t d : t.sizes()) shape->add_dim()->set_dim_value(d);
}

}  // namespace

// ---- OpWriter

OpWriter::OpWriter(Exporter& e, const Node& node, std::vector<Tensor> in, std::vector<Tensor> out,
                   std::vector<std::string> in_names, std::vector<std::string> out_names)
    : e_(e),
      node_(node),
      attrs_(node.op, ops::schema(node.op).attrs, node.attrs),
      in_(std::move(in)),
      out_(std::move(out)),
      in_names_(std::move(in_names)),
      out_names_(std::move(out_names)) {}

std::string OpWriter::in(size_t i, optional<ScalarType> dtype) {
  const std::string& name = in_names_.at(i);
  if (!dtype || name.empty() || in_[i].scalar_type() == *dtype) return name;
  return cast(name, in_[i].scalar_type(), *dtype);
}

std::string OpWriter::emit(const std::string& op_type, const std::vector<std::string>& ins,
                           std::vector<std::string> outs,
                           const std::function<void(onnx::NodeProto&)>& set_attrs) {
  if (outs.empty()) outs.push_back(e_.fresh(node_.name + "/" + op_type));
  onnx::NodeProto* n = e_.graph().add_node();
  n->set_op_type(op_type);
  n->set_name(e_.fresh(node_.name + "/" + op_type + "#node"));
  for (const auto& i : ins) n->add_input(i);
  for (const auto& o : outs) n->add_output(o);
  if (set_attrs) set_attrs(*n);
  return outs[0];
}

std::string OpWriter::constant(const Tensor& t) {
  return e_.constant_node(t, e_.fresh(node_.name + "/const"));
}

std::string OpWriter::initializer(const Tensor& t, const std::string& hint) {
  const std::string name = e_.fresh(node_.name + "." + hint);
  *e_.graph().add_initializer() = tensor_proto(t, name);
  return name;
}

std::string OpWriter::ints(const std::vector<int64_t>& v) {
  return constant(tensor(v, TensorOptions(kLong)).view({static_cast<int64_t>(v.size())}));
}

std::string OpWriter::scalar(double v, ScalarType dtype) {
  return constant(scalar_tensor(v, TensorOptions(kDouble)).to(dtype));
}

std::vector<int64_t> OpWriter::reduced_dims(const char* name) const {
  std::vector<int64_t> dims;
  if (attrs_.has(name)) dims = attrs_.ints(name);
  const int64_t rank = in_value(0).dim();
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  for (auto& d : dims) d = d < 0 ? d + rank : d;
  return dims;
}

std::string OpWriter::reduce(const std::string& op_type, const std::string& x,
                             const std::vector<int64_t>& dims, bool keep, const std::string& out) {
  std::vector<std::string> outs;
  if (!out.empty()) outs.push_back(out);
  if (op_type == "ReduceSum")
    return emit(op_type, {x, ints(dims)}, outs,
                [&](onnx::NodeProto& n) { set_int(n, "keepdims", keep); });
  return emit(op_type, {x}, outs, [&](onnx::NodeProto& n) {
    set_ints(n, "axes", dims);
    set_int(n, "keepdims", keep);
  });
}

void OpWriter::reduce_loss(const std::string& values) {
  const int64_t r = attrs_.i("reduction");
  if (r == 0) return (void)emit("Identity", {values}, {out()});
  emit(r == 1 ? "ReduceMean" : "ReduceSum", {values}, {out()},
       [](onnx::NodeProto& n) { set_int(n, "keepdims", 0); });
}

std::string OpWriter::cast(const std::string& name, ScalarType from, ScalarType to) {
  if (from == to) return name;
  return emit("Cast", {name}, {},
              [&](onnx::NodeProto& n) { set_int(n, "to", onnx_import::onnx_type_of(to)); });
}

void OpWriter::fail(const std::string& why) const { e_.fail(node_, why); }

int64_t OpWriter::opset() const { return e_.opset(); }

std::string OpWriter::fresh(const std::string& hint) { return e_.fresh(node_.name + "/" + hint); }

// ---- Exporter

Exporter::Exporter(const Graph& g, int64_t opset, std::string path)
    : g_(detail::GraphAccess::of(g)), opset_(opset), path_(std::move(path)) {}

void Exporter::fail(const Node& n, const std::string& why) const {
  NABLA_CHECK(false, "save_onnx: '", path_, "': node '", n.name, "' (",
              n.op.empty() ? detail::kind_name(n.kind) : n.op, "): ", why);
}

std::string Exporter::fresh(const std::string& hint) {
  int& k = next_[hint];
  std::string name = k == 0 ? hint : hint + "_" + std::to_string(k);
  while (!taken_.insert(name).second) name = hint + "_" + std::to_string(++k);
  ++k;
  return name;
}

// A Constant node holding `t`, its output named `name` (Note [ONNX export]: only
// parameters are initializers, which load_onnx makes trainable).
std::string Exporter::constant_node(const Tensor& t, const std::string& name) {
  onnx::NodeProto* n = graph().add_node();
  n->set_op_type("Constant");
  n->set_name(fresh(name + "#node"));
  n->add_output(name);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = tensor_proto(t.detach(), name);
  return name;
}

// Depth-first from the outputs, without recursion: a node after every node it reads.
std::vector<uint32_t> Exporter::order() const {
  std::vector<uint32_t> out;
  std::vector<uint8_t> state(g_.nodes.size(), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::pair<uint32_t, size_t> > stack;
  for (const Value& v : g_.outputs) {
    stack.emplace_back(detail::GraphState::id(v), 0);
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const Node& n = g_.nodes[id];
      if (next == 0 && state[id] == 2) {
        stack.pop_back();
        continue;
      }
      state[id] = 1;
      if (next < n.inputs.size()) {
        const uint32_t in = n.inputs[next++].node;
        NABLA_CHECK(state[in] != 1, "save_onnx: '", path_, "': the graph has a cycle through '",
                    n.name, "'");
        if (state[in] == 0) stack.emplace_back(in, 0);
        continue;
      }
      state[id] = 2;
      out.push_back(id);
      stack.pop_back();
    }
  }
  return out;
}

const std::string& Exporter::name_of(const detail::Ref& r) const {
  return names_.at(r.node).at(r.output);
}

void Exporter::write_leaf(uint32_t id) {
  const Node& n = g_.nodes[id];
  const Tensor v = n.values.empty() ? Tensor() : n.values[0];
  if (n.kind == NodeKind::Input && !v.defined())
    fail(n, "the input has no value: set one (the file declares its dtype and shape)");
  if (n.kind == NodeKind::Constant && !v.defined()) {  // an absent optional input
    values_[id] = {Tensor()};
    names_[id] = {""};
    return;
  }
  const std::string name = fresh(n.name);
  values_[id] = {v};
  names_[id] = {name};
  if (n.kind == NodeKind::Input) {
    auto* in = graph().add_input();
    in->set_name(name);
    set_type(*in, v);
    return;
  }
  if (n.kind == NodeKind::Parameter)
    *graph().add_initializer() = tensor_proto(v.detach(), name);
  else
    constant_node(v, name);
}

void Exporter::write_op(uint32_t id) {
  const Node& n = g_.nodes[id];
  std::vector<Tensor> in;
  std::vector<std::string> in_names;
  for (const detail::Ref& r : n.inputs) {
    in.push_back(values_.at(r.node).at(r.output));
    in_names.push_back(name_of(r));
  }
  std::vector<Tensor> out;
  try {
    out = n.fn ? n.fn(in) : ops::call(n.op, in, n.attrs);
  } catch (const Error& e) {
    fail(n, std::string("it does not run on the inputs' values: ") + e.what());
  }
  std::vector<std::string> out_names;
  for (size_t k = 0; k < out.size(); ++k)
    out_names.push_back(fresh(k == 0 ? n.name : n.name + ":" + std::to_string(k)));
  values_[id] = out;
  names_[id] = out_names;
  if (n.fn) {
    for (const auto& [key, record] : n.records)
      if (key == "onnx") return splice_record(id, record);
    fail(n, "it computes a C++ function (Graph::custom) with no ONNX operator recorded");
  }
  const auto& table = op_exports();
  auto it = table.find(n.op);
  if (it == table.end()) fail(n, "save_onnx does not write this op yet");
  OpWriter w(*this, n, std::move(in), std::move(out), std::move(in_names), std::move(out_names));
  it->second(w);
}

// Note [ONNX records]: the recorded operators, "#k" the node's input k, "@k" its output k,
// every other name made unique.
void Exporter::splice_record(uint32_t id, const std::string& record) {
  const Node& n = g_.nodes[id];
  onnx::GraphProto sub;
  if (!sub.ParseFromString(record) || sub.node_size() == 0)
    fail(n, "its ONNX record does not parse");
  // The operators whose meaning changed at an opset up to 17: one imported from an older
  // opset is not what the written opset calls by its name.
  static const std::unordered_map<std::string, int64_t> changed = {{"PRelu", 7},
                                                                   {"Upsample", 10},
                                                                   {"Slice", 10},
                                                                   {"TopK", 10},
                                                                   {"Pad", 11},
                                                                   {"Clip", 11},
                                                                   {"Resize", 11},
                                                                   {"Scatter", 11},
                                                                   {"Dropout", 12},
                                                                   {"Split", 13},
                                                                   {"Squeeze", 13},
                                                                   {"Unsqueeze", 13},
                                                                   {"Softmax", 13},
                                                                   {"LogSoftmax", 13},
                                                                   {"Hardmax", 13},
                                                                   {"ReduceSum", 13},
                                                                   {"BatchNormalization", 14}};
  const int64_t from = sub.name().rfind("opset ", 0) == 0 ? std::stoll(sub.name().substr(6)) : 0;
  if (from > opset_)
    fail(n, "its operators (" + sub.node(0).op_type() + ", ...) need opset " +
                std::to_string(from) + ", more than the " + std::to_string(opset_) + " asked for");
  for (const auto& node : sub.node())
    if (auto c = changed.find(node.op_type()); c != changed.end() && from < c->second)
      fail(n, "it was imported from opset " + std::to_string(from) + ", where " + node.op_type() +
                  " means what it no longer does at opset " + std::to_string(c->second) +
                  "; nabla writes it only as read at a later opset");
  std::unordered_map<std::string, std::string> rename;
  auto renamed = [&](const std::string& s) -> std::string {
    if (s.empty()) return s;
    if (s[0] == '#') return name_of(n.inputs.at(std::stoul(s.substr(1))));
    if (s[0] == '@') return names_.at(id).at(std::stoul(s.substr(1)));
    auto [it, fresh_name] = rename.emplace(s, "");
    if (fresh_name) it->second = fresh(n.name + "/" + s);
    return it->second;
  };
  for (const auto& t : sub.initializer())  // constants at import: constants again
    constant_node(onnx_import::tensor_from_proto(t, "save_onnx: a record's"), renamed(t.name()));
  for (auto node : sub.node()) {
    for (auto& i : *node.mutable_input()) i = renamed(i);
    for (auto& o : *node.mutable_output()) o = renamed(o);
    node.set_name(fresh(n.name + "/" + node.op_type()));
    *graph().add_node() = std::move(node);
  }
}

onnx::ModelProto Exporter::run() {
  NABLA_CHECK(opset_ >= 13 && opset_ <= 17, "save_onnx: '", path_, "': opset ", opset_,
              " (nabla writes opsets 13-17)");
  NABLA_CHECK(!g_.outputs.empty(), "save_onnx: '", path_,
              "': the graph has no outputs (Graph::set_outputs)");
  model_.set_ir_version(8);
  model_.set_producer_name("nabla");
  auto* opset = model_.add_opset_import();
  opset->set_domain("");
  opset->set_version(opset_);
  graph().set_name("nabla");
  NoGradGuard no_grad;
  // Every input, in order, even one no output needs: the file's inputs are the graph's.
  for (uint32_t id = 0; id < g_.nodes.size(); ++id)
    if (g_.nodes[id].kind == NodeKind::Input && !g_.nodes[id].removed) write_leaf(id);
  for (uint32_t id : order()) {
    const Node& n = g_.nodes[id];
    if (n.kind == NodeKind::Op)
      write_op(id);
    else if (n.kind != NodeKind::Input)
      write_leaf(id);
  }
  // ONNX's outputs are named values that nodes produce: a leaf or a repeated output goes
  // through an Identity.
  std::unordered_map<std::string, int> used;
  for (const Value& v : g_.outputs) {
    const uint32_t id = detail::GraphState::id(v), k = detail::GraphState::output(v);
    const Node& n = g_.nodes[id];
    if (k >= names_.at(id).size()) fail(n, "an output asks for output " + std::to_string(k));
    std::string name = names_.at(id)[k];
    if (n.kind != NodeKind::Op || used[name]++) {
      const std::string copy = fresh(name + "/out");
      auto* node = graph().add_node();
      node->set_op_type("Identity");
      node->add_input(name);
      node->add_output(copy);
      name = copy;
    }
    auto* out = graph().add_output();
    out->set_name(name);
    set_type(*out, values_.at(id)[k]);
  }
  return std::move(model_);
}

}  // namespace onnx_export

void save_onnx(const Graph& graph, const std::string& path, int64_t opset) {
  onnx_export::Exporter e(graph, opset, path);
  const onnx::ModelProto model = e.run();
  std::string bytes;
  NABLA_CHECK(model.SerializeToString(&bytes), "save_onnx: '", path,
              "': the model does not serialize (over protobuf's 2 GiB limit?)");
  nabla::detail::write_file_atomically(path, bytes, "save_onnx");
}

#endif

}  // namespace nabla::graph
