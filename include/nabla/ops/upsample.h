#pragma once
// Upsampling kernels under F::interpolate, with at::'s signatures. `scales` are the
// scale factors (output / input) when the caller has them; otherwise the ratio of the
// sizes is used, as PyTorch does. Separable: one index_select pass per spatial dim, so
// gradients and second derivatives follow from the index ops.
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

}  // namespace nabla
