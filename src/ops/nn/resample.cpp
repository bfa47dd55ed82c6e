// Padding (reflect, replicate, circular) and upsampling (nearest, nearest-exact, linear),
// both as index_select along each spatial dim with indices (and weights) computed here,
// using PyTorch's source-index formulas (aten/src/ATen/native/UpSample.h).
#include <cmath>
#include <vector>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/padding.h"
#include "nabla/ops/upsample.h"

namespace nabla {

namespace {

Tensor index_tensor(const std::vector<int64_t>& v) {
  return tensor(v, kLong).view({static_cast<int64_t>(v.size())});
}

enum class PadMode { Reflect, Replicate, Circular };

Tensor pad_last_dims(const char* op, const Tensor& input, IntArrayRef pad, PadMode mode,
                     int64_t dims) {
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  NABLA_CHECK(static_cast<int64_t>(pad.size()) == 2 * dims, op, ": expected ", 2 * dims,
              " padding values, got ", pad.size());
  NABLA_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, ": expected a ", dims + 1,
              "-d or ", dims + 2, "-d input, got ", input.dim(), " dims (sizes ", input.sizes(),
              ")");
  Tensor out = input;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = input.dim() - 1 - k;
    const int64_t n = input.size(dim);
    const int64_t left = pad[static_cast<size_t>(2 * k)],
                  right = pad[static_cast<size_t>(2 * k + 1)];
    if (mode == PadMode::Reflect)
      NABLA_CHECK(left < n && right < n, op, ": padding (", left, ", ", right,
                  ") must be smaller than the size ", n, " of dim ", dim, " (sizes ", input.sizes(),
                  ")");
    if (mode == PadMode::Circular)
      NABLA_CHECK(left <= n && right <= n, op, ": padding (", left, ", ", right,
                  ") must be at most the size ", n, " of dim ", dim);
    NABLA_CHECK(n > 0 || (left <= 0 && right <= 0), op, ": cannot pad dim ", dim,
                " of size 0 (sizes ", input.sizes(), ")");
    const int64_t out_n = n + left + right;
    NABLA_CHECK(out_n >= 0, op, ": padding (", left, ", ", right,
                ") leaves a negative size for dim ", dim);
    std::vector<int64_t> idx(static_cast<size_t>(out_n));
    for (int64_t o = 0; o < out_n; ++o) {
      int64_t i = o - left;
      switch (mode) {
        case PadMode::Reflect:
          if (i < 0) i = -i;
          if (i >= n) i = 2 * (n - 1) - i;
          break;
        case PadMode::Replicate:
          i = std::min(std::max<int64_t>(i, 0), n - 1);
          break;
        case PadMode::Circular:
          i = ((i % n) + n) % n;
          break;
      }
      idx[static_cast<size_t>(o)] = i;
    }
    out = out.index_select(dim, index_tensor(idx));
  }
  return out;
}

// The source coordinate of output position o (PyTorch's area_pixel_compute_source_index
// and compute_scales_value).
double source_scale(int64_t in, int64_t out, bool align_corners, optional<double> scale) {
  if (align_corners)
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (scale && *scale > 0) return 1.0 / *scale;
  return static_cast<double>(in) / static_cast<double>(out);
}

void check_upsample(const char* op, const Tensor& input, IntArrayRef output_size, int64_t dims) {
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  NABLA_CHECK(input.dim() == dims + 2, op, ": expected a ", dims + 2,
              "-d input (N, C, spatial...), got ", input.dim(), " dims (sizes ", input.sizes(),
              ")");
  NABLA_CHECK(static_cast<int64_t>(output_size.size()) == dims, op, ": output_size must have ",
              dims, " elements, got ", output_size.size());
  for (int64_t d = 0; d < dims; ++d) {
    NABLA_CHECK(input.size(d + 2) > 0 && output_size[static_cast<size_t>(d)] > 0, op,
                ": input and output sizes should be greater than 0, got input ", input.sizes(),
                " and output ", output_size);
  }
}

Tensor nearest(const char* op, const Tensor& input, IntArrayRef output_size,
               const std::vector<optional<double>>& scales, bool exact) {
  const int64_t dims = static_cast<int64_t>(output_size.size());
  check_upsample(op, input, output_size, dims);
  Tensor out = input;
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t dim = d + 2, in = input.size(dim), o_n = output_size[static_cast<size_t>(d)];
    // PyTorch computes nearest indices in float; the same rounding picks the same pixels.
    const auto scale =
        static_cast<float>(source_scale(in, o_n, false, scales[static_cast<size_t>(d)]));
    std::vector<int64_t> idx(static_cast<size_t>(o_n));
    for (int64_t o = 0; o < o_n; ++o) {
      const float src =
          exact ? (static_cast<float>(o) + 0.5f) * scale : static_cast<float>(o) * scale;
      idx[static_cast<size_t>(o)] = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
    }
    out = out.index_select(dim, index_tensor(idx));
  }
  return out;
}

Tensor linear(const char* op, const Tensor& input, IntArrayRef output_size, bool align_corners,
              const std::vector<optional<double>>& scales) {
  const int64_t dims = static_cast<int64_t>(output_size.size());
  check_upsample(op, input, output_size, dims);
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  Tensor out = input;
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t dim = d + 2, in = input.size(dim), o_n = output_size[static_cast<size_t>(d)];
    const double scale = source_scale(in, o_n, align_corners, scales[static_cast<size_t>(d)]);
    std::vector<int64_t> i0(static_cast<size_t>(o_n)), i1(static_cast<size_t>(o_n));
    std::vector<double> w1(static_cast<size_t>(o_n));
    for (int64_t o = 0; o < o_n; ++o) {
      double src = align_corners ? scale * static_cast<double>(o)
                                 : scale * (static_cast<double>(o) + 0.5) - 0.5;
      if (src < 0) src = 0;
      const auto lo = std::min(static_cast<int64_t>(src), in - 1);
      i0[static_cast<size_t>(o)] = lo;
      i1[static_cast<size_t>(o)] = lo + (lo < in - 1 ? 1 : 0);
      w1[static_cast<size_t>(o)] = src - static_cast<double>(lo);
    }
    std::vector<int64_t> wshape(static_cast<size_t>(input.dim()), 1);
    wshape[static_cast<size_t>(dim)] = o_n;
    Tensor l1 = tensor(w1, kDouble).to(input.scalar_type()).view(wshape);
    out = out.index_select(dim, index_tensor(i0)) * (1 - l1) +
          out.index_select(dim, index_tensor(i1)) * l1;
  }
  return out;
}

}  // namespace

Tensor reflection_pad1d(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("reflection_pad1d", input, pad, PadMode::Reflect, 1);
}
Tensor reflection_pad2d(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("reflection_pad2d", input, pad, PadMode::Reflect, 2);
}
Tensor replication_pad1d(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("replication_pad1d", input, pad, PadMode::Replicate, 1);
}
Tensor replication_pad2d(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("replication_pad2d", input, pad, PadMode::Replicate, 2);
}
Tensor replication_pad3d(const Tensor& input, IntArrayRef pad) {
  return pad_last_dims("replication_pad3d", input, pad, PadMode::Replicate, 3);
}
Tensor circular_pad(const Tensor& input, IntArrayRef pad) {
  NABLA_CHECK(pad.size() % 2 == 0 && !pad.empty(),
              "circular_pad: expected pairs of padding values, got ", pad.size());
  const auto dims = static_cast<int64_t>(pad.size() / 2);
  NABLA_CHECK(input.defined() && input.dim() >= dims, "circular_pad: ", dims,
              " padded dims need an input of at least ", dims, " dims");
  // Any leading dims; checked per padded dim below.
  Tensor out = input;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = input.dim() - 1 - k;
    const int64_t n = input.size(dim);
    const int64_t left = pad[static_cast<size_t>(2 * k)],
                  right = pad[static_cast<size_t>(2 * k + 1)];
    NABLA_CHECK(n > 0 && left <= n && right <= n && left >= -n && right >= -n,
                "circular_pad: padding (", left, ", ", right, ") must be at most the size ", n,
                " of dim ", dim);
    std::vector<int64_t> idx;
    for (int64_t o = 0; o < n + left + right; ++o) idx.push_back((((o - left) % n) + n) % n);
    out = out.index_select(dim, index_tensor(idx));
  }
  return out;
}

Tensor upsample_nearest1d(const Tensor& input, IntArrayRef output_size, optional<double> scales) {
  return nearest("upsample_nearest1d", input, output_size, {scales}, false);
}
Tensor upsample_nearest2d(const Tensor& input, IntArrayRef output_size, optional<double> scales_h,
                          optional<double> scales_w) {
  return nearest("upsample_nearest2d", input, output_size, {scales_h, scales_w}, false);
}
Tensor upsample_nearest3d(const Tensor& input, IntArrayRef output_size, optional<double> scales_d,
                          optional<double> scales_h, optional<double> scales_w) {
  return nearest("upsample_nearest3d", input, output_size, {scales_d, scales_h, scales_w}, false);
}
Tensor _upsample_nearest_exact1d(const Tensor& input, IntArrayRef output_size,
                                 optional<double> scales) {
  return nearest("_upsample_nearest_exact1d", input, output_size, {scales}, true);
}
Tensor _upsample_nearest_exact2d(const Tensor& input, IntArrayRef output_size,
                                 optional<double> scales_h, optional<double> scales_w) {
  return nearest("_upsample_nearest_exact2d", input, output_size, {scales_h, scales_w}, true);
}
Tensor upsample_linear1d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                         optional<double> scales) {
  return linear("upsample_linear1d", input, output_size, align_corners, {scales});
}
Tensor upsample_bilinear2d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                           optional<double> scales_h, optional<double> scales_w) {
  return linear("upsample_bilinear2d", input, output_size, align_corners, {scales_h, scales_w});
}
Tensor upsample_trilinear3d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                            optional<double> scales_d, optional<double> scales_h,
                            optional<double> scales_w) {
  return linear("upsample_trilinear3d", input, output_size, align_corners,
                {scales_d, scales_h, scales_w});
}

}  // namespace nabla
