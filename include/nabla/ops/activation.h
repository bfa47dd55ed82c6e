#pragma once
// softmax, log_softmax and the activations not in functions.h (hardtanh, relu6, ...),
// with at:: signatures and defaults.
#include "nabla/core/tensor.h"

namespace nabla {

// ---- Softmax family (src/ops/nn/softmax.cpp) --------------------------------------------
/// exp(x - max) / sum(exp(x - max)) along `dim`; `dtype` converts the input first. Finite
/// for any finite logits; a row containing NaN gives NaN. Floating inputs only (unless a
/// dtype is given). grad_fn SoftmaxBackward0.
Tensor softmax(const Tensor& input, int64_t dim, optional<ScalarType> dtype = nullopt);
/// x - max - log(sum(exp(x - max))) along `dim`. grad_fn LogSoftmaxBackward0.
Tensor log_softmax(const Tensor& input, int64_t dim, optional<ScalarType> dtype = nullopt);
/// softmax(-input) (torch.nn.functional.softmin; ATen has no op of its own).
Tensor softmin(const Tensor& input, int64_t dim, optional<ScalarType> dtype = nullopt);

// ---- Activations (src/ops/nn/activation.cpp) ----------------------------------------------
// Each op that has a node of its own in LibTorch records that node (HardtanhBackward0,
// EluBackward0 for selu, CeluBackward0, MishBackward0, ThresholdBackward0, GluBackward0,
// PreluBackward0, ...) with LibTorch's derivative, written with differentiable ops so
// higher derivatives follow; softsign and tanhshrink are composites, as in LibTorch.
// The in-place forms (`name_`) write into `self` and return it, as at::name_.

/// clamp(x, min_val, max_val).
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
/// min(max(x, 0), 6).
Tensor relu6(const Tensor& self);
const Tensor& relu6_(const Tensor& self);
const Tensor& relu_(const Tensor& self);
const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope = 0.01);
const Tensor& elu_(const Tensor& self, const Scalar& alpha = 1.0);
/// relu6(x + 3) / 6.
Tensor hardsigmoid(const Tensor& self);
const Tensor& hardsigmoid_(const Tensor& self);
/// x * hardsigmoid(x).
Tensor hardswish(const Tensor& self);
const Tensor& hardswish_(const Tensor& self);
/// scale * elu(x, alpha) with SELU's fixed alpha and scale.
Tensor selu(const Tensor& self);
const Tensor& selu_(const Tensor& self);
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha nonzero.
Tensor celu(const Tensor& self, const Scalar& alpha = 1.0);
const Tensor& celu_(const Tensor& self, const Scalar& alpha = 1.0);
/// x * tanh(softplus(x)).
Tensor mish(const Tensor& self);
const Tensor& silu_(const Tensor& self);
/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): finite for any finite x.
Tensor log_sigmoid(const Tensor& self);
/// x / (1 + |x|) (torch.nn.functional.softsign; no ATen op of its own).
Tensor softsign(const Tensor& self);
/// x - tanh(x) (torch.nn.functional.tanhshrink).
Tensor tanhshrink(const Tensor& self);
/// x <= threshold ? value : x.
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
const Tensor& threshold_(const Tensor& self, const Scalar& threshold, const Scalar& value);
/// a * sigmoid(b) where (a, b) are the halves of `self` along `dim` (even size).
Tensor glu(const Tensor& self, int64_t dim = -1);
/// x > 0 ? x : weight * x; weight has 1 element or one per channel (dim 1).
Tensor prelu(const Tensor& self, const Tensor& weight);
/// |x| <= lambd ? 0 : x.
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);
/// x > lambd ? x - lambd : x < -lambd ? x + lambd : 0; lambd >= 0.
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
/// Leaky ReLU with a slope drawn uniformly from [lower, upper] per negative element
/// when training (default generator), the mean slope (lower + upper) / 2 otherwise.
Tensor rrelu(const Tensor& self, const Scalar& lower = 1.0 / 8.0, const Scalar& upper = 1.0 / 3.0,
             bool training = false);
const Tensor& rrelu_(const Tensor& self, const Scalar& lower = 1.0 / 8.0,
                     const Scalar& upper = 1.0 / 3.0, bool training = false);

}  // namespace nabla
