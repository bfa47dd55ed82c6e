#pragma once
// dropout, feature_dropout, alpha_dropout, feature_alpha_dropout and their in-place
// forms (at:: signatures). Masks come from the default generator of the input's device,
// so results are reproducible from manual_seed; on the CPU they are LibTorch's masks for
// the same seed (Note [Random streams]). Outside training (or with p = 0) the input itself
// is returned, as in LibTorch.
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// dropout, feature_dropout, alpha_dropout and feature_alpha_dropout (rows and
// documentation: nabla/ops/schema/dropout.def); their in-place forms below.
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/dropout.def"
#undef NABLA_OP

const Tensor& dropout_(const Tensor& self, double p, bool train);
const Tensor& feature_dropout_(const Tensor& self, double p, bool train);
const Tensor& alpha_dropout_(const Tensor& self, double p, bool train);
const Tensor& feature_alpha_dropout_(const Tensor& self, double p, bool train);

}  // namespace nabla
