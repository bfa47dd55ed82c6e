#pragma once
// Options of the normalization layers (torch/nn/options/{batchnorm,instancenorm,
// normalization}.h) and of their F:: forms.
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  NABLA_ARG(int64_t, num_features);
  NABLA_ARG(double, eps) = 1e-5;
  /// nullopt: a cumulative moving average.
  NABLA_ARG(optional<double>, momentum) = 0.1;
  NABLA_ARG(bool, affine) = true;
  NABLA_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  NABLA_ARG(int64_t, num_features);
  NABLA_ARG(double, eps) = 1e-5;
  NABLA_ARG(double, momentum) = 0.1;
  NABLA_ARG(bool, affine) = false;
  NABLA_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  NABLA_ARG(std::vector<int64_t>, normalized_shape);
  NABLA_ARG(double, eps) = 1e-5;
  NABLA_ARG(bool, elementwise_affine) = true;
};

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  NABLA_ARG(int64_t, num_groups);
  NABLA_ARG(int64_t, num_channels);
  NABLA_ARG(double, eps) = 1e-5;
  NABLA_ARG(bool, affine) = true;
};

struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT
  NABLA_ARG(int64_t, size);
  NABLA_ARG(double, alpha) = 1e-4;
  NABLA_ARG(double, beta) = 0.75;
  NABLA_ARG(double, k) = 1.;
};

/// CrossMapLRN2d's options; k is an integer, as LibTorch's.
struct CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}  // NOLINT
  NABLA_ARG(int64_t, size);
  NABLA_ARG(double, alpha) = 1e-4;
  NABLA_ARG(double, beta) = 0.75;
  NABLA_ARG(int64_t, k) = 1;
};

namespace functional {

struct BatchNormFuncOptions {
  NABLA_ARG(Tensor, weight) = Tensor();
  NABLA_ARG(Tensor, bias) = Tensor();
  NABLA_ARG(bool, training) = false;
  /// Required when training with running stats (LibTorch calls momentum.value()).
  NABLA_ARG(optional<double>, momentum) = 0.1;
  NABLA_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  NABLA_ARG(Tensor, running_mean) = Tensor();
  NABLA_ARG(Tensor, running_var) = Tensor();
  NABLA_ARG(Tensor, weight) = Tensor();
  NABLA_ARG(Tensor, bias) = Tensor();
  NABLA_ARG(bool, use_input_stats) = true;
  NABLA_ARG(double, momentum) = 0.1;
  NABLA_ARG(double, eps) = 1e-5;
};

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  NABLA_ARG(std::vector<int64_t>, normalized_shape);
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(Tensor, bias) = {};
  NABLA_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  NABLA_ARG(int64_t, num_groups);
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(Tensor, bias) = {};
  NABLA_ARG(double, eps) = 1e-5;
};

struct NormalizeFuncOptions {
  NABLA_ARG(double, p) = 2.0;
  NABLA_ARG(int64_t, dim) = 1;
  NABLA_ARG(double, eps) = 1e-12;
  /// When given, the result is also written into it.
  NABLA_ARG(optional<Tensor>, out) = nullopt;
};

using LocalResponseNormFuncOptions = LocalResponseNormOptions;

}  // namespace functional
}  // namespace nabla::nn
