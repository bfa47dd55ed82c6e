#pragma once
// AccumulateGrad: the node at a leaf that requires grad. It adds each incoming gradient
// into the leaf's .grad() (docs/autograd.md): assigns when .grad() is undefined, adds in place
// otherwise, and builds a graph instead when create_graph is on.
#include <functional>
#include <mutex>

#include "nabla/autograd/node.h"

namespace nabla::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& variable() const { return variable_; }
  /// Calls add(leaf.grad()) under this node's lock when the leaf has no tensor or
  /// post-accumulate hooks and its .grad is defined, contiguous, on the leaf's device and
  /// without history (Note [Gradient sinks], engine.cpp); returns add's result, else false.
  bool add_in_place(const std::function<bool(const Tensor& grad)>& add);
  /// Whether `grad` can take this leaf's gradient in place: the leaf has no tensor or
  /// post-accumulate hooks, and `grad` is defined, contiguous, on the leaf's device and
  /// without history. add_in_place's test, also applied to the tensors given to
  /// grad_into_sinks (Note [Gradient sinks]).
  bool can_add_into(const Tensor& grad) const;

 private:
  Tensor variable_;
  std::mutex mutex_;  // concurrent backward calls reach one leaf from several threads
};

/// The leaf's AccumulateGrad node, created once and cached weakly in its meta.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

/// Adds `grad` into `leaf.grad()` with AccumulateGrad's rules.
void accumulate_grad(const Tensor& leaf, const Tensor& grad);

}  // namespace nabla::autograd
