#pragma once
// dropout, feature_dropout, alpha_dropout, feature_alpha_dropout and their in-place
// forms (at:: signatures). Masks come from the default generator of the input's device,
// so results are reproducible from manual_seed; on the CPU they are LibTorch's masks for
// the same seed (Note [Random streams]). Outside training (or with p = 0) the input itself
// is returned, as in LibTorch.
#include "nabla/core/tensor.h"

namespace nabla {

/// Zeroes each element with probability p and scales the rest by 1 / (1 - p); p = 1
/// gives zeros. p outside [0, 1] is an error. grad_fn MulBackward0 (LibTorch's on the CPU:
/// the product with the scaled mask).
Tensor dropout(const Tensor& input, double p, bool train);
const Tensor& dropout_(const Tensor& self, double p, bool train);
/// Like dropout, but one draw per (sample, channel) of an [N, C, *] input (at least 2
/// dims): whole feature maps are zeroed (F::dropout2d / dropout3d).
Tensor feature_dropout(const Tensor& input, double p, bool train);
const Tensor& feature_dropout_(const Tensor& self, double p, bool train);
/// Dropout for SELU networks: dropped elements become SELU's negative saturation value,
/// then an affine map restores zero mean and unit variance.
Tensor alpha_dropout(const Tensor& input, double p, bool train);
const Tensor& alpha_dropout_(const Tensor& self, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
const Tensor& feature_alpha_dropout_(const Tensor& self, double p, bool train);

}  // namespace nabla
