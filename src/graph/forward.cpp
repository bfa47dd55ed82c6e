// Forward evaluation of a static graph.
//
// Note [Dirty check]
// Every node keeps its value, a value_version bumped each time that value
// changes, and (op nodes) the value_versions of its input nodes when it was last
// computed. A forward request walks from the requested nodes to their ancestors, depth
// first with an explicit stack (no recursion: a 100,000-node chain is fine), and decides
// on the way back, each node after all its inputs:
//   - a leaf is current unless its tensor changed in place since it was set (an optimizer
//     step: the tensor's version counter moved), which bumps its value_version;
//   - an op node is clean when every input node's value_version equals the one it
//     recorded; clean nodes serve their cached value, dirty ones are computed again by
//     ops::call and bump their own value_version, which makes their users dirty in turn.
// set_input clears the recorded versions, so an edited node is dirty. A node found again
// while it is still on the stack closes a cycle, reported with the nodes in data order.
//
// Gradients (Note [Graph backward], backward.cpp) need each node's local autograd graph:
// a node whose inputs require grad is computed, in grad mode, from detached copies of its
// inputs that require grad, kept in grad_inputs.
#include <algorithm>
#include <utility>

#include "graph/graph_state.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/error.h"

namespace nabla::graph::detail {

namespace {

enum Mark : uint8_t { kUnseen = 0, kOnStack = 1, kDone = 2 };

struct Frame {
  uint32_t node;
  uint32_t next_input;
};

[[noreturn]] void throw_cycle(const GraphState& g, const std::vector<Frame>& stack,
                              uint32_t closing) {
  // The stack runs against the data: each frame's node is an input of the one before.
  std::vector<uint32_t> cycle;
  auto it =
      std::find_if(stack.begin(), stack.end(), [&](const Frame& f) { return f.node == closing; });
  for (auto f = stack.end(); f != it;) cycle.push_back((--f)->node);
  // Start at the oldest node, so the message does not depend on where forward began.
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::string path;
  for (uint32_t id : cycle) path += "'" + g.nodes[id].name + "' -> ";
  path += "'" + g.nodes[cycle[0]].name + "'";
  throw Error(str("graph.forward: the graph has a cycle: ", path,
                  " (each node is an input of the next; set_input made it)"));
}

// Brings a leaf's value_version up to date with in-place changes of its tensor.
void refresh_leaf(Node& n) {
  if (n.values.empty()) {
    NABLA_CHECK(n.kind != NodeKind::Input, "graph.forward: input '", n.name,
                "' has no value; give it one with set_value");
    return;
  }
  if (!n.values[0].defined()) return;  // an absent optional input (Graph::constant)
  const uint32_t version = n.values[0]._version();
  if (version != n.tensor_version) {
    n.tensor_version = version;
    ++n.value_version;
  }
}

// Whether op node `n` must be computed again (its inputs are all evaluated).
bool is_dirty(const GraphState& g, const Node& n) {
  if (n.values.empty() || n.input_versions.size() != n.inputs.size()) return true;
  bool inputs_require_grad = false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Node& in = g.nodes[n.inputs[i].node];
    if (in.value_version != n.input_versions[i]) return true;
    inputs_require_grad |= in.requires_grad;
  }
  // Computed without recording (under NoGradGuard) but now needed with gradients.
  return inputs_require_grad && GradMode::is_enabled() && n.grad_inputs.empty();
}

void compute(GraphState& g, Node& n) {
  const bool grad_mode = GradMode::is_enabled();
  std::vector<Tensor> args(n.inputs.size());
  std::vector<Tensor> grad_inputs;
  bool requires_grad = false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Ref r = n.inputs[i];
    const Node& in = g.nodes[r.node];
    NABLA_CHECK(r.output < in.values.size(), "graph.forward: node '", n.name, "' (", n.op,
                ") takes output ", r.output, " of '", in.name, "', which has ", in.values.size(),
                " output(s)");
    const Tensor& t = in.values[r.output];
    requires_grad |= in.requires_grad;
    if (grad_mode && in.requires_grad && t.defined() && (t.is_floating_point() || t.is_complex())) {
      if (grad_inputs.empty()) grad_inputs.resize(n.inputs.size());
      args[i] = t.detach();  // a leaf of this node's own autograd record
      args[i].set_requires_grad(true);
      grad_inputs[i] = args[i];
    } else {
      // Detached only where it would link this node's record to another graph; without
      // grad mode nothing is recorded.
      args[i] = grad_mode && t.defined() && t.requires_grad() ? t.detach() : t;
    }
  }
  std::vector<Tensor> values;
  try {
    AutoGradMode mode(!grad_inputs.empty());
    values = n.fn ? n.fn(args) : ops::call(n.op, args, n.attrs);
  } catch (const Error& e) {
    throw Error(str("graph.forward: node '", n.name, "' (", n.op, "): ", e.what()));
  }
  n.values = std::move(values);
  n.grad_inputs = std::move(grad_inputs);
  n.requires_grad = requires_grad;
  n.input_versions.resize(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i)
    n.input_versions[i] = g.nodes[n.inputs[i].node].value_version;
  ++n.value_version;
  ++g.last_computed;
}

}  // namespace

std::vector<Tensor> GraphState::forward(const std::vector<Value>& targets) {
  last_computed = 0;
  const uint64_t call = ++forward_calls;
  std::vector<uint8_t> mark(nodes.size(), kUnseen);
  std::vector<Frame> stack;
  for (const Value& target : targets) {
    node(target, "graph.forward");
    const uint32_t root = id(target);
    if (mark[root] == kDone) continue;
    mark[root] = kOnStack;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Frame& top = stack.back();
      Node& n = nodes[top.node];
      if (top.next_input < n.inputs.size()) {
        const uint32_t in = n.inputs[top.next_input++].node;
        if (mark[in] == kOnStack) throw_cycle(*this, stack, in);
        if (mark[in] == kUnseen) {
          mark[in] = kOnStack;
          stack.push_back({in, 0});  // `top` is not used after this
        }
        continue;
      }
      if (n.kind == NodeKind::Op) {
        if (is_dirty(*this, n)) compute(*this, n);
      } else {
        refresh_leaf(n);
      }
      n.evaluated_in = call;
      mark[top.node] = kDone;
      stack.pop_back();
    }
  }
  std::vector<Tensor> out;
  out.reserve(targets.size());
  for (const Value& target : targets) {
    const Node& n = nodes[id(target)];
    NABLA_CHECK(output(target) < n.values.size(), "graph.forward: node '", n.name, "' (", n.op,
                ") has ", n.values.size(), " output(s), asked for output ", output(target));
    out.push_back(n.values[output(target)]);
  }
  return out;
}

}  // namespace nabla::graph::detail
