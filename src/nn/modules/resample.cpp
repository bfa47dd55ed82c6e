// Forward and printing of the padding, upsampling, fold and LRN modules.
#include <ostream>

#include "nabla/nn/modules/fold.h"
#include "nabla/nn/modules/normalization.h"
#include "nabla/nn/modules/padding.h"
#include "nabla/nn/modules/upsampling.h"

namespace nabla::nn {

namespace {
std::ostream& print_list(std::ostream& os, ArrayRef<int64_t> values) {
  os << "[";
  for (size_t i = 0; i < values.size(); ++i) os << (i ? ", " : "") << values[i];
  return os << "]";
}
}  // namespace

void detail::print_padding(std::ostream& stream, const char* name, ArrayRef<int64_t> padding,
                           const double* value) {
  stream << "nabla::nn::" << name << "(padding=";
  print_list(stream, padding);
  if (value) stream << ", value=" << *value;
  stream << ")";
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  functional::InterpolateFuncOptions o;
  o.size(options.size())
      .scale_factor(options.scale_factor())
      .align_corners(options.align_corners());
  std::visit([&](auto mode) { o.mode(mode); }, options.mode());
  return functional::interpolate(input, o);
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Upsample(";
  if (options.scale_factor()) {
    stream << "scale_factor=[";
    for (size_t i = 0; i < options.scale_factor()->size(); ++i)
      stream << (i ? ", " : "") << (*options.scale_factor())[i];
    stream << "]";
  } else if (options.size()) {
    stream << "size=";
    print_list(stream, *options.size());
  }
  stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Unfold(kernel_size=";
  print_list(stream, options.kernel_size().ref()) << ", dilation=";
  print_list(stream, options.dilation().ref()) << ", padding=";
  print_list(stream, options.padding().ref()) << ", stride=";
  print_list(stream, options.stride().ref()) << ")";
}
void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Fold(output_size=";
  print_list(stream, options.output_size().ref()) << ", kernel_size=";
  print_list(stream, options.kernel_size().ref()) << ", dilation=";
  print_list(stream, options.dilation().ref()) << ", padding=";
  print_list(stream, options.padding().ref()) << ", stride=";
  print_list(stream, options.stride().ref()) << ")";
}

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

}  // namespace nabla::nn
