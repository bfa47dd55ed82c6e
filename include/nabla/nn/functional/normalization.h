#pragma once
// F::batch_norm, F::instance_norm, F::layer_norm, F::group_norm, F::normalize,
// F::local_response_norm with their options, as torch::nn::functional:
//   F::batch_norm(x, running_mean, running_var, F::BatchNormFuncOptions().training(true));
//   F::layer_norm(x, F::LayerNormFuncOptions({4}).eps(1e-6));
#include "nabla/nn/options/normalization.h"
#include "nabla/ops/normalization.h"

namespace nabla::nn::functional {

/// Training refuses an input with a single value per channel, as LibTorch's F::.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
/// input / max(||input||_p over dim, eps).
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});
/// input / (k + alpha / size * sum of squares over `size` neighbouring channels)^beta
/// (input [N, C, *], at least 3 dims; the window is zero-padded).
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);

}  // namespace nabla::nn::functional
