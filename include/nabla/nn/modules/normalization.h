#pragma once
// Normalization modules, as torch::nn's: BatchNorm1d/2d/3d (weight, bias; buffers
// running_mean, running_var, num_batches_tracked; batch statistics in training, running
// ones in eval; momentum nullopt = cumulative average), InstanceNorm1d/2d/3d (the same
// parameters and buffers, LibTorch's NormImplBase; statistics per sample and channel),
// LayerNorm, GroupNorm. The arithmetic is F::batch_norm / layer_norm / group_norm.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/normalization.h"

namespace nabla::nn {

/// D: the input rank the module expects besides the channel dim (1: (N, C) or (N, C, L)).
template <int D>
class BatchNormImpl : public Cloneable<BatchNormImpl<D>> {
 public:
  explicit BatchNormImpl(int64_t num_features) : BatchNormImpl(BatchNormOptions(num_features)) {}
  explicit BatchNormImpl(const BatchNormOptions& options);
  void reset() override;
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  BatchNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};
using BatchNorm1dImpl = BatchNormImpl<1>;
using BatchNorm2dImpl = BatchNormImpl<2>;
using BatchNorm3dImpl = BatchNormImpl<3>;
NABLA_MODULE(BatchNorm1d);
NABLA_MODULE(BatchNorm2d);
NABLA_MODULE(BatchNorm3d);

template <int D>
class InstanceNormImpl : public Cloneable<InstanceNormImpl<D>> {
 public:
  explicit InstanceNormImpl(int64_t num_features)
      : InstanceNormImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  void reset() override;
  /// Running mean zeros, variance ones, num_batches_tracked 0 (with track_running_stats).
  void reset_running_stats();
  /// reset_running_stats, then weight ones and bias zeros (with affine).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input [N, C, *] with D spatial dims, or unbatched [C, *].
  Tensor forward(const Tensor& input);

  InstanceNormOptions options;
  /// num_batches_tracked: a 0-d kLong buffer, as LibTorch's (its forward leaves it alone).
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};
using InstanceNorm1dImpl = InstanceNormImpl<1>;
using InstanceNorm2dImpl = InstanceNormImpl<2>;
using InstanceNorm3dImpl = InstanceNormImpl<3>;
NABLA_MODULE(InstanceNorm1d);
NABLA_MODULE(InstanceNorm2d);
NABLA_MODULE(InstanceNorm3d);

class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  explicit LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options);
  void reset() override;
  /// Weight ones, bias zeros.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LayerNormOptions options;
  Tensor weight, bias;
};
NABLA_MODULE(LayerNorm);

class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  GroupNormOptions options;
  Tensor weight, bias;
};
NABLA_MODULE(GroupNorm);

class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : options(size) {}
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::local_response_norm(input, options); }
  LocalResponseNormOptions options;
};
NABLA_MODULE(LocalResponseNorm);

/// LibTorch's CrossMapLRN2d (Lua torch's SpatialCrossMapLRN): input [N, C, H, W] divided by
/// (k + alpha / size * sum of squares over a window of channels)^beta. Its channel windows
/// and its gradient are LibTorch's, which are not LocalResponseNorm's (nor, for more than
/// size / 2 + 1 channels, each other's exact derivative); nabla reproduces both.
class CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options);
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  CrossMapLRN2dOptions options;
};
NABLA_MODULE(CrossMapLRN2d);

}  // namespace nabla::nn
