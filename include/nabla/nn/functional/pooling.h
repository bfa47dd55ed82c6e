#pragma once
// F:: pooling with options (torch::nn::functional), and the options the pooling modules
// share (nn::MaxPool2dOptions is F::MaxPool2dFuncOptions, as in LibTorch):
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
//   F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({7, 7}));
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/pooling.h"

namespace nabla::nn {

template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride);  // defaults to kernel_size
  NABLA_ARG(ExpandingArray<D>, padding) = 0;
  NABLA_ARG(ExpandingArray<D>, dilation) = 1;
  NABLA_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride);
  NABLA_ARG(ExpandingArray<D>, padding) = 0;
  NABLA_ARG(bool, ceil_mode) = false;
  NABLA_ARG(bool, count_include_pad) = true;
  NABLA_ARG(optional<int64_t>, divisor_override) = nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

template <size_t D>
struct AdaptivePoolOptions {
  AdaptivePoolOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}  // NOLINT
  NABLA_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptivePoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptivePoolOptions<2>;
using AdaptiveMaxPool2dOptions = AdaptivePoolOptions<2>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
}  // namespace functional

}  // namespace nabla::nn
