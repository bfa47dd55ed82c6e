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

}  // namespace nabla
