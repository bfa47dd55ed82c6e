// Building and editing a static graph (include/nabla/graph/graph.h).
#include "nabla/graph/graph.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "graph/graph_state.h"
#include "nabla/core/error.h"

namespace nabla::graph {

namespace detail {

const char* kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::Input:
      return "input";
    case NodeKind::Parameter:
      return "parameter";
    case NodeKind::Constant:
      return "constant";
    case NodeKind::Op:
      break;
  }
  return "op";
}

GraphState* GraphState::of(const Value& v, const char* what) {
  NABLA_CHECK(v.state_ != nullptr, what, ": got an undefined graph::Value");
  return v.state_;
}

Node& GraphState::node(const Value& v, const char* what) {
  NABLA_CHECK(v.state_ == this, what, ": the value '", of(v, what)->nodes[v.node_].name,
              "' belongs to another graph");
  Node& n = nodes[v.node_];
  NABLA_CHECK(!n.removed, what, ": node '", n.name, "' was removed from the graph");
  return n;
}

const Node& GraphState::node(const Value& v, const char* what) const {
  return const_cast<GraphState*>(this)->node(v, what);
}

uint32_t GraphState::add(Node n, std::string name) {
  if (!name.empty() && rename_taken && by_name.count(name)) {
    const std::string stem = name;
    for (int64_t k = 1; by_name.count(name); ++k) name = stem + "_" + std::to_string(k);
  }
  if (name.empty()) {
    const std::string stem = n.kind == NodeKind::Op ? n.op : kind_name(n.kind);
    do {
      name = stem + "_" + std::to_string(name_counters[stem]++);
    } while (by_name.count(name));
  }
  NABLA_CHECK(!by_name.count(name), "graph: a node named '", name,
              "' already exists (names are unique in a graph)");
  const auto id = static_cast<uint32_t>(nodes.size());
  n.name = name;
  by_name.emplace(std::move(name), id);
  nodes.push_back(std::move(n));
  return id;
}

Value GraphState::add_op(std::string_view op, const std::vector<Value>& inputs,
                         ops::Attributes attrs, std::string name) {
  const ops::OpSchema& schema = ops::schema(op);  // an unknown op is an Error here
  const auto count = static_cast<int64_t>(inputs.size());
  NABLA_CHECK(count >= schema.min_inputs && (schema.max_inputs < 0 || count <= schema.max_inputs),
              "graph.call('", op, "'): got ", count, " inputs, expected ",
              schema.min_inputs == schema.max_inputs
                  ? std::to_string(schema.min_inputs)
                  : str(schema.min_inputs, " to ",
                        schema.max_inputs < 0 ? std::string("any number")
                                              : std::to_string(schema.max_inputs)));
  // The attributes' names and types are checked as ops::call will read them.
  (void)ops::AttrReader(schema.name, schema.attrs, attrs);
  Node n;
  n.op = schema.name;
  n.attrs = std::move(attrs);
  for (const Value& v : inputs) {
    node(v, "graph.call");
    n.inputs.push_back({id(v), output(v)});
  }
  return handle(add(std::move(n), std::move(name)));
}

Value GraphState::add_custom(std::string op, CustomFn fn, const std::vector<Value>& inputs,
                             std::string name) {
  NABLA_CHECK(fn, "graph.custom('", op, "'): the function is empty");
  NABLA_CHECK(!op.empty(), "graph.custom: the node needs an op name (shown by to_dot)");
  Node n;
  n.op = std::move(op);
  n.fn = std::move(fn);
  for (const Value& v : inputs) {
    node(v, "graph.custom");
    n.inputs.push_back({id(v), output(v)});
  }
  return handle(add(std::move(n), std::move(name)));
}

}  // namespace detail

using detail::GraphState;
using detail::Node;
using detail::NodeKind;

// --- Value ---

const std::string& Value::name() const {
  return GraphState::of(*this, "name")->node(*this, "name").name;
}

const std::string& Value::op() const { return GraphState::of(*this, "op")->node(*this, "op").op; }

std::vector<Value> Value::inputs() const {
  GraphState* g = GraphState::of(*this, "inputs");
  std::vector<Value> out;
  for (const detail::Ref& r : g->node(*this, "inputs").inputs)
    out.push_back(g->handle(r.node, r.output));
  return out;
}

uint64_t Value::value_version() const {
  return GraphState::of(*this, "value_version")->node(*this, "value_version").value_version;
}

Tensor Value::value() const {
  const Node& n = GraphState::of(*this, "value")->node(*this, "value");
  return output_ < n.values.size() ? n.values[output_] : Tensor();
}

Tensor Value::grad() const {
  const Node& n = GraphState::of(*this, "grad")->node(*this, "grad");
  if (n.kind == NodeKind::Parameter) return n.values[0].grad();
  return output_ < n.grads.size() ? n.grads[output_] : Tensor();
}

std::string Value::record(std::string_view key) const {
  for (const auto& [k, r] : GraphState::of(*this, "record")->node(*this, "record").records)
    if (k == key) return r;
  return "";
}

Value Value::output(int64_t index) const {
  GraphState* g = GraphState::of(*this, "output");
  const Node& n = g->node(*this, "output");
  NABLA_CHECK(index >= 0 && index < (int64_t(1) << 31), "output: index ", index, " of node '",
              n.name, "' must be non-negative");
  NABLA_CHECK(n.kind == NodeKind::Op || index == 0, "output: ", detail::kind_name(n.kind), " '",
              n.name, "' has one output, asked for output ", index);
  return Value(state_, node_, static_cast<uint32_t>(index));
}

// --- Graph ---

Graph::Graph() : state_(std::make_unique<GraphState>()) {}
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

Value Graph::input(std::string name, bool requires_grad) {
  Node n;
  n.kind = NodeKind::Input;
  n.requires_grad = requires_grad;
  return state_->handle(state_->add(std::move(n), std::move(name)));
}

Value Graph::parameter(std::string name, Tensor value) {
  NABLA_CHECK(value.defined(), "graph.parameter('", name, "'): got an undefined tensor");
  NABLA_CHECK(value.is_floating_point() || value.is_complex(), "graph.parameter('", name,
              "'): a parameter must be floating point to require grad, got ", value.scalar_type());
  if (!value.requires_grad()) value.set_requires_grad(true);
  Node n;
  n.kind = NodeKind::Parameter;
  n.requires_grad = true;
  n.tensor_version = value._version();
  n.values = {std::move(value)};
  n.value_version = 1;
  return state_->handle(state_->add(std::move(n), std::move(name)));
}

Value Graph::constant(Tensor value, std::string name) {
  return state_->add_constant(std::move(value), std::move(name));
}

Value GraphState::add_constant(Tensor value, std::string name) {
  Node n;
  n.kind = NodeKind::Constant;
  n.tensor_version = value.defined() ? value._version() : 0;
  n.values = {std::move(value)};
  n.value_version = 1;
  return handle(add(std::move(n), std::move(name)));
}

Value Graph::call(std::string_view op, std::vector<Value> inputs, ops::Attributes attrs,
                  std::string name) {
  return state_->add_op(op, inputs, std::move(attrs), std::move(name));
}

Value Graph::custom(std::string op, CustomFn fn, std::vector<Value> inputs, std::string name) {
  return state_->add_custom(std::move(op), std::move(fn), inputs, std::move(name));
}

void Graph::set_record(Value node, std::string key, std::string record) {
  Node& n = state_->node(node, "set_record");
  for (auto& [k, r] : n.records)
    if (k == key) {
      r = std::move(record);
      return;
    }
  n.records.emplace_back(std::move(key), std::move(record));
}

void Graph::set_value(Value leaf, Tensor value) {
  Node& n = state_->node(leaf, "set_value");
  NABLA_CHECK(n.kind != NodeKind::Op, "set_value: '", n.name, "' is an ", n.op,
              " node; only inputs, parameters and constants take a value");
  NABLA_CHECK(value.defined(), "set_value('", n.name, "'): got an undefined tensor");
  NABLA_CHECK(!n.shape_fixed || value.sizes() == IntArrayRef(n.fixed_shape), "set_value('", n.name,
              "'): got a tensor of shape ", value.sizes(), ", but the graph was built for ",
              IntArrayRef(n.fixed_shape), " (sizes computed from it are fixed in the graph)");
  if (n.kind == NodeKind::Parameter && !value.requires_grad()) value.set_requires_grad(true);
  n.tensor_version = value._version();
  n.values = {std::move(value)};
  ++n.value_version;
}

void Graph::fix_shape(Value input, std::vector<int64_t> shape) {
  Node& n = state_->node(input, "fix_shape");
  NABLA_CHECK(n.kind == NodeKind::Input, "fix_shape: '", n.name, "' is not an input");
  NABLA_CHECK(
      n.values.empty() || !n.values[0].defined() || n.values[0].sizes() == IntArrayRef(shape),
      "fix_shape('", n.name, "'): its value has the shape ", n.values[0].sizes(), ", not ",
      IntArrayRef(shape));
  n.shape_fixed = true;
  n.fixed_shape = std::move(shape);
}

void Graph::set_requires_grad(Value leaf, bool requires_grad) {
  Node& n = state_->node(leaf, "set_requires_grad");
  NABLA_CHECK(n.kind == NodeKind::Input, "set_requires_grad: '", n.name, "' is a ",
              n.kind == NodeKind::Op ? n.op.c_str() : detail::kind_name(n.kind),
              " node; only inputs made by graph.input() can change it");
  if (n.requires_grad == requires_grad) return;
  n.requires_grad = requires_grad;
  if (n.value_version > 0) ++n.value_version;  // dependents record their graph again
}

int64_t Graph::last_forward_computed() const { return state_->last_computed; }

Tensor Graph::forward(Value v) { return state_->forward({v})[0]; }

std::vector<Tensor> Graph::forward(const std::vector<Value>& values) {
  return state_->forward(values);
}

std::vector<Tensor> Graph::apply(const std::vector<Tensor>& inputs) const {
  const std::vector<Value> ins = this->inputs();
  NABLA_CHECK(inputs.size() == ins.size(), "graph.apply: got ", inputs.size(),
              " input(s), the graph has ", ins.size());
  std::unordered_map<uint32_t, std::vector<Tensor>> values;  // by node id; stable references
  for (size_t i = 0; i < ins.size(); ++i) values[detail::GraphState::id(ins[i])] = {inputs[i]};
  std::function<const std::vector<Tensor>&(uint32_t)> eval =
      [&](uint32_t id) -> const std::vector<Tensor>& {
    if (auto it = values.find(id); it != values.end()) return it->second;
    const detail::Node& n = state_->nodes[id];
    if (n.kind != detail::NodeKind::Op) return values[id] = n.values;  // parameters, constants
    std::vector<Tensor> args;
    for (const detail::Ref& r : n.inputs) {
      const std::vector<Tensor>& v = eval(r.node);
      NABLA_CHECK(r.output < v.size(), "graph.apply: node '", n.name, "' (", n.op,
                  ") takes output ", r.output, " of a node with ", v.size());
      args.push_back(v[r.output]);
    }
    try {
      return values[id] = n.fn ? n.fn(args) : ops::call(n.op, args, n.attrs);
    } catch (const Error& e) {
      throw Error(str("graph.apply: node '", n.name, "' (", n.op, "): ", e.what()));
    }
  };
  std::vector<Tensor> out;
  for (const Value& v : state_->outputs) {
    const std::vector<Tensor>& r = eval(detail::GraphState::id(v));
    const uint32_t k = detail::GraphState::output(v);
    NABLA_CHECK(k < r.size(), "graph.apply: an output asks for output ", k, " of a node with ",
                r.size());
    out.push_back(r[k]);
  }
  return out;
}

void Graph::backward(Value loss, const std::vector<Value>& targets, Tensor grad_output) {
  state_->backward(loss, targets, std::move(grad_output));
}

void Graph::zero_grad(bool set_to_none) {
  for (Node& n : state_->nodes) {
    n.grads.clear();
    if (n.kind != NodeKind::Parameter || n.removed) continue;
    Tensor& g = n.values[0].mutable_grad();
    if (set_to_none || !g.defined()) {
      g = Tensor();
    } else {
      g = g.detach();
      g.zero_();
    }
  }
}

void Graph::set_detached(Value v, bool detached) {
  state_->node(v, "set_detached").detached = detached;
}

void Graph::set_input(Value node, int64_t index, Value other) {
  Node& n = state_->node(node, "set_input");
  NABLA_CHECK(n.kind == NodeKind::Op, "set_input: '", n.name, "' is a ", detail::kind_name(n.kind),
              " node, which has no inputs");
  NABLA_CHECK(index >= 0 && index < static_cast<int64_t>(n.inputs.size()), "set_input: node '",
              n.name, "' (", n.op, ") has ", n.inputs.size(), " inputs, got index ", index);
  state_->node(other, "set_input");
  n.inputs[static_cast<size_t>(index)] = {GraphState::id(other), GraphState::output(other)};
  n.input_versions.clear();  // dirty: computed again at the next forward that reaches it
}

void Graph::remove(Value node) {
  Node& n = state_->node(node, "remove");
  const uint32_t id = GraphState::id(node);
  for (const Node& user : state_->nodes) {
    if (user.removed) continue;
    for (size_t i = 0; i < user.inputs.size(); ++i)
      NABLA_CHECK(user.inputs[i].node != id, "remove: node '", n.name, "' is input ", i,
                  " of node '", user.name, "'; replace it there first (set_input)");
  }
  for (const Value& out : state_->outputs)
    NABLA_CHECK(GraphState::id(out) != id, "remove: node '", n.name,
                "' is one of the graph's outputs (set_outputs)");
  state_->by_name.erase(n.name);
  n.removed = true;
  n.values.clear();
  n.grads.clear();
  n.grad_inputs.clear();
  n.inputs.clear();
}

std::vector<Value> Graph::inputs() const {
  std::vector<Value> out;
  for (uint32_t i = 0; i < state_->nodes.size(); ++i)
    if (!state_->nodes[i].removed && state_->nodes[i].kind == NodeKind::Input)
      out.push_back(state_->handle(i));
  return out;
}

std::vector<Value> Graph::parameters() const {
  std::vector<Value> out;
  for (uint32_t i = 0; i < state_->nodes.size(); ++i)
    if (!state_->nodes[i].removed && state_->nodes[i].kind == NodeKind::Parameter)
      out.push_back(state_->handle(i));
  return out;
}

const std::vector<Value>& Graph::outputs() const { return state_->outputs; }

void Graph::set_outputs(std::vector<Value> outputs) {
  for (const Value& v : outputs) state_->node(v, "set_outputs");
  state_->outputs = std::move(outputs);
}

Value Graph::find(std::string_view name) const {
  auto it = state_->by_name.find(std::string(name));
  NABLA_CHECK(it != state_->by_name.end(), "graph.find: no node named '", name, "'");
  return state_->handle(it->second);
}

int64_t Graph::size() const { return static_cast<int64_t>(state_->by_name.size()); }

}  // namespace nabla::graph
