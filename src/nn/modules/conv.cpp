// Conv1d/2d/3d and ConvTranspose1d/2d/3d modules: parameters, initialisation, printing;
// the arithmetic is nabla::conv{1,2,3}d / conv_transpose{1,2,3}d.
#include "nabla/nn/modules/conv.h"

#include <cmath>
#include <ostream>
#include <string>

#include "nabla/nn/functional/padding.h"
#include "nabla/nn/init.h"
#include "nabla/ops/convolution.h"
#include "nabla/ops/factories.h"

namespace nabla::nn {

namespace {

// One value for the 1-d forms, a list otherwise (LibTorch's ExpandingArray printing).
template <size_t D>
void print_array(std::ostream& os, const char* name, const ExpandingArray<D>& a) {
  os << ", " << name << "=";
  if constexpr (D == 1)
    os << a[0];
  else
    os << a.ref();
}

template <size_t D>
bool all_equal(const ExpandingArray<D>& a, int64_t v) {
  for (size_t i = 0; i < D; ++i)
    if (a[i] != v) return false;
  return true;
}

void check_channels(const char* what, int64_t in, int64_t out, int64_t groups) {
  NABLA_CHECK(groups > 0, what, ": groups must be positive, got ", groups);
  NABLA_CHECK(in > 0 && out > 0, what, ": in_channels and out_channels must be positive, got ", in,
              " and ", out);
  NABLA_CHECK(in % groups == 0, what, ": in_channels (", in, ") must be divisible by groups (",
              groups, ")");
  NABLA_CHECK(out % groups == 0, what, ": out_channels (", out, ") must be divisible by groups (",
              groups, ")");
}

// PyTorch's reset_parameters for every convolution.
void init_conv(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    (void)fan_out;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

// A convolution module's weight [a, b, *kernel_size] and, with options.bias(), its bias
// [out_channels], given their initial values.
template <class Conv>
void register_conv_parameters(Conv& m, int64_t a, int64_t b) {
  const auto& o = m.options;
  std::vector<int64_t> shape{a, b};
  for (int64_t k : o.kernel_size().ref()) shape.push_back(k);
  m.weight = m.register_parameter("weight", nabla::empty(shape));
  m.bias = m.register_parameter("bias", o.bias() ? nabla::empty({o.out_channels()}) : Tensor(),
                                o.bias());
  m.reset_parameters();
}

// `padding`: sizes, or "same" / "valid".
template <size_t D, class Padding>
Tensor conv(const Tensor& x, const Tensor& w, const Tensor& b, const detail::ConvNdOptions<D>& o,
            Padding padding) {
  if constexpr (D == 1)
    return conv1d(x, w, b, o.stride(), padding, o.dilation(), o.groups());
  else if constexpr (D == 2)
    return conv2d(x, w, b, o.stride(), padding, o.dilation(), o.groups());
  else
    return conv3d(x, w, b, o.stride(), padding, o.dilation(), o.groups());
}

// What every convolution prints first: its channels, kernel_size and stride.
template <size_t D>
void print_head(std::ostream& os, const char* kind, const detail::ConvNdOptions<D>& o) {
  os << std::boolalpha << "nabla::nn::" << kind << D << "d(" << o.in_channels() << ", "
     << o.out_channels();
  print_array(os, "kernel_size", o.kernel_size());
  print_array(os, "stride", o.stride());
}

// What it prints after its padding: dilation, groups and bias, where not the defaults.
template <size_t D>
void print_dilation_groups_bias(std::ostream& os, const detail::ConvNdOptions<D>& o) {
  if (!all_equal(o.dilation(), 1)) print_array(os, "dilation", o.dilation());
  if (o.groups() != 1) os << ", groups=" << o.groups();
  if (!o.bias()) os << ", bias=false";
}

// A transposed convolution's padding (always sizes; the variant holds them).
template <size_t D>
const ExpandingArray<D>& pads(const detail::ConvNdOptions<D>& o) {
  return std::get<ExpandingArray<D>>(o.padding());
}

}  // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(ConvOptions<D> options_) : options(std::move(options_)) {
  reset();
}

template <size_t D>
void ConvNdImpl<D>::reset() {
  const std::string what = "Conv" + std::to_string(D) + "d";
  check_channels(what.c_str(), options.in_channels(), options.out_channels(), options.groups());
  // Stride and dilation are checked by the op, as LibTorch's modules (which print a
  // dilation of 0 but cannot run it).
  for (size_t i = 0; i < D; ++i)
    NABLA_CHECK(options.kernel_size()[i] > 0, what, ": kernel_size must be positive, got ",
                options.kernel_size().ref());
  if (std::holds_alternative<enumtype::kSame>(options.padding()))
    NABLA_CHECK(all_equal(options.stride(), 1), what,
                ": padding='same' is not supported for strided convolutions (stride ",
                options.stride().ref(), ")");
  register_conv_parameters(*this, options.out_channels(), options.in_channels() / options.groups());
}

template <size_t D>
void ConvNdImpl<D>::reset_parameters() {
  init_conv(weight, bias);
}

template <size_t D>
void ConvNdImpl<D>::pretty_print(std::ostream& stream) const {
  print_head(stream, "Conv", options);
  if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
    if (!all_equal(*p, 0)) print_array(stream, "padding", *p);
  } else {
    stream << ", padding="
           << (std::holds_alternative<enumtype::kSame>(options.padding()) ? "kSame" : "kValid");
  }
  print_dilation_groups_bias(stream, options);
  if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode()))
    stream << ", padding_mode=" << enumtype::get_enum_name(options.padding_mode());
  stream << ")";
}

template <size_t D>
Tensor ConvNdImpl<D>::forward(const Tensor& input) {
  if (const auto* p = std::get_if<ExpandingArray<D>>(&options.padding())) {
    if (std::holds_alternative<enumtype::kZeros>(options.padding_mode()))
      return conv<D>(input, weight, bias, options, p->ref());
    // Other modes pad the input explicitly (last dim first, as F::pad reads its list).
    std::vector<int64_t> pads;
    for (size_t i = D; i-- > 0;) {
      pads.push_back((*p)[i]);
      pads.push_back((*p)[i]);
    }
    functional::PadFuncOptions pad_options(pads);
    std::visit(
        [&](const auto& mode) {
          using M = std::decay_t<decltype(mode)>;
          if constexpr (!std::is_same_v<M, enumtype::kZeros>) pad_options.mode(mode);
        },
        options.padding_mode());
    return conv<D>(functional::pad(input, pad_options), weight, bias, options,
                   ExpandingArray<D>(0).ref());
  }
  const bool same = std::holds_alternative<enumtype::kSame>(options.padding());
  return conv<D>(input, weight, bias, options, std::string_view(same ? "same" : "valid"));
}

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(ConvTransposeOptions<D> options_)
    : options(std::move(options_)) {
  reset();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset() {
  const std::string what = "ConvTranspose" + std::to_string(D) + "d";
  check_channels(what.c_str(), options.in_channels(), options.out_channels(), options.groups());
  register_conv_parameters(*this, options.in_channels(), options.out_channels() / options.groups());
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  init_conv(weight, bias);
}

template <size_t D>
void ConvTransposeNdImpl<D>::pretty_print(std::ostream& stream) const {
  print_head(stream, "ConvTranspose", options);
  if (!all_equal(pads(options), 0)) print_array(stream, "padding", pads(options));
  if (!all_equal(options.output_padding(), 0))
    print_array(stream, "output_padding", options.output_padding());
  print_dilation_groups_bias(stream, options);
  if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode()))
    stream << ", padding_mode=" << enumtype::get_enum_name(options.padding_mode());
  stream << ")";
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input,
                                       const std::vector<int64_t>& output_size) {
  // LibTorch's modules take any padding_mode and refuse all but kZeros when run.
  NABLA_CHECK(std::holds_alternative<enumtype::kZeros>(options.padding_mode()),
              "Only `zeros` padding mode is supported for ConvTranspose", D, "d, got ",
              enumtype::get_enum_name(options.padding_mode()));
  ExpandingArray<D> output_padding = options.output_padding();
  if (!output_size.empty()) {
    // PyTorch's _output_padding: the sizes may include N and C.
    const size_t given = output_size.size();
    NABLA_CHECK(given == D || given == D + 2 || given == D + 1, "ConvTranspose", D,
                "d: output_size must have ", D, " or ", D + 2, " elements, got ", given);
    const int64_t spatial0 = input.dim() - static_cast<int64_t>(D);
    for (size_t i = 0; i < D; ++i) {
      const int64_t in = input.size(spatial0 + static_cast<int64_t>(i));
      const int64_t min_size = (in - 1) * options.stride()[i] - 2 * pads(options)[i] +
                               options.dilation()[i] * (options.kernel_size()[i] - 1) + 1;
      const int64_t want = output_size[given - D + i];
      NABLA_CHECK(want >= min_size && want < min_size + options.stride()[i], "ConvTranspose", D,
                  "d: requested output size ", want, " for dim ", i, " is not in [", min_size, ", ",
                  min_size + options.stride()[i] - 1, "]");
      output_padding[i] = want - min_size;
    }
  }
  if constexpr (D == 1)
    return conv_transpose1d(input, weight, bias, options.stride(), pads(options), output_padding,
                            options.groups(), options.dilation());
  else if constexpr (D == 2)
    return conv_transpose2d(input, weight, bias, options.stride(), pads(options), output_padding,
                            options.groups(), options.dilation());
  else
    return conv_transpose3d(input, weight, bias, options.stride(), pads(options), output_padding,
                            options.groups(), options.dilation());
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;
template class ConvNdImpl<3>;
template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;
template class ConvTransposeNdImpl<3>;

}  // namespace nabla::nn
