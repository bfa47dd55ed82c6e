#pragma once
// Conv1d/2d/3d, ConvTranspose1d/2d/3d with their options, as torch::nn. Weights
// [out, in/groups, k...] (transposed: [in, out/groups, k...]) and bias are initialised as
// PyTorch's reset_parameters: kaiming_uniform_(a = sqrt(5)), bias uniform in
// ±1/sqrt(fan_in). padding_mode kZeros pads inside the convolution; kReflect,
// kReplicate and kCircular pad the input first (F::pad) and convolve without padding.
#include <variant>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/modules/container/any.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"

namespace nabla::nn {

using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;

template <size_t D>
struct ConvOptions {
  using padding_t = conv_padding_t<D>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  NABLA_ARG(int64_t, in_channels);
  NABLA_ARG(int64_t, out_channels);
  NABLA_ARG(ExpandingArray<D>, kernel_size);
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
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(conv_padding_mode_t, padding_mode) = enumtype::kZeros{};
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  NABLA_ARG(int64_t, in_channels);
  NABLA_ARG(int64_t, out_channels);
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride) = 1;
  NABLA_ARG(ExpandingArray<D>, padding) = 0;
  NABLA_ARG(ExpandingArray<D>, output_padding) = 0;
  NABLA_ARG(int64_t, groups) = 1;
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(ExpandingArray<D>, dilation) = 1;
  NABLA_ARG(conv_padding_mode_t, padding_mode) = enumtype::kZeros{};
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace detail {
/// What a convolution module stores (LibTorch's torch::nn::detail::ConvNdOptions): the
/// options of both ConvOptions and ConvTransposeOptions, with `transposed` telling which.
template <size_t D>
struct ConvNdOptions {
  using padding_t = conv_padding_t<D>;
  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  ConvNdOptions(const ConvOptions<D>& o)  // NOLINT: a module's options, as it stores them
      : ConvNdOptions(o.in_channels(), o.out_channels(), o.kernel_size()) {
    stride_ = o.stride();
    padding_ = o.padding();
    dilation_ = o.dilation();
    groups_ = o.groups();
    bias_ = o.bias();
    padding_mode_ = o.padding_mode();
  }
  ConvNdOptions(const ConvTransposeOptions<D>& o)  // NOLINT
      : ConvNdOptions(o.in_channels(), o.out_channels(), o.kernel_size()) {
    stride_ = o.stride();
    padding_ = o.padding();
    dilation_ = o.dilation();
    transposed_ = true;
    output_padding_ = o.output_padding();
    groups_ = o.groups();
    bias_ = o.bias();
    padding_mode_ = o.padding_mode();
  }
  NABLA_ARG(int64_t, in_channels);
  NABLA_ARG(int64_t, out_channels);
  NABLA_ARG(ExpandingArray<D>, kernel_size);
  NABLA_ARG(ExpandingArray<D>, stride) = 1;
  NABLA_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) {
    return padding(padding_t(ExpandingArray<D>(il)));
  }

 private:
  NABLA_ARG(ExpandingArray<D>, dilation) = 1;
  NABLA_ARG(bool, transposed) = false;
  NABLA_ARG(ExpandingArray<D>, output_padding) = 0;
  NABLA_ARG(int64_t, groups) = 1;
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(conv_padding_mode_t, padding_mode) = enumtype::kZeros{};
};
}  // namespace detail

template <size_t D>
class ConvNdImpl : public Cloneable<ConvNdImpl<D>> {
 public:
  ConvNdImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvNdImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}
  explicit ConvNdImpl(ConvOptions<D> options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input [N, C_in, spatial...] or unbatched [C_in, spatial...].
  Tensor forward(const Tensor& input);

  detail::ConvNdOptions<D> options;
  Tensor weight;
  Tensor bias;
};
using Conv1dImpl = ConvNdImpl<1>;
using Conv2dImpl = ConvNdImpl<2>;
using Conv3dImpl = ConvNdImpl<3>;
NABLA_MODULE(Conv1d);
NABLA_MODULE(Conv2d);
NABLA_MODULE(Conv3d);

template <size_t D>
class ConvTransposeNdImpl : public Cloneable<ConvTransposeNdImpl<D>> {
 public:
  ConvTransposeNdImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeNdImpl(ConvTransposeOptions<D>(in_channels, out_channels, kernel_size)) {}
  explicit ConvTransposeNdImpl(ConvTransposeOptions<D> options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// `output_size` (spatial sizes, optionally with N and C in front) picks the
  /// output_padding that reaches it, as PyTorch's forward(input, output_size).
  Tensor forward(const Tensor& input, const std::vector<int64_t>& output_size = {});

  detail::ConvNdOptions<D> options;
  Tensor weight;
  Tensor bias;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::vector<int64_t>())})
};
using ConvTranspose1dImpl = ConvTransposeNdImpl<1>;
using ConvTranspose2dImpl = ConvTransposeNdImpl<2>;
using ConvTranspose3dImpl = ConvTransposeNdImpl<3>;
NABLA_MODULE(ConvTranspose1d);
NABLA_MODULE(ConvTranspose2d);
NABLA_MODULE(ConvTranspose3d);

}  // namespace nabla::nn
