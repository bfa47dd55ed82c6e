// pdist, affine_grid_generator and grid_sampler (2-d), as at::'s ops. All three are
// composites of differentiable ops, so their gradients (grid_sampler's to both the input
// and the grid) and second derivatives come from those ops' formulas; their grad_fn is
// therefore the last op's node, not LibTorch's PdistBackward0 / AffineGridGeneratorBackward0
// / GridSampler2DBackward0. The sampling formulas (unnormalising grid coordinates, border
// clipping, reflection) are PyTorch's (aten/src/ATen/native/GridSampler.h).
#include <cmath>
#include <limits>
#include <vector>

#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/sampling.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"

namespace nabla {

// ---- pdist ----------------------------------------------------------------------------------

Tensor ops::pdist_impl(const Tensor& input, double p) {
  NABLA_CHECK(input.defined(), "pdist: input is undefined");
  NABLA_CHECK(input.dim() == 2, "pdist only supports 2D tensors, got: ", input.dim(), "D");
  NABLA_CHECK(input.is_floating_point(), "pdist only supports floating-point dtypes, got ",
              input.scalar_type());
  NABLA_CHECK(p >= 0, "pdist only supports non-negative p values, got ", p);
  // Rows i < j in row-major order of the upper triangle: LibTorch's output order.
  const int64_t n = input.size(0);
  std::vector<int64_t> rows_i, rows_j;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      rows_i.push_back(i);
      rows_j.push_back(j);
    }
  const auto pairs = static_cast<int64_t>(rows_i.size());
  auto index = [&](const std::vector<int64_t>& v) {
    return tensor(v, kLong).view({pairs}).to(input.device());
  };
  const Tensor diff = input.index_select(0, index(rows_i)) - input.index_select(0, index(rows_j));
  return diff.norm(Scalar(p), {1});
}

// ---- affine_grid_generator ------------------------------------------------------------------

namespace {

/// The normalised coordinates of `steps` pixel centres (align_corners = false) or corners.
Tensor unit_coordinates(int64_t steps, bool align_corners, const TensorOptions& options) {
  if (steps <= 1) return zeros({steps}, options);
  Tensor r = linspace(-1, 1, steps, options);
  if (!align_corners) r = r * (static_cast<double>(steps - 1) / static_cast<double>(steps));
  return r;
}

}  // namespace

Tensor ops::affine_grid_generator_impl(const Tensor& theta, IntArrayRef size, bool align_corners) {
  NABLA_CHECK(theta.defined(), "affine_grid_generator: theta is undefined");
  NABLA_CHECK(size.size() == 4 || size.size() == 5,
              "affine_grid_generator: AffineGridGenerator needs 4d (spatial) or 5d (volumetric) "
              "inputs, got size ",
              size);
  NABLA_CHECK(theta.is_floating_point(),
              "affine_grid_generator: theta must be floating point, got ", theta.scalar_type());
  const auto spatial = static_cast<int64_t>(size.size()) - 2;
  NABLA_CHECK(theta.dim() == 3 && theta.size(1) == spatial && theta.size(2) == spatial + 1 &&
                  theta.size(0) == size[0],
              "affine_grid_generator: expected theta of shape [", size[0], ", ", spatial, ", ",
              spatial + 1, "] for size ", size, ", got ", theta.sizes());
  const TensorOptions opt = theta.options().requires_grad(false);
  // base [spatial..., spatial + 1]: (x, y[, z], 1) per output position, x along the last dim.
  std::vector<int64_t> out_shape(size.begin() + 2, size.end());
  std::vector<Tensor> coords;
  for (int64_t k = 0; k < spatial; ++k) {
    const int64_t dim = spatial - 1 - k;  // x varies along the last spatial dim
    std::vector<int64_t> shape(static_cast<size_t>(spatial), 1);
    shape[static_cast<size_t>(dim)] = out_shape[static_cast<size_t>(dim)];
    coords.push_back(unit_coordinates(out_shape[static_cast<size_t>(dim)], align_corners, opt)
                         .view(shape)
                         .expand(out_shape));
  }
  coords.push_back(ones(out_shape, opt));
  int64_t points = 1;
  for (int64_t s : out_shape) points *= s;
  const Tensor base = stack(coords, -1).view({points, spatial + 1});
  // grid [N, points, spatial] = base [points, spatial + 1] @ theta^T [N, spatial + 1, spatial]
  std::vector<int64_t> grid_shape{size[0]};
  grid_shape.insert(grid_shape.end(), out_shape.begin(), out_shape.end());
  grid_shape.push_back(spatial);
  return base.matmul(theta.transpose(1, 2)).view(grid_shape);
}

// ---- grid_sampler ---------------------------------------------------------------------------

namespace {

// Reflects coordinates into [twice_low / 2, twice_high / 2], as often as needed.
Tensor reflect(const Tensor& c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return c * 0;
  const double low = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  const Tensor a = (c - low).abs();
  const Tensor flips = (a / span).floor().detach();
  const Tensor extra = a - flips * span;
  return where(flips.remainder(2) == 0, extra + low, (span + low) - extra);
}

/// The input pixel coordinate (fractional) that grid coordinate c in [-1, 1] points to.
Tensor source_coordinate(Tensor c, int64_t size, int64_t padding_mode, bool align_corners) {
  const auto s = static_cast<double>(size);
  c = align_corners ? (c + 1) * ((s - 1) / 2) : ((c + 1) * s - 1) / 2;
  if (padding_mode == 2)
    c = align_corners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
  if (padding_mode != 0) c = c.clamp(0, s - 1);
  return c;
}

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding,
                       bool align_corners) {
  const int64_t n = input.size(0), ch = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t oh = grid.size(1), ow = grid.size(2);
  const Tensor ix = source_coordinate(grid.select(3, 0), w, padding, align_corners);
  const Tensor iy = source_coordinate(grid.select(3, 1), h, padding, align_corners);
  const Tensor flat = input.reshape({n, ch, h * w});
  // input at integer pixel (xs, ys) [N, Ho, Wo] as [N, C, Ho, Wo]; zero outside the image.
  auto pixel = [&](const Tensor& xs, const Tensor& ys) {
    const Tensor inside =
        (xs >= 0).logical_and(xs <= w - 1).logical_and(ys >= 0).logical_and(ys <= h - 1);
    const Tensor index = (ys.clamp(0, h - 1) * w + xs.clamp(0, w - 1))
                             .to(kLong)
                             .view({n, 1, oh * ow})
                             .expand({n, ch, oh * ow});
    return flat.gather(2, index).view({n, ch, oh, ow}) *
           inside.unsqueeze(1).to(input.scalar_type());
  };
  if (mode == 1) {
    Tensor out = pixel(ix.round(), iy.round());  // round half to even, as nearbyint
    // LibTorch gives the grid a zero gradient rather than none: a term that is zero in value
    // and in gradient keeps the grid in the graph.
    if (grid.requires_grad()) out = out + (ix * 0 + iy * 0).nan_to_num(0, 0, 0).unsqueeze(1);
    return out;
  }
  const Tensor x0 = ix.floor().detach(), y0 = iy.floor().detach();
  const Tensor x1 = x0 + 1, y1 = y0 + 1;
  // The weights carry the gradient to the grid: d out / d ix = sum of corner values times
  // the derivative of their weights.
  const Tensor wx1 = ix - x0, wx0 = x1 - ix, wy1 = iy - y0, wy0 = y1 - iy;
  return pixel(x0, y0) * (wx0 * wy0).unsqueeze(1) + pixel(x1, y0) * (wx1 * wy0).unsqueeze(1) +
         pixel(x0, y1) * (wx0 * wy1).unsqueeze(1) + pixel(x1, y1) * (wx1 * wy1).unsqueeze(1);
}

}  // namespace

Tensor ops::grid_sampler_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                              int64_t padding_mode, bool align_corners) {
  NABLA_CHECK(input.defined() && grid.defined(), "grid_sampler(): input or grid is undefined");
  NABLA_CHECK(input.device() == grid.device(),
              "grid_sampler(): expected input and grid to be on same device, but input is on ",
              input.device(), " and grid is on ", grid.device());
  NABLA_CHECK(input.scalar_type() == grid.scalar_type() && input.is_floating_point(),
              "grid_sampler(): expected input and grid to have the same floating dtype, but "
              "input has ",
              input.scalar_type(), " and grid has ", grid.scalar_type());
  NABLA_CHECK((input.dim() == 4 || input.dim() == 5) && input.dim() == grid.dim(),
              "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
              "but got input with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  NABLA_CHECK(input.size(0) == grid.size(0),
              "grid_sampler(): expected grid and input to have same batch size, but got input "
              "with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  NABLA_CHECK(grid.size(-1) == input.dim() - 2, "grid_sampler(): expected grid to have size ",
              input.dim() - 2, " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t d = 2; d < input.dim(); ++d)
    NABLA_CHECK(input.size(d) > 0,
                "grid_sampler(): expected input to have non-empty spatial "
                "dimensions, but input has sizes ",
                input.sizes(), " with dimension ", d, " being empty");
  NABLA_CHECK(
      interpolation_mode >= 0 && interpolation_mode <= 2 && padding_mode >= 0 && padding_mode <= 2,
      "grid_sampler(): interpolation_mode (0 bilinear, 1 nearest, 2 bicubic) and "
      "padding_mode (0 zeros, 1 border, 2 reflection) out of range, got ",
      interpolation_mode, " and ", padding_mode);
  NABLA_CHECK(input.dim() == 4,
              "grid_sampler(): 5-d (volumetric) sampling is not implemented in nabla yet; "
              "4-d inputs are");
  NABLA_CHECK(interpolation_mode != 2,
              "grid_sampler(): bicubic interpolation is not implemented in nabla yet; bilinear "
              "and nearest are");
  return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
}

}  // namespace nabla
