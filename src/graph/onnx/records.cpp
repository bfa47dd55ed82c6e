// Note [ONNX records]
// A function node the importer makes (Importer::function_node, Graph::custom) computes a
// C++ function that save_onnx cannot write. So each one records the ONNX operator it
// computes (Graph::set_record, key "onnx"): a GraphProto holding that operator with its
// inputs renamed "#k" (the function node's input k) and its outputs "@k" (the node's
// output k); an input the importer read as a constant is an initializer of the record, an
// output another node computes is renamed apart. save_onnx splices the record in
// (Exporter::splice_record), so an imported model is written with the operators it was
// read with. A function node whose inputs cannot be told apart this way gets no record,
// and save_onnx names it.
#include "graph/onnx/exporter.h"
#include "graph/onnx/importer.h"
#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

// c followed by s (GCC 12 warns, wrongly, of overlapping copies in "$" + s here).
std::string prefixed(char c, const std::string& s) {
  std::string out(1, c);
  out += s;
  return out;
}

onnx::NodeProto& add_node(onnx::GraphProto& sub, const std::string& op,
                          const std::vector<std::string>& in, const std::vector<std::string>& out) {
  onnx::NodeProto& n = *sub.add_node();
  n.set_op_type(op);
  for (const auto& i : in) n.add_input(i);
  for (const auto& o : out) n.add_output(o);
  return n;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void drop_attr(onnx::NodeProto& n, const char* name) {
  auto* attrs = n.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
}

// `node` (its names the record's) as operators that mean at opset 13 and later what it
// meant at `opset`, added to `sub`; returns the opset the record needs (Note [ONNX
// records]). `rank` is the first input's (-1: unknown).
int64_t modernize(onnx::GraphProto& sub, onnx::NodeProto node, int64_t opset, int64_t rank) {
  const std::string op = node.op_type();
  const std::string x = node.input_size() > 0 ? node.input(0) : "";
  auto constant = [&](const Tensor& t, const std::string& name) {
    *sub.add_initializer() = onnx_export::tensor_proto(t, name);
    return name;
  };
  if (op == "Scatter") {  // renamed ScatterElements at opset 11
    node.set_op_type("ScatterElements");
    *sub.add_node() = std::move(node);
    return std::max<int64_t>(opset, 13);
  }
  if (op == "Upsample") {  // Resize, asymmetric, rounding down
    std::string scales = node.input_size() > 1 ? node.input(1) : "";
    if (const auto* s = find_attr(node, "scales")) {
      std::vector<float> v(s->floats().begin(), s->floats().end());
      scales = constant(tensor(v, TensorOptions(kFloat)), "$scales");
    }
    const auto* m = find_attr(node, "mode");
    const std::string mode = m && m->s() != "nearest" ? "linear" : "nearest";
    auto& r = add_node(sub, "Resize", {x, "", scales}, {node.output(0)});
    auto set = [&](const char* name, const std::string& v) {
      auto* a = r.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(v);
    };
    set("mode", mode);
    set("coordinate_transformation_mode", "asymmetric");
    set("nearest_mode", "floor");
    return std::max<int64_t>(opset, 13);
  }
  if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && opset < 13) {
    // before 13: over every dim from `axis` (default 1), as rows of a matrix
    const auto* a = find_attr(node, "axis");
    auto& flat = add_node(sub, "Flatten", {x}, {"$flat"});
    auto* axis = flat.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(a ? a->i() : 1);
    drop_attr(node, "axis");
    const std::string out = node.output(0);
    node.set_input(0, "$flat");
    node.set_output(0, "$rows");
    *sub.add_node() = std::move(node);
    add_node(sub, "Shape", {x}, {"$shape"});
    add_node(sub, "Reshape", {"$rows", "$shape"}, {out});
    return 13;
  }
  if (op == "PRelu" && opset < 7 && rank >= 2) {  // a slope per channel: [C, 1, ...]
    std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 1);
    shape[0] = -1;
    const std::string s = constant(tensor(shape, TensorOptions(kLong)), "$slope_shape");
    add_node(sub, "Reshape", {node.input(1), s}, {"$slope"});
    node.set_input(1, "$slope");
    *sub.add_node() = std::move(node);
    return 13;
  }
  if (op == "Pad" && opset < 11) {  // pads and value become inputs
    const auto* p = find_attr(node, "pads");
    const auto* v = find_attr(node, "value");
    std::vector<int64_t> pads =
        p ? std::vector<int64_t>(p->ints().begin(), p->ints().end()) : std::vector<int64_t>{};
    node.add_input(constant(tensor(pads, TensorOptions(kLong)), "$pads"));
    if (v && v->f() != 0.0f)
      node.add_input(constant(scalar_tensor(v->f(), TensorOptions(kFloat)), "$value"));
    drop_attr(node, "pads");
    drop_attr(node, "value");
    *sub.add_node() = std::move(node);
    return 13;
  }
  if (op == "BitShift") {  // on uint64 (nabla widens wider unsigned types to signed ones)
    const std::string out = node.output(0);
    for (int i = 0; i < 2; ++i) {
      auto& c = add_node(sub, "Cast", {node.input(i)}, {"$u" + std::to_string(i)});
      auto* to = c.add_attribute();
      to->set_name("to");
      to->set_type(onnx::AttributeProto::INT);
      to->set_i(onnx::TensorProto::UINT64);
      node.set_input(i, "$u" + std::to_string(i));
    }
    node.set_output(0, "$shifted");
    *sub.add_node() = std::move(node);
    add_node(sub, "CastLike", {"$shifted", x}, {out});
    return std::max<int64_t>(opset, 15);
  }
  *sub.add_node() = std::move(node);
  return opset;
}

}  // namespace

void Importer::record_function_nodes(const Node& n, uint32_t first_new) {
  const auto& nodes = detail::GraphAccess::of(g_).nodes;
  for (uint32_t id = first_new; id < nodes.size(); ++id) {
    const detail::Node& c = nodes[id];
    if (!c.fn || c.removed || !c.records.empty()) continue;
    onnx::GraphProto sub;
    onnx::NodeProto node = n;
    Value handle;
    for (int j = 0; j < node.output_size(); ++j) {
      if (node.output(j).empty()) continue;
      auto it = values_.find(node.output(j));
      const bool ours = it != values_.end() && detail::GraphState::id(it->second) == id;
      if (ours) handle = it->second;
      node.set_output(j, ours
                             ? prefixed('@', std::to_string(detail::GraphState::output(it->second)))
                             : prefixed('$', node.output(j)));
    }
    if (!handle.defined()) continue;  // its result went through other nodes first
    bool mapped = true;
    for (int i = 0; i < node.input_size() && mapped; ++i) {
      const std::string& name = n.input(i);
      if (name.empty()) continue;
      int k = -1;
      if (auto v = values_.find(name); v != values_.end())
        for (size_t r = 0; r < c.inputs.size(); ++r)
          if (c.inputs[r].node == detail::GraphState::id(v->second) &&
              c.inputs[r].output == detail::GraphState::output(v->second))
            k = static_cast<int>(r);
      if (k >= 0) {
        node.set_input(i, prefixed('#', std::to_string(k)));
      } else if (auto t = constants_.find(name); t != constants_.end()) {
        node.set_input(i, prefixed('$', name));
        *sub.add_initializer() = onnx_export::tensor_proto(t->second, prefixed('$', name));
      } else {
        mapped = false;
      }
    }
    if (!mapped) continue;
    const int64_t rank = n.op_type() == "PRelu" ? rank_of(n, 0) : -1;  // its only reader
    // the opset the record's operators are read at
    sub.set_name("opset " + std::to_string(modernize(sub, std::move(node), opset_, rank)));
    g_.set_record(handle, "onnx", sub.SerializeAsString());
  }
}

}  // namespace nabla::graph::onnx_import

#endif
