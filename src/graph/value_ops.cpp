// Operators and functions on graph::Value: each adds one node calling an op by name.
#include "graph/graph_state.h"
#include "nabla/core/error.h"

namespace nabla::graph {

namespace {

// A node of `op` in the graph of the first input; the others must belong to it.
Value add_node(const char* op, const std::vector<Value>& inputs, ops::Attributes attrs = {}) {
  return detail::GraphState::of(inputs.at(0), op)->add_op(op, inputs, std::move(attrs), "");
}

}  // namespace

namespace detail {

// A node of a schema row's op (NABLA_OP_GRAPH_DEFINE): its inputs as the call gives them,
// an absent optional input before a given one held as a constant without a value (as a
// traced call holds it).
Value add_schema_node(const char* op, const ops::OpArgs<Value>& args) {
  std::vector<Value> inputs = args.inputs();
  NABLA_CHECK(!inputs.empty() && inputs[0].defined(), "graph::", op,
              ": the first input must be a value of a graph");
  NABLA_CHECK(!args.refused(), "graph::", op, " ", args.refused() ? args.refused() : "");
  GraphState* g = GraphState::of(inputs[0], op);
  for (Value& v : inputs)
    if (!v.defined()) v = g->add_constant(Tensor(), "");
  return g->add_op(op, inputs, args.attrs(), "");
}

}  // namespace detail

Value Value::sum() const { return add_node("sum", {*this}); }
Value Value::sum(int64_t dim, bool keepdim) const {
  return add_node("sum", {*this}, {{"dim", std::vector<int64_t>{dim}}, {"keepdim", keepdim}});
}
Value Value::mean() const { return add_node("mean", {*this}); }
Value Value::relu() const { return add_node("relu", {*this}); }
Value Value::tanh() const { return add_node("tanh", {*this}); }
Value Value::sigmoid() const { return add_node("sigmoid", {*this}); }
Value Value::exp() const { return add_node("exp", {*this}); }
Value Value::log() const { return add_node("log", {*this}); }
Value Value::view(std::vector<int64_t> size) const {
  return add_node("view", {*this}, {{"size", std::move(size)}});
}
Value Value::pow(double exponent) const {
  return add_node("pow", {*this}, {{"exponent", exponent}});
}

Value operator+(const Value& a, const Value& b) { return add_node("add", {a, b}); }
Value operator-(const Value& a, const Value& b) { return add_node("sub", {a, b}); }
Value operator*(const Value& a, const Value& b) { return add_node("mul", {a, b}); }
Value operator/(const Value& a, const Value& b) { return add_node("div", {a, b}); }
Value operator-(const Value& a) { return add_node("neg", {a}); }
Value relu(const Value& x) { return x.relu(); }
Value tanh(const Value& x) { return x.tanh(); }
Value sigmoid(const Value& x) { return x.sigmoid(); }
Value cross_entropy(const Value& input, const Value& target) {
  return add_node("cross_entropy_loss", {input, target});
}

#define NABLA_OP NABLA_OP_GRAPH_DEFINE
#define NABLA_METHOD_OP NABLA_OP_GRAPH_DEFINE
#include "nabla/ops/schema/all.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP

}  // namespace nabla::graph
