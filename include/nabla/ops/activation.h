#pragma once
// softmax, log_softmax and the activations not in the unary list (hardtanh, gelu, ...),
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

// relu's in-place function (relu is a unary row; src/ops/nn/activation.cpp); the rows'
// in-place forms (hardtanh_, leaky_relu_, elu_, silu_, ...) follow from their rows. Each
// writes into `self` and returns it, as at::name_.
const Tensor& relu_(const Tensor& self);

}  // namespace nabla
