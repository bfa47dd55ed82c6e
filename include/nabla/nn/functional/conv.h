#pragma once
// F::conv1d / conv2d / conv3d / conv_transpose1d / 2d / 3d and F::unfold / F::fold with
// their options, as torch::nn::functional:
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1).bias(b));
//   F::conv2d(x, w, F::Conv2dFuncOptions().padding(nabla::kSame));
#include <variant>

#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/convolution.h"

namespace nabla::nn::functional {

template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;

template <size_t D>
struct ConvFuncOptions {
  using padding_t = conv_padding_t<D>;
  NABLA_ARG(Tensor, bias) = {};
  NABLA_ARG(ExpandingArray<D>, stride) = 1;
  NABLA_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  /// padding({1, 0}): a braced list is one size per dim (the variant cannot take it).
  decltype(auto) padding(std::initializer_list<int64_t> il) {
    return padding(padding_t(ExpandingArray<D>(il)));
  }

 private:
  NABLA_ARG(ExpandingArray<D>, dilation) = 1;
  NABLA_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

template <size_t D>
struct ConvTransposeFuncOptions {
  NABLA_ARG(Tensor, bias) = {};
  NABLA_ARG(ExpandingArray<D>, stride) = 1;
  NABLA_ARG(ExpandingArray<D>, padding) = 0;
  NABLA_ARG(ExpandingArray<D>, output_padding) = 0;
  NABLA_ARG(int64_t, groups) = 1;
  NABLA_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& options = {});

struct UnfoldFuncOptions {
  UnfoldFuncOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  NABLA_ARG(ExpandingArray<2>, kernel_size);
  NABLA_ARG(ExpandingArray<2>, dilation) = 1;
  NABLA_ARG(ExpandingArray<2>, padding) = 0;
  NABLA_ARG(ExpandingArray<2>, stride) = 1;
};

struct FoldFuncOptions {
  FoldFuncOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  NABLA_ARG(ExpandingArray<2>, output_size);
  NABLA_ARG(ExpandingArray<2>, kernel_size);
  NABLA_ARG(ExpandingArray<2>, dilation) = 1;
  NABLA_ARG(ExpandingArray<2>, padding) = 0;
  NABLA_ARG(ExpandingArray<2>, stride) = 1;
};

/// Sliding local blocks: [N, C, H, W] -> [N, C * kh * kw, L] (im2col).
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
/// The adjoint: [N, C * kh * kw, L] -> [N, C, output_size] (col2im).
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace nabla::nn::functional
