// Forward and printing of the padding, upsampling, fold and LRN modules.
#include <ostream>

#include "nabla/nn/modules/fold.h"
#include "nabla/nn/modules/normalization.h"
#include "nabla/nn/modules/padding.h"
#include "nabla/nn/modules/upsampling.h"

namespace nabla::nn {

void detail::print_padding(std::ostream& stream, const char* name, ArrayRef<int64_t> padding,
                           const double* value) {
  stream << "nabla::nn::" << name << "(padding=" << padding;
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
    stream << "scale_factor=" << ArrayRef<double>(*options.scale_factor());
  } else if (options.size()) {
    stream << "size=" << IntArrayRef(*options.size());
  }
  stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

namespace {
// The window options Fold and Unfold share, closing the parenthesis.
template <class Options>
void print_window(std::ostream& stream, const Options& o) {
  stream << "kernel_size=" << o.kernel_size().ref() << ", dilation=" << o.dilation().ref()
         << ", padding=" << o.padding().ref() << ", stride=" << o.stride().ref() << ")";
}
}  // namespace

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Unfold(";
  print_window(stream, options);
}
void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Fold(output_size=" << options.output_size().ref() << ", ";
  print_window(stream, options);
}

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

}  // namespace nabla::nn
