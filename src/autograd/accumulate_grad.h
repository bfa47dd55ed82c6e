#pragma once
// AccumulateGrad: the node at a leaf that requires grad. It adds each incoming gradient
// into the leaf's .grad() (docs/autograd.md): assigns when .grad() is undefined, adds in place
// otherwise, and builds a graph instead when create_graph is on.
#include <mutex>

#include "nabla/autograd/node.h"

namespace nabla::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
  std::mutex mutex_;  // concurrent backward calls reach one leaf from several threads
};

/// The leaf's AccumulateGrad node, created once and cached weakly in its meta.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

/// Adds `grad` into `leaf.grad()` with AccumulateGrad's rules.
void accumulate_grad(const Tensor& leaf, const Tensor& grad);

/// Clears `leaf.grad()` for the next accumulation: undefined with set_to_none, else
/// detached from any graph and zeroed in place; an undefined grad stays so. What
/// Module::zero_grad and Optimizer::zero_grad do to each parameter.
void zero_grad(const Tensor& leaf, bool set_to_none);

}  // namespace nabla::autograd
