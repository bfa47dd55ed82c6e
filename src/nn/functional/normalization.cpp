// F:: normalization: option unpacking, the training check of F::batch_norm, and the two
// functionals composed from other ops (normalize, local_response_norm).
#include "nabla/nn/functional/normalization.h"

#include "nabla/ops/functions.h"

namespace nabla::nn::functional {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  if (o.training() && input.defined() && input.dim() >= 2) {
    int64_t per_channel = input.size(0);
    for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
    NABLA_CHECK(per_channel != 1,
                "batch_norm: expected more than 1 value per channel when "
                "training, got input size ",
                input.sizes());
  }
  NABLA_CHECK(o.momentum().has_value(), "batch_norm: momentum must be set (got nullopt)");
  return nabla::batch_norm(input, o.weight(), o.bias(), running_mean, running_var, o.training(),
                           *o.momentum(), o.eps());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  return nabla::instance_norm(input, o.weight(), o.bias(), o.running_mean(), o.running_var(),
                              o.use_input_stats(), o.momentum(), o.eps());
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return nabla::layer_norm(input, o.normalized_shape(), o.weight(), o.bias(), o.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return nabla::group_norm(input, o.num_groups(), o.weight(), o.bias(), o.eps());
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions o) {
  NABLA_CHECK(input.defined(), "normalize: input is undefined");
  Tensor denom = input.norm(o.p(), {o.dim()}, true).clamp_min(o.eps()).expand_as(input);
  Tensor r = input / denom;
  if (o.out().has_value()) {
    o.out()->copy_(r);
    return *o.out();
  }
  return r;
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  NABLA_CHECK(input.defined() && input.dim() >= 3,
              "local_response_norm: expected 3D or higher "
              "dimensionality input (got ",
              input.defined() ? input.dim() : 0, " dimensions)");
  NABLA_CHECK(o.size() > 0, "local_response_norm: size must be positive, got ", o.size());
  if (input.numel() == 0) return input.clone();
  const int64_t C = input.size(1), before = o.size() / 2, after = (o.size() - 1) / 2;
  // Squares zero-padded along the channel dim, then a window sum of `size` channels
  // (LibTorch's avg_pool with count_include_pad divides by size everywhere).
  Tensor sq = input.square().movedim(1, -1);
  Tensor padded = constant_pad_nd(sq, {before, after}, 0);
  Tensor sum = padded.narrow(-1, 0, C);
  for (int64_t j = 1; j < o.size(); ++j) sum = sum + padded.narrow(-1, j, C);
  Tensor div =
      (sum.movedim(-1, 1) * (o.alpha() / static_cast<double>(o.size())) + o.k()).pow(o.beta());
  return input / div;
}

}  // namespace nabla::nn::functional
