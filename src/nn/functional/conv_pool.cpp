// F:: convolution, fold/unfold and pooling: options unpacked onto the free functions
// (adaptive, 3-d, unpooling, fractional and power-average pooling: window/pooling.cpp).
#include "nabla/nn/functional/conv.h"
#include "nabla/nn/functional/pooling.h"

namespace nabla::nn::functional {

namespace {

// conv(padding) with o's padding: the numbers (an IntArrayRef) or "same" / "valid" (a
// std::string_view), for the two overloads of the free function.
template <size_t D, class F>
Tensor with_padding(const ConvFuncOptions<D>& o, F&& conv) {
  if (const auto* p = std::get_if<ExpandingArray<D>>(&o.padding()))
    return conv(IntArrayRef(p->ref()));
  return conv(
      std::string_view(std::holds_alternative<enumtype::kSame>(o.padding()) ? "same" : "valid"));
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& o) {
  return with_padding<1>(o, [&](auto p) {
    return nabla::conv1d(input, weight, o.bias(), o.stride(), p, o.dilation(), o.groups());
  });
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& o) {
  return with_padding<2>(o, [&](auto p) {
    return nabla::conv2d(input, weight, o.bias(), o.stride(), p, o.dilation(), o.groups());
  });
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& o) {
  return with_padding<3>(o, [&](auto p) {
    return nabla::conv3d(input, weight, o.bias(), o.stride(), p, o.dilation(), o.groups());
  });
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& o) {
  return nabla::conv_transpose1d(input, weight, o.bias(), o.stride(), o.padding(),
                                 o.output_padding(), o.groups(), o.dilation());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& o) {
  return nabla::conv_transpose2d(input, weight, o.bias(), o.stride(), o.padding(),
                                 o.output_padding(), o.groups(), o.dilation());
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& o) {
  return nabla::conv_transpose3d(input, weight, o.bias(), o.stride(), o.padding(),
                                 o.output_padding(), o.groups(), o.dilation());
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  NABLA_CHECK(input.defined() && input.dim() == 4,
              "unfold: Input Error: Only 4D input Tensors are supported (got ",
              input.defined() ? input.dim() : 0, "D); expected (N, C, H, W)");
  return im2col(input, o.kernel_size(), o.dilation(), o.padding(), o.stride());
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  return col2im(input, o.output_size(), o.kernel_size(), o.dilation(), o.padding(), o.stride());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return nabla::max_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                           o.ceil_mode());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return nabla::max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                           o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& o) {
  return nabla::max_pool2d_with_indices(input, o.kernel_size(), o.stride(), o.padding(),
                                        o.dilation(), o.ceil_mode());
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return nabla::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return nabla::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad(), o.divisor_override());
}

}  // namespace nabla::nn::functional
