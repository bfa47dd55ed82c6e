#pragma once
// Normalization modules, as torch::nn's: BatchNorm1d/2d/3d (weight, bias; buffers
// running_mean, running_var, num_batches_tracked; batch statistics in training, running
// ones in eval; momentum nullopt = cumulative average), InstanceNorm1d/2d, LayerNorm,
// GroupNorm. The arithmetic is F::batch_norm / layer_norm / group_norm.
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
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  InstanceNormOptions options;
  Tensor weight, bias, running_mean, running_var;
};
using InstanceNorm1dImpl = InstanceNormImpl<1>;
using InstanceNorm2dImpl = InstanceNormImpl<2>;
NABLA_MODULE(InstanceNorm1d);
NABLA_MODULE(InstanceNorm2d);

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

}  // namespace nabla::nn
