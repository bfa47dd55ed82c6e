#pragma once
// The static graph (docs/graph.md, docs/graph.md): a graph built once, whose
// forward recomputes only the nodes whose inputs changed since their last computation,
// and whose backward runs in topological order without recursion. Nodes are ops of the
// op table called by name (ops::call), so values and gradients are those of the dynamic
// engine: no second set of kernels or derivatives.
//
//   graph::Graph g;
//   graph::Value x = g.input("x"), w = g.parameter("w", torch::randn({3, 2}));
//   graph::Value y = graph::matmul(x, w).sum();
//   g.set_value(x, torch::randn({4, 3}));
//   g.forward(y);                 // computes matmul and sum
//   g.forward(y);                 // computes nothing: g.last_forward_computed() == 0
//   g.backward(y);                // w.grad() and w's tensor .grad() hold dy/dw
//
// A Graph is used from one thread at a time.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/ops/loss.h"  // the schema rows' defaults (Reduction)
#include "nabla/ops/registry.h"
#include "nabla/ops/schema.h"

namespace nabla::graph {

namespace detail {
struct GraphState;
struct GraphAccess;
}  // namespace detail

/// One output of one node of a Graph: a cheap handle, valid while its graph lives.
/// Using a handle whose node was removed is a nabla::Error.
class Value {
 public:
  Value() = default;
  /// The node's name, unique in its graph (given, or the op's name and a number).
  const std::string& name() const;
  /// The op the node computes ("matmul"), empty for an input, parameter or constant.
  const std::string& op() const;
  /// The values the node computes from, in order (none for a leaf).
  std::vector<Value> inputs() const;
  /// Bumped each time the node's value changes: a leaf by set_value or an in-place
  /// change of its tensor (an optimizer step), an op node each time it is recomputed.
  /// 0 while it has no value.
  uint64_t value_version() const;
  /// The value computed by the last forward that evaluated the node (undefined before).
  Tensor value() const;
  /// The gradient accumulated by backward calls since zero_grad (undefined when none
  /// reached it). For a parameter, its tensor's .grad().
  Tensor grad() const;
  /// Output `index` of the same node (split, max with dim, ...): checked at forward.
  Value output(int64_t index) const;
  /// The record stored on the node under `key` by Graph::set_record ("" when none).
  std::string record(std::string_view key) const;
  int64_t output_index() const { return output_; }
  bool defined() const { return state_ != nullptr; }
  bool operator==(const Value& other) const = default;

  // Methods that add a node to the value's graph, as Tensor's methods do.
  Value sum() const;
  Value sum(int64_t dim, bool keepdim = false) const;
  Value mean() const;
  Value relu() const;
  Value tanh() const;
  Value sigmoid() const;
  Value exp() const;
  Value log() const;
  Value view(std::vector<int64_t> size) const;
  Value pow(double exponent) const;

 private:
  friend class Graph;
  friend struct detail::GraphState;
  Value(detail::GraphState* state, uint32_t node, uint32_t output)
      : state_(state), node_(node), output_(output) {}
  detail::GraphState* state_ = nullptr;
  uint32_t node_ = 0;
  uint32_t output_ = 0;
};

/// The computation of a node made by Graph::custom: its inputs' values to its outputs.
using CustomFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// A leaf whose value is set from outside (set_value). With requires_grad, backward
  /// computes its gradient (as for a tensor that requires grad).
  Value input(std::string name = "", bool requires_grad = false);
  /// A leaf that requires grad, holding `value` itself (not a copy): in-place changes
  /// of the tensor (an optimizer's step) are seen by the next forward, and backward
  /// accumulates into the tensor's .grad(), so an optimizer over the tensor trains the graph.
  Value parameter(std::string name, Tensor value);
  /// A leaf without gradient. An undefined `value` stands for an absent optional input of
  /// the ops that read theirs by position (ops::call passes it on undefined).
  Value constant(Tensor value, std::string name = "");
  /// A node computing op `op` of the op table (ops::call) on `inputs`, with attributes
  /// by name as ops::call takes them. The op name, the number of inputs and the
  /// attributes are checked here; shapes and dtypes at forward.
  Value call(std::string_view op, std::vector<Value> inputs, ops::Attributes attrs = {},
             std::string name = "");
  /// A node computing `fn` of its inputs' values, shown as `op` (to_dot, Value::op()).
  /// fn must be a pure function of them (the dirty check recomputes a node only when its
  /// inputs change) and is run like an op: in grad mode on inputs that require grad, so
  /// the differentiable ops it calls give backward its gradients. Any number of outputs,
  /// checked when used. Model import makes such nodes for operators whose settings are
  /// tensors read when the graph runs (an ONNX Reshape's shape input).
  Value custom(std::string op, CustomFn fn, std::vector<Value> inputs, std::string name = "");

  /// Stores `record` on `node` under `key` (replacing an earlier one): what a writer needs
  /// for a node it cannot read from the node itself. Model import records on each node it
  /// makes with custom() the ONNX operator it came from, which graph::save_onnx writes back.
  void set_record(Value node, std::string key, std::string record);

  /// Sets a leaf's value and bumps its value_version. An input whose shape is fixed
  /// (fix_shape) takes only a value of that shape.
  void set_value(Value leaf, Tensor value);
  /// Fixes the shape of an input: set_value refuses a value of another shape with a
  /// nabla::Error naming the input and both shapes. Model import fixes the inputs whose
  /// shapes it computed sizes from (docs/import.md), so that a graph built for one shape
  /// is never run silently on another.
  void fix_shape(Value input, std::vector<int64_t> shape);
  /// Marks whether backward computes the leaf's gradient; dependent nodes are recomputed.
  void set_requires_grad(Value leaf, bool requires_grad);

  /// The value of `v`, recomputing only the nodes whose inputs changed (Note [Dirty
  /// check], src/graph/forward.cpp). A cycle is a nabla::Error naming its nodes in order.
  Tensor forward(Value v);
  /// Several values in one evaluation (a node shared by them is computed once).
  std::vector<Tensor> forward(const std::vector<Value>& values);
  /// The graph as a function: its outputs() computed from `inputs` (in inputs() order) by
  /// eager ops, as code calling them would, so autograd records through them onto the
  /// tensors given; nothing is cached and no node's value changes. Model import runs an
  /// operator whose settings are only known when the graph runs this way.
  std::vector<Tensor> apply(const std::vector<Tensor>& inputs) const;
  /// How many op nodes the last forward call computed (cached ones not counted).
  int64_t last_forward_computed() const;

  /// Gradients of `loss` (a scalar, or with `grad_output` its gradient), accumulated
  /// into every node on a path from `loss` to a leaf that requires grad, or, given
  /// `targets`, to those targets only. Topological order, no recursion (Note [Graph
  /// backward], src/graph/backward.cpp). `loss` must hold the value of a forward made
  /// since its inputs last changed; nodes no forward evaluated get nothing.
  void backward(Value loss, const std::vector<Value>& targets = {}, Tensor grad_output = {});
  /// Clears every node's gradient. Parameters' tensors' .grad() become undefined, or with
  /// `set_to_none` false are zeroed in place (as Optimizer::zero_grad() in LibTorch 1.13),
  /// which lets the next backward add products straight into them (docs/autograd.md).
  void zero_grad(bool set_to_none = true);
  /// Backward stops at `v`: it receives its gradient but passes none to its inputs.
  void set_detached(Value v, bool detached = true);

  /// Replaces input `index` of op node `node` by `other`; `node` is recomputed next time.
  void set_input(Value node, int64_t index, Value other);
  /// Removes a node that no other node uses.
  void remove(Value node);

  /// The leaves made by input(), in order of creation.
  std::vector<Value> inputs() const;
  /// The leaves made by parameter(), in order of creation.
  std::vector<Value> parameters() const;
  /// The graph's results, as set_outputs set them (empty by default).
  const std::vector<Value>& outputs() const;
  void set_outputs(std::vector<Value> outputs);
  /// The node named `name` (a nabla::Error when there is none).
  Value find(std::string_view name) const;
  /// How many nodes the graph holds.
  int64_t size() const;

  /// Graphviz text: one box per node with its op and value_version, edges along the data.
  std::string to_dot() const;

 private:
  friend struct detail::GraphAccess;
  std::unique_ptr<detail::GraphState> state_;
};

/// Records the ops `fn` runs on `example_inputs` into a new graph (docs/graph.md,
/// "Tracing"; Note [Tracing], src/graph/trace.cpp). Its inputs() are the examples, in
/// order, set to their values; its outputs() are fn's results. Each tensor that requires
/// grad the traced code reads from outside (a module's parameters) becomes a parameter
/// sharing its storage, so an optimizer over the module trains the graph; other outside
/// tensors become constants. An op that cannot be traced yet, or an in-place change of a
/// traced tensor, is a nabla::Error naming it.
Graph trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
            const std::vector<Tensor>& example_inputs);
/// The same for a callable returning one tensor.
template <class F>
requires std::is_convertible_v < std::invoke_result_t < F&, const std::vector<Tensor>
& >, Tensor > Graph trace(F&& fn, const std::vector<Tensor>& example_inputs) {
  return trace([&fn](const std::vector<Tensor>& in) { return std::vector<Tensor>{Tensor(fn(in))}; },
               example_inputs);
}

// Operators and functions on values, each one node (the same op by name as ops::call).
Value operator+(const Value& a, const Value& b);
Value operator-(const Value& a, const Value& b);
Value operator*(const Value& a, const Value& b);
Value operator/(const Value& a, const Value& b);
Value operator-(const Value& a);
Value relu(const Value& x);
Value tanh(const Value& x);
Value sigmoid(const Value& x);
Value cross_entropy(const Value& input, const Value& target);

// The ops declared by schema rows (nabla/ops/schema.h), each with its C++ arguments and
// defaults: graph::conv2d(x, w, b, /*stride=*/2), graph::max_pool2d(x, {2, 2}), ...
#define NABLA_OP NABLA_OP_GRAPH_DECLARE
#define NABLA_METHOD_OP NABLA_OP_GRAPH_DECLARE
#include "nabla/ops/schema/all.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP

}  // namespace nabla::graph
