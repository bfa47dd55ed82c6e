#pragma once
// softmax, log_softmax and the activations not in functions.h (hardtanh, relu6, ...),
// with at:: signatures and defaults: the functions from their schema rows
// (nabla/ops/schema/activation.def), the in-place forms below.
//
// Each op that has a node of its own in LibTorch records that node (HardtanhBackward0,
// EluBackward0 for selu, CeluBackward0, MishBackward0, ThresholdBackward0, GluBackward0,
// PreluBackward0, ...) with LibTorch's derivative, written with differentiable ops so
// higher derivatives follow; softsign and tanhshrink are composites, as in LibTorch.
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/activation.def"
#undef NABLA_OP

// The in-place forms (`name_`, src/ops/nn/activation.cpp) write into `self` and return
// it, as at::name_.
const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
const Tensor& relu6_(const Tensor& self);
const Tensor& relu_(const Tensor& self);
const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope = 0.01);
const Tensor& elu_(const Tensor& self, const Scalar& alpha = 1.0);
const Tensor& hardsigmoid_(const Tensor& self);
const Tensor& hardswish_(const Tensor& self);
const Tensor& selu_(const Tensor& self);
const Tensor& celu_(const Tensor& self, const Scalar& alpha = 1.0);
const Tensor& silu_(const Tensor& self);
const Tensor& threshold_(const Tensor& self, const Scalar& threshold, const Scalar& value);
const Tensor& rrelu_(const Tensor& self, const Scalar& lower = 1.0 / 8.0,
                     const Scalar& upper = 1.0 / 3.0, bool training = false);

}  // namespace nabla
