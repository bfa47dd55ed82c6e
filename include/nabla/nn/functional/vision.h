#pragma once
// F::interpolate, as torch::nn::functional::interpolate:
//   F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{56, 56})
//                         .mode(nabla::kBilinear).align_corners(false));
// Modes: kNearest, kNearestExact (1-3 spatial dims), kLinear (3-d input), kBilinear and
// kBicubic (4-d; both also antialiased), kTrilinear (5-d), kArea (adaptive average pooling).
// Also F::affine_grid and F::grid_sample (4-d inputs).
#include <variant>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/ops/sampling.h"
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

/// The sampling grid of affine maps theta for an output of `size` (nabla::affine_grid_generator),
/// after LibTorch's checks of theta's dtype and shape against size.
Tensor affine_grid(const Tensor& theta, const IntArrayRef& size, bool align_corners = false);

struct GridSampleFuncOptions {
  using mode_t = std::variant<enumtype::kBilinear, enumtype::kNearest, enumtype::kBicubic>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  NABLA_ARG(mode_t, mode) = enumtype::kBilinear{};
  NABLA_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
  /// Unset: false, with a warning (as LibTorch).
  NABLA_ARG(optional<bool>, align_corners) = nullopt;
};

/// input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (nabla::grid_sampler); kBicubic and
/// 5-d inputs are not implemented (an error says so).
Tensor grid_sample(const Tensor& input, const Tensor& grid,
                   const GridSampleFuncOptions& options = {});

}  // namespace nabla::nn::functional
