#pragma once
// Distances between rows and sampling at coordinates, with at::'s signatures:
// pdist, affine_grid_generator, grid_sampler. The nn spellings are F::pdist,
// F::affine_grid and F::grid_sample (nabla/nn/functional/{distance,vision}.h).
#include "nabla/core/tensor.h"

namespace nabla {

/// The p-norm distance between each pair of rows i < j of input [N, M], as a
/// [N (N - 1) / 2] tensor in row-major order of the upper triangle. Differentiable.
Tensor pdist(const Tensor& input, double p = 2);

/// The sampling grid of the affine maps theta ([N, 2, 3] for size [N, C, H, W], [N, 3, 4]
/// for [N, C, D, H, W]): [N, H, W, 2] (or [N, D, H, W, 3]) normalised (x, y[, z])
/// coordinates. Differentiable in theta.
Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners);

/// input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]) -> [N, C, Ho, Wo].
/// interpolation_mode: 0 bilinear, 1 nearest (bicubic, 2, is not implemented);
/// padding_mode: 0 zeros, 1 border, 2 reflection. Differentiable in input and grid
/// (nearest: zero gradient to the grid). 5-d (volumetric) inputs are not implemented.
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                    int64_t padding_mode, bool align_corners);

}  // namespace nabla
