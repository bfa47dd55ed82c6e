#pragma once
// Upsampling kernels under F::interpolate, with at::'s signatures. `scales` are the
// scale factors (output / input) when the caller has them; otherwise the ratio of the
// sizes is used, as PyTorch does. Separable: one pass per spatial dim (index_select, or a
// product with a weight matrix for the cubic and antialiased modes), so gradients and
// second derivatives follow.
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"

namespace nabla {

Tensor upsample_nearest1d(const Tensor& input, IntArrayRef output_size,
                          optional<double> scales = nullopt);
Tensor upsample_nearest2d(const Tensor& input, IntArrayRef output_size,
                          optional<double> scales_h = nullopt, optional<double> scales_w = nullopt);
Tensor upsample_nearest3d(const Tensor& input, IntArrayRef output_size,
                          optional<double> scales_d = nullopt, optional<double> scales_h = nullopt,
                          optional<double> scales_w = nullopt);
Tensor _upsample_nearest_exact1d(const Tensor& input, IntArrayRef output_size,
                                 optional<double> scales = nullopt);
Tensor _upsample_nearest_exact2d(const Tensor& input, IntArrayRef output_size,
                                 optional<double> scales_h = nullopt,
                                 optional<double> scales_w = nullopt);
Tensor upsample_linear1d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                         optional<double> scales = nullopt);
Tensor upsample_bilinear2d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                           optional<double> scales_h = nullopt,
                           optional<double> scales_w = nullopt);
Tensor upsample_trilinear3d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                            optional<double> scales_d = nullopt,
                            optional<double> scales_h = nullopt,
                            optional<double> scales_w = nullopt);

/// Bicubic (A = -0.75, edge taps clamped), as at::upsample_bicubic2d.
Tensor upsample_bicubic2d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                          optional<double> scales_h = nullopt, optional<double> scales_w = nullopt);
/// Antialiased resampling, as at::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa (PIL's
/// filters: when downsampling, each output averages the whole window it covers).
Tensor _upsample_bilinear2d_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                               optional<double> scales_h = nullopt,
                               optional<double> scales_w = nullopt);
Tensor _upsample_bicubic2d_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                              optional<double> scales_h = nullopt,
                              optional<double> scales_w = nullopt);

/// The at::native spellings of these kernels, which LibTorch's tests call.
namespace native {
using nabla::_upsample_bicubic2d_aa;
using nabla::_upsample_bilinear2d_aa;
using nabla::_upsample_nearest_exact1d;
using nabla::_upsample_nearest_exact2d;
using nabla::upsample_bicubic2d;
}  // namespace native

}  // namespace nabla
