#pragma once
// Pieces the loss files share (loss/regression.cpp, loss/classification.cpp).
#include <algorithm>

#include "nabla/autograd/record.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/loss.h"
#include "ops/op_utils.h"

namespace nabla::ops {

/// The loss reduced as `reduction` asks (a nabla::Error naming `op` for another value).
inline Tensor reduce_loss(const Tensor& loss, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None:
      return loss;
    case Reduction::Mean:
      return loss.mean();
    case Reduction::Sum:
      return loss.sum();
  }
  NABLA_CHECK(false, op, ": reduction must be Reduction::None, Mean or Sum (0, 1, 2), got ",
              reduction);
  return {};
}

/// The output gradient of a loss reduced as `reduction` over `elements` values, as the
/// factor of each value's derivative: grad / elements (Mean), grad (Sum or None).
inline Tensor unreduced_grad(const Tensor& grad, int64_t elements, int64_t reduction) {
  return reduction == Reduction::Mean ? grad / static_cast<double>(std::max<int64_t>(elements, 1))
                                      : grad;
}

inline void check_same_shape(const char* op, const Tensor& input, const Tensor& target) {
  NABLA_CHECK(input.sizes() == target.sizes(), op, ": target size ", target.sizes(),
              " must be the same as input size ", input.sizes());
}

/// As LibTorch: an argument the op has no derivative for may not require grad (refused at
/// the call rather than silently getting no gradient).
inline void check_no_requires_grad(const Tensor& t, const char* name, const char* op) {
  NABLA_CHECK(!autograd::any_requires_grad(t), "The function '", op,
              "' is not differentiable with respect to argument '", name,
              "'. This input cannot have requires_grad True.");
}

}  // namespace nabla::ops
