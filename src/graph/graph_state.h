#pragma once
// The nodes of a static graph and the state behind graph::Graph (include/nabla/graph/graph.h).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/graph/graph.h"
#include "nabla/ops/registry.h"

namespace nabla::graph::detail {

enum class NodeKind : uint8_t { Input, Parameter, Constant, Op };
const char* kind_name(NodeKind kind);

/// One output of one node, as an op node's input.
struct Ref {
  uint32_t node = 0;
  uint32_t output = 0;
  bool operator==(const Ref&) const = default;
};

struct Node {
  NodeKind kind = NodeKind::Op;
  std::string name;
  bool removed = false;
  bool detached = false;
  bool requires_grad = false;  // leaves: as set; op nodes: any input's, at the last compute
  bool shape_fixed = false;    // inputs: set_value takes only `fixed_shape` (Graph::fix_shape)
  std::vector<int64_t> fixed_shape;

  // Op nodes: what to compute: op `op` of the op table with `attrs`, or, for a node made
  // by Graph::custom, `fn` (then `op` is only its name).
  std::string op;
  ops::Attributes attrs;
  CustomFn fn;
  std::vector<Ref> inputs;
  std::vector<std::pair<std::string, std::string>> records;  // Graph::set_record

  // Note [Dirty check]: the node's value, its version, and the versions of its inputs'
  // nodes when it was last computed (empty: never computed, or its inputs were edited).
  std::vector<Tensor> values;
  uint64_t value_version = 0;
  std::vector<uint64_t> input_versions;
  uint32_t tensor_version = 0;  // leaves: the tensor's _version() value_version reflects
  uint64_t evaluated_in = 0;    // the forward call that last evaluated (computed or served) it

  // Note [Graph backward]: the inputs as the last compute saw them, detached and
  // requiring grad where the input node requires grad (undefined elsewhere); `values`
  // then carry the autograd graph from them.
  std::vector<Tensor> grad_inputs;
  std::vector<Tensor> grads;  // per output, accumulated; parameters use their tensor's
};

struct GraphState {
  std::vector<Node> nodes;  // ids are positions; removed nodes keep their slot
  std::unordered_map<std::string, uint32_t> by_name;
  std::unordered_map<std::string, int64_t> name_counters;
  std::vector<Value> outputs;
  uint64_t forward_calls = 0;
  int64_t last_computed = 0;
  // Set while model import builds the graph: a name already taken (a file's value named
  // like a node the importer made, "reshape_0") gets a suffix instead of an error.
  bool rename_taken = false;

  /// The live node behind `v`, checked to belong to this graph.
  Node& node(const Value& v, const char* what);
  const Node& node(const Value& v, const char* what) const;
  uint32_t add(Node n, std::string name);
  /// A constant leaf holding `value` (Graph::constant; undefined: an absent optional input).
  Value add_constant(Tensor value, std::string name);
  /// An op node, its op name, arity and attributes checked (Graph::call).
  Value add_op(std::string_view op, const std::vector<Value>& inputs, ops::Attributes attrs,
               std::string name);
  /// A node computing `fn` (Graph::custom).
  Value add_custom(std::string op, CustomFn fn, const std::vector<Value>& inputs, std::string name);
  Value handle(uint32_t id, uint32_t output = 0) { return Value(this, id, output); }
  static GraphState* of(const Value& v, const char* what);
  static uint32_t id(const Value& v) { return v.node_; }
  static uint32_t output(const Value& v) { return v.output_; }

  /// Evaluates `targets` (forward.cpp).
  std::vector<Tensor> forward(const std::vector<Value>& targets);
  /// Backward from `loss` (backward.cpp).
  void backward(const Value& loss, const std::vector<Value>& targets, Tensor grad_output);
};

/// A Graph's state, for the writers of the graph layer (graph::save_onnx).
struct GraphAccess {
  static const GraphState& of(const Graph& g) { return *g.state_; }
  static GraphState& of(Graph& g) { return *g.state_; }
};

}  // namespace nabla::graph::detail
