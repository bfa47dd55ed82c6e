// Backward through a static graph.
//
// Note [Graph backward]
// The executor, not the nodes, schedules:
//   1. From the loss it walks its ancestors (explicit stack, no recursion), not past a
//      detached node (a detached node gets its gradient and passes none on).
//   2. A node takes part when it leads to a target: a node listed in `targets`, or,
//      without targets, a leaf or detached node that requires grad. Every node on the way must hold
//      the value its inputs give now (it is "current": evaluated by a forward since they last
//      changed); nodes no forward reached are never on the way.
//   3. In reverse topological order each node, holding the sum of its users'
//      contributions, adds it to its accumulated gradient (kept across calls until
//      zero_grad) and hands its inputs their contributions. Those come from the node's
//      own local autograd graph, recorded at forward from detached inputs (Note [Dirty
//      check]), through autograd::grad: nabla's backward formulas, not a second set.
// A parameter's gradient is accumulated into its tensor's .grad(), so optimizers see it;
// products add their part there directly when they can (autograd::detail::grad_into_sinks).
#include <utility>

#include "graph/graph_state.h"
#include "nabla/autograd/autograd.h"
#include "nabla/autograd/grad_sink.h"
#include "nabla/core/error.h"
#include "nabla/ops/factories.h"

namespace nabla::graph::detail {

namespace {

// Ancestors of `root` in topological order (inputs before users), not crossing detached
// nodes. Each node once.
std::vector<uint32_t> ancestors(const GraphState& g, uint32_t root) {
  std::vector<uint8_t> seen(g.nodes.size(), 0);
  std::vector<uint32_t> order;
  std::vector<std::pair<uint32_t, uint32_t>> stack{{root, 0}};  // node, next input
  seen[root] = 1;
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Node& n = g.nodes[id];
    if (!n.detached && next < n.inputs.size()) {
      const uint32_t in = n.inputs[next++].node;
      if (!seen[in]) {
        seen[in] = 1;
        stack.push_back({in, 0});
      }
      continue;
    }
    order.push_back(id);
    stack.pop_back();
  }
  return order;
}

// Why node `n` does not hold the value its inputs give now, or "" when it does. Its
// inputs come earlier in the topological order and are checked first.
std::string staleness(const GraphState& g, const Node& n) {
  if (n.values.empty()) return "has no value: no forward has evaluated it";
  if (n.kind != NodeKind::Op) {
    if (n.values[0].defined() && n.values[0]._version() != n.tensor_version)
      return "was changed in place after the last forward that read it";
    return "";
  }
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.input_versions.size() != n.inputs.size() ||
        g.nodes[n.inputs[i].node].value_version != n.input_versions[i])
      return "has inputs that changed after the last forward that computed it";
  return "";
}

void accumulate(Tensor& into, const Tensor& g) { into = into.defined() ? into + g : g; }

}  // namespace

void GraphState::backward(const Value& loss, const std::vector<Value>& targets,
                          Tensor grad_output) {
  const Node& loss_node = node(loss, "graph.backward");
  const uint32_t root = id(loss);
  std::vector<uint8_t> is_target(nodes.size(), 0);
  for (const Value& t : targets) {
    const Node& n = node(t, "graph.backward");
    NABLA_CHECK(n.requires_grad, "graph.backward: target '", n.name,
                "' does not require grad (an input needs graph.input(name, true) or "
                "set_requires_grad; an op node needs an input that requires grad)");
    is_target[id(t)] = 1;
  }
  const std::vector<uint32_t> order = ancestors(*this, root);

  // Which nodes lead to a target, and a check that all of them are current.
  std::vector<uint8_t> needed(nodes.size(), 0);
  for (uint32_t id : order) {
    const Node& n = nodes[id];
    // Without targets: leaves that require grad, and detached nodes (they act as leaves).
    bool need = targets.empty() ? ((n.kind != NodeKind::Op || n.detached) && n.requires_grad)
                                : is_target[id] != 0;
    if (!n.detached)
      for (const Ref& r : n.inputs) need |= needed[r.node] != 0;
    needed[id] = need;
    std::string why = staleness(*this, n);
    if (why.empty() && need && n.kind == NodeKind::Op && !n.detached && n.requires_grad &&
        n.grad_inputs.empty())
      why = "was computed without recording gradients (under NoGradGuard)";
    NABLA_CHECK(why.empty(), "graph.backward: node '", n.name, "' ", why, "; call forward(",
                loss_node.name, ") before backward");
  }
  NABLA_CHECK(output(loss) < loss_node.values.size(), "graph.backward: node '", loss_node.name,
              "' has ", loss_node.values.size(), " output(s), asked for output ", output(loss));
  const Tensor& loss_value = loss_node.values[output(loss)];
  if (!grad_output.defined()) {
    NABLA_CHECK(loss_value.numel() == 1, "graph.backward: '", loss_node.name, "' has ",
                loss_value.numel(),
                " elements; a gradient is implied only for one element (pass grad_output)");
    grad_output = ones_like(loss_value);
  } else {
    NABLA_CHECK(grad_output.sizes() == loss_value.sizes(), "graph.backward: grad_output has shape ",
                grad_output.sizes(), ", expected the shape of '", loss_node.name, "', ",
                loss_value.sizes());
  }
  if (!needed[root]) return;  // nothing that requires grad leads to the loss

  // Contributions received in this call, per node and output.
  std::vector<std::vector<Tensor>> pending(nodes.size());
  pending[root].resize(loss_node.values.size());
  pending[root][output(loss)] = grad_output;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node& n = nodes[*it];
    std::vector<Tensor>& incoming = pending[*it];
    if (incoming.empty()) continue;
    // Its own accumulated gradient.
    if (n.kind == NodeKind::Parameter) {
      Tensor& g = n.values[0].mutable_grad();
      if (incoming[0].defined()) {
        if (g.defined())
          g.add_(incoming[0]);
        else
          g = incoming[0].clone();
      }
    } else {
      n.grads.resize(n.values.size());
      for (size_t k = 0; k < incoming.size(); ++k)
        if (incoming[k].defined()) accumulate(n.grads[k], incoming[k]);
    }
    if (n.kind != NodeKind::Op || n.detached || n.grad_inputs.empty()) {
      incoming.clear();
      continue;
    }
    // Its inputs' contributions through its local autograd graph.
    std::vector<Tensor> outs, seeds, wrt;
    std::vector<size_t> wrt_index;
    for (size_t k = 0; k < incoming.size(); ++k)
      if (incoming[k].defined() && n.values[k].requires_grad()) {
        outs.push_back(n.values[k]);
        seeds.push_back(incoming[k]);
      }
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (n.grad_inputs[i].defined() && needed[n.inputs[i].node]) {
        wrt.push_back(n.grad_inputs[i]);
        wrt_index.push_back(i);
      }
    incoming.clear();
    if (outs.empty() || wrt.empty()) continue;
    // A parameter's contribution may go straight into its .grad (Note [Gradient sinks],
    // src/autograd/engine.cpp; the engine and the formulas check that they can write it):
    // a weight's product then adds itself there, as in eager mode.
    std::vector<Tensor> sinks(wrt.size());
    for (size_t j = 0; j < wrt.size(); ++j) {
      Node& in = nodes[n.inputs[wrt_index[j]].node];
      if (in.kind == NodeKind::Parameter) sinks[j] = in.values[0].mutable_grad();
    }
    std::vector<Tensor> grads;
    try {
      grads = autograd::detail::grad_into_sinks(outs, wrt, seeds, sinks);
    } catch (const Error& e) {
      throw Error(str("graph.backward: node '", n.name, "' (", n.op, "): ", e.what()));
    }
    for (size_t j = 0; j < wrt.size(); ++j) {
      if (!grads[j].defined()) continue;
      const Ref r = n.inputs[wrt_index[j]];
      std::vector<Tensor>& to = pending[r.node];
      if (to.size() <= r.output) to.resize(r.output + 1);
      accumulate(to[r.output], grads[j]);
    }
  }
}

}  // namespace nabla::graph::detail
