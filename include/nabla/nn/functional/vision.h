#pragma once
// F::interpolate, as torch::nn::functional::interpolate:
//   F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{56, 56})
//                         .mode(nabla::kBilinear).align_corners(false));
// Modes: kNearest, kNearestExact (1-3 spatial dims), kLinear (3-d input), kBilinear
// (4-d), kTrilinear (5-d). kBicubic and kArea are not implemented yet (an error says so).
#include <variant>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/ops/upsample.h"

namespace nabla::nn::functional {

struct InterpolateFuncOptions {
  using mode_t =
      std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                   enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  NABLA_ARG(optional<std::vector<int64_t>>, size) = nullopt;
  NABLA_ARG(optional<std::vector<double>>, scale_factor) = nullopt;
  NABLA_ARG(mode_t, mode) = enumtype::kNearest{};
  NABLA_ARG(optional<bool>, align_corners) = nullopt;
  NABLA_ARG(optional<bool>, recompute_scale_factor) = nullopt;
  NABLA_ARG(bool, antialias) = false;
};

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

/// (N, C*r*r, H, W) -> (N, C, H*r, W*r), and back.
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);

}  // namespace nabla::nn::functional
