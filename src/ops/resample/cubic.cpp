// Bicubic and antialiased (bilinear, bicubic) 2-d upsampling. Each output position mixes a
// window of input positions whose width and weights depend on the mode, so instead of one
// index_select per tap the resampling of a spatial dim is a product with a dense
// [out, in] weight matrix built here from PyTorch's formulas
// (aten/src/ATen/native/UpSample.h, UpSampleKernel.cpp): bicubic convolution with
// A = -0.75 and clamped edge taps; antialias windows as PIL's (a triangle for bilinear,
// cubic convolution with a = -0.5 for bicubic, stretched by the scale when downsampling
// and normalised to sum 1). The backward multiplies by the same matrices transposed
// (differentiable, so second derivatives follow).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "nabla/ops/upsample.h"
#include "ops/nn/nn_registry.h"

namespace nabla {

namespace {

enum class Filter : uint8_t { Cubic, BilinearAA, CubicAA };

/// UpsampleBicubic2DBackward0, UpsampleBilinear2DAaBackward0, UpsampleBicubic2DAaBackward0.
struct WeightedUpsampleState {
  DimVector input_sizes;
  std::array<int64_t, 2> output_size{};
  std::array<double, 2> scales{};  // 0: none given
  Filter filter = Filter::Cubic;
  bool align_corners = false;
};

// Keys' cubic convolution kernel: |x| <= 1 and 1 < |x| < 2.
double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

double scale_of(int64_t in, int64_t out, bool align_corners, double given) {
  if (align_corners)
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (given > 0) return 1.0 / given;
  return static_cast<double>(in) / static_cast<double>(out);
}

/// The [out, in] matrix that resamples one dim.
std::vector<double> weights(int64_t in, int64_t out, bool align_corners, double given,
                            Filter filter) {
  std::vector<double> w(static_cast<size_t>(out * in), 0.0);
  auto at = [&](int64_t o, int64_t i) -> double& { return w[static_cast<size_t>(o * in + i)]; };
  const double scale = scale_of(in, out, align_corners, given);
  if (filter == Filter::Cubic) {
    constexpr double kA = -0.75;
    for (int64_t o = 0; o < out; ++o) {
      const double src = align_corners ? scale * static_cast<double>(o)
                                       : scale * (static_cast<double>(o) + 0.5) - 0.5;
      const double base = std::floor(src), t = src - base;
      const std::array<double, 4> c{cubic2(t + 1, kA), cubic1(t, kA), cubic1(1 - t, kA),
                                    cubic2(2 - t, kA)};
      for (int64_t k = 0; k < 4; ++k) {
        const int64_t i = std::clamp(static_cast<int64_t>(base) - 1 + k, int64_t{0}, in - 1);
        at(o, i) += c[static_cast<size_t>(k)];  // edge taps clamp onto the border pixel
      }
    }
    return w;
  }
  // Antialias: the filter's support widens with the scale when downsampling.
  const double half = filter == Filter::BilinearAA ? 1.0 : 2.0;
  const double support = scale >= 1.0 ? half * scale : half;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  auto kernel = [&](double x) {
    x = std::abs(x);
    if (filter == Filter::BilinearAA) return x < 1.0 ? 1.0 - x : 0.0;
    constexpr double kA = -0.5;
    return x < 1.0 ? cubic1(x, kA) : x < 2.0 ? cubic2(x, kA) : 0.0;
  };
  for (int64_t o = 0; o < out; ++o) {
    const double center = scale * (static_cast<double>(o) + 0.5);
    // Truncation toward zero, then clamping, as PIL's bounds.
    const int64_t lo = std::max(static_cast<int64_t>(center - support + 0.5), int64_t{0});
    const int64_t hi = std::min(static_cast<int64_t>(center + support + 0.5), in);
    double total = 0;
    for (int64_t i = lo; i < hi; ++i) total += at(o, i) = kernel((i - center + 0.5) * invscale);
    if (total != 0.0)
      for (int64_t i = lo; i < hi; ++i) at(o, i) /= total;
  }
  return w;
}

/// x resampled along `dim` by the [out, in] matrix m: x.movedim(dim, -1) @ m^T.
Tensor apply_along(const Tensor& x, int64_t dim, const Tensor& m) {
  return x.movedim(dim, -1).matmul(m.t()).movedim(-1, dim);
}

Tensor matrix(const WeightedUpsampleState& s, size_t k, ScalarType dtype, Device device) {
  const int64_t in = s.input_sizes[k + 2], out = s.output_size[k];
  return tensor(weights(in, out, s.align_corners, s.scales[k], s.filter), kDouble)
      .view({out, in})
      .to(device, dtype);
}

variable_list weighted_backward(OpNode<WeightedUpsampleState>& n, const variable_list& grads) {
  const WeightedUpsampleState& s = n.state;
  Tensor g = grads[0];
  // grad_in [.., in] = grad [.., out] @ m [out, in], per dim.
  for (size_t k = 2; k-- > 0;) {
    const auto dim = static_cast<int64_t>(k) + 2;
    g = g.movedim(dim, -1).matmul(matrix(s, k, g.scalar_type(), g.device())).movedim(-1, dim);
  }
  return {g.contiguous()};
}
constexpr NodeType<WeightedUpsampleState> kBicubic2d{"UpsampleBicubic2DBackward0",
                                                     weighted_backward};
constexpr NodeType<WeightedUpsampleState> kBilinear2dAA{"UpsampleBilinear2DAaBackward0",
                                                        weighted_backward};
constexpr NodeType<WeightedUpsampleState> kBicubic2dAA{"UpsampleBicubic2DAaBackward0",
                                                       weighted_backward};

Tensor weighted_upsample(const char* op, const NodeType<WeightedUpsampleState>& type,
                         const Tensor& input, IntArrayRef output_size, bool align_corners,
                         optional<double> scales_h, optional<double> scales_w, Filter filter) {
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  NABLA_CHECK(input.dim() == 4, op, ": expected a 4-d input (N, C, H, W), got ", input.dim(),
              " dims (sizes ", input.sizes(), ")");
  NABLA_CHECK(output_size.size() == 2, op, ": output_size must have 2 elements, got ",
              output_size.size());
  NABLA_CHECK(input.size(2) > 0 && input.size(3) > 0 && output_size[0] > 0 && output_size[1] > 0,
              op, ": input and output sizes should be greater than 0, got input ", input.sizes(),
              " and output ", output_size);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  WeightedUpsampleState state{DimVector(input.sizes().begin(), input.sizes().end()),
                              {output_size[0], output_size[1]},
                              {scales_h.value_or(0.0), scales_w.value_or(0.0)},
                              filter,
                              align_corners};
  Tensor out = input.detach();
  for (size_t k = 0; k < 2; ++k)
    out = apply_along(out, static_cast<int64_t>(k) + 2,
                      matrix(state, k, input.scalar_type(), input.device()));
  out = out.contiguous();
  if (auto node = autograd::record_node(type, {&input})) {
    node->state = std::move(state);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor ops::upsample_bicubic2d_impl(const Tensor& input, IntArrayRef output_size,
                                    bool align_corners, optional<double> scales_h,
                                    optional<double> scales_w) {
  return weighted_upsample("upsample_bicubic2d", kBicubic2d, input, output_size, align_corners,
                           scales_h, scales_w, Filter::Cubic);
}
Tensor ops::_upsample_bilinear2d_aa_impl(const Tensor& input, IntArrayRef output_size,
                                         bool align_corners, optional<double> scales_h,
                                         optional<double> scales_w) {
  return weighted_upsample("_upsample_bilinear2d_aa", kBilinear2dAA, input, output_size,
                           align_corners, scales_h, scales_w, Filter::BilinearAA);
}
Tensor ops::_upsample_bicubic2d_aa_impl(const Tensor& input, IntArrayRef output_size,
                                        bool align_corners, optional<double> scales_h,
                                        optional<double> scales_w) {
  return weighted_upsample("_upsample_bicubic2d_aa", kBicubic2dAA, input, output_size,
                           align_corners, scales_h, scales_w, Filter::CubicAA);
}

}  // namespace nabla
