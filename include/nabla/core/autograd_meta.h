#pragma once
// AutogradMeta: the autograd state of one tensor (SPEC.md §3.2): whether it requires a
// gradient and the gradient accumulated so far. The engine's graph pointers (grad_fn,
// output_nr, hooks, retains_grad) join it with the autograd layer.
#include "nabla/core/tensor.h"

namespace nabla::autograd {

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;
};

}  // namespace nabla::autograd
