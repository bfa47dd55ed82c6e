#pragma once
// Upsample, PixelShuffle and PixelUnshuffle modules (torch::nn), over F::interpolate and
// F::pixel_shuffle / F::pixel_unshuffle.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/vision.h"

namespace nabla::nn {

struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear>;
  NABLA_ARG(optional<std::vector<int64_t>>, size) = nullopt;
  NABLA_ARG(optional<std::vector<double>>, scale_factor) = nullopt;
  NABLA_ARG(mode_t, mode) = enumtype::kNearest{};
  NABLA_ARG(optional<bool>, align_corners) = nullopt;
};

class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UpsampleOptions options;
};
NABLA_MODULE(Upsample);

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  NABLA_ARG(int64_t, upscale_factor);
};
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor)
      : downscale_factor_(downscale_factor) {}  // NOLINT
  NABLA_ARG(int64_t, downscale_factor);
};
namespace functional {
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
inline Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return pixel_shuffle(input, options.upscale_factor());
}
inline Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return pixel_unshuffle(input, options.downscale_factor());
}
}  // namespace functional

class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::pixel_shuffle(input, options.upscale_factor());
  }
  PixelShuffleOptions options;
};
NABLA_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::pixel_unshuffle(input, options.downscale_factor());
  }
  PixelUnshuffleOptions options;
};
NABLA_MODULE(PixelUnshuffle);

}  // namespace nabla::nn
