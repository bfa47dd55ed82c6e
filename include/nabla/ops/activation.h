#pragma once
// softmax, log_softmax and the activations not in functions.h (hardtanh, relu6, ...),
// with at:: signatures and defaults: the functions from their schema rows
// (nabla/ops/schema/activation.def) with their `_out` and in-place forms.
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

// The in-place forms of the activations of functions.h (src/ops/nn/activation.cpp); the
// rows' in-place forms (hardtanh_, relu6_, celu_, ...) follow from their rows. Each
// writes into `self` and returns it, as at::name_.
const Tensor& relu_(const Tensor& self);
const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope = 0.01);
const Tensor& elu_(const Tensor& self, const Scalar& alpha = 1.0);
const Tensor& silu_(const Tensor& self);

}  // namespace nabla
