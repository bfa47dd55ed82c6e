#pragma once
// The autograd API with LibTorch's signatures (docs/autograd.md).
#include <functional>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/node.h"
#include "nabla/core/optional.h"

namespace nabla::autograd {

/// Computes the gradients of `tensors` w.r.t. the graph leaves and accumulates them into
/// the leaves' .grad() (only into `inputs` when given). `grad_tensors` may be empty for
/// one-element outputs (an implicit 1). retain_graph defaults to create_graph.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              optional<bool> retain_graph = nullopt, bool create_graph = false,
              const variable_list& inputs = {});

/// Returns d(outputs)/d(inputs) without touching any .grad(). With allow_unused, an input
/// the outputs do not depend on gets an undefined tensor; without it, that is an error.
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {}, optional<bool> retain_graph = nullopt,
                   bool create_graph = false, bool allow_unused = false);

/// Registers `hook` to run each time backward has accumulated a gradient into the leaf
/// `leaf`'s .grad(); it receives the leaf (its .grad() is the accumulated gradient). What
/// DistributedDataParallel starts its all-reduces from (PyTorch's
/// register_post_accumulate_grad_hook). Returns a handle for removal. Requires a leaf that
/// requires grad.
unsigned register_post_accumulate_grad_hook(const Tensor& leaf,
                                            std::function<void(const Tensor&)> hook);
void remove_post_accumulate_grad_hook(const Tensor& leaf, unsigned handle);

/// Clears `leaf.grad()` for the next accumulation: undefined with set_to_none, else
/// detached from any graph and zeroed in place; an undefined grad stays so. What
/// Module::zero_grad and Optimizer::zero_grad do to each parameter.
void zero_grad(const Tensor& leaf, bool set_to_none);

/// Queues `callback` to run on this thread when the backward pass now running has run its
/// whole graph, before backward() returns (PyTorch's Engine::queue_callback). Callbacks
/// run in the order queued, and may queue more; an exception from one propagates out of
/// backward(). Called outside a backward pass: a nabla::Error.
void queue_callback(std::function<void()> callback);

/// Anomaly detection (docs/autograd.md): while enabled, each node records where its forward
/// op was created, and a NaN/Inf produced by a backward node raises a nabla::Error
/// naming that node and its creation site.
/// As LibTorch's, a failing backward node first warns (nabla::Warning) with the trace of
/// the forward call that created it, then of each node whose backward created it.
/// check_nan off keeps the traces but not the NaN check.
struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled, bool check_nan = true);
  static bool should_check_nan();
};

class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true)
      : prev_(AnomalyMode::is_enabled()), prev_check_nan_(AnomalyMode::should_check_nan()) {
    AnomalyMode::set_enabled(true, check_nan);
  }
  ~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_, prev_check_nan_); }
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_, prev_check_nan_;
};

/// The edge a gradient for `t` flows into: (grad_fn, output_nr) for a non-leaf, the
/// AccumulateGrad node for a leaf that requires grad, an invalid edge otherwise.
Edge gradient_edge(const Tensor& t);

// ---- Writing a Node by hand (LibTorch's torch/csrc/autograd/functions/utils.h) ----------
// Most code should use Function<T> (function.h); these serve programs that subclass Node:
//   if (compute_requires_grad(x)) {
//     auto fn = std::shared_ptr<MyBackward>(new MyBackward(), deleteNode);
//     fn->set_next_edges(collect_next_edges(x));
//     set_history(result, fn);
//   }

/// Grad mode is on and some argument requires grad.
template <class... Ts>
bool compute_requires_grad(const Ts&... tensors) {
  if (!GradMode::is_enabled()) return false;
  return ((tensors.defined() && tensors.requires_grad()) || ...);
}
/// One edge per argument (gradient_edge), in order.
template <class... Ts>
edge_list collect_next_edges(const Ts&... tensors) {
  edge_list edges;
  (edges.push_back(tensors.defined() ? gradient_edge(tensors) : Edge()), ...);
  return edges;
}
template <class... Ts>
variable_list flatten_tensor_args(const Ts&... tensors) {
  return variable_list{tensors...};
}
/// Makes each tensor the next output of `fn` (its grad_fn and output_nr).
void set_history(const Tensor& output, const std::shared_ptr<Node>& fn);
void set_history(const variable_list& outputs, const std::shared_ptr<Node>& fn);
/// The deleter for hand-made nodes (shared_ptr<MyNode>(new MyNode(), deleteNode)).
void deleteNode(Node* function);

}  // namespace nabla::autograd
