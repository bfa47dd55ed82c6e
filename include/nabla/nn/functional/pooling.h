#pragma once
// F:: pooling with options (torch::nn::functional), and the options the pooling modules
// share (nn::MaxPool2dOptions is F::MaxPool2dFuncOptions, as in LibTorch):
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
//   F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({7, nullopt}));
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
using MaxPool3dOptions = MaxPoolOptions<3>;

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
using AvgPool3dOptions = AvgPoolOptions<3>;

// Adaptive pooling's output size: one int for 1-d, for 2-d and 3-d a list whose entries
// may be nullopt (that dim keeps its input size), as LibTorch's.
template <class output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  NABLA_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

template <class output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  NABLA_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// nn::MaxUnpool{1,2,3}d's options; F::max_unpool*d's add output_size.
template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride);  // defaults to kernel_size
  NABLA_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

/// Fractional max pooling: windows of kernel_size placed at random, output_size given or
/// output_ratio of the input's size; _random_samples ([N, C, D] in [0, 1)) fixes the
/// placement, drawn by torch::rand's stream when undefined.
template <size_t D>
struct FractionalMaxPoolOptions {
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(optional<ExpandingArray<D>>, output_size) = nullopt;
  using ExpandingArrayDouble = ExpandingArray<D, double>;
  NABLA_ARG(optional<ExpandingArrayDouble>, output_ratio) = nullopt;
  NABLA_ARG(Tensor, _random_samples) = Tensor();
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

/// Power-average pooling: (sum over each window of x^p)^(1/p).
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  NABLA_ARG(double, norm_type);
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride);  // defaults to kernel_size
  NABLA_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;

template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride);  // defaults to kernel_size
  NABLA_ARG(ExpandingArray<D>, padding) = 0;
  /// The output's spatial sizes, or its whole shape (D or D + 2 values); by default
  /// (in - 1) * stride + kernel_size - 2 * padding per dim.
  NABLA_ARG(optional<std::vector<int64_t>>, output_size) = nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
/// (values, int64 indices into each spatial plane).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   const MaxPool3dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(
    const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
/// The inverse of max pooling (indices as max_pool*d_with_indices gives them); an
/// output_size outside default +- stride per dim is an error.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool3dFuncOptions& options);
/// Requires output_size or output_ratio; draws _random_samples when undefined.
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
/// (sign(s) relu(|s|) * window size)^(1/p), s the window averages of input^p (LibTorch's).
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);
}  // namespace functional

}  // namespace nabla::nn
