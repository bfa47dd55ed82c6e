// Normalization kernels over a contiguous [N, C, S] view: per-channel moments (batch
// norm: N batches of S-element strips per channel; layer/group norm: N = 1, one row per
// "channel") and a per-channel centre-scale-shift map. Both run in parallel over channel blocks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu_backend.h"
#include "nabla/backend/parallel.h"

namespace nabla::cpu {

namespace {

// Sums with 8 independent double lanes, so the compiler can vectorize the reduction
// (a single accumulator is a serial dependency chain).
template <class T>
double strip_sum(const T* p, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += static_cast<double>(p[i + k]);
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(p[i]);
  for (int k = 0; k < 8; ++k) s += acc[k];
  return s;
}

template <class T>
double strip_sq_dev(const T* p, int64_t n, double m) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) {
      const double d = static_cast<double>(p[i + k]) - m;
      acc[k] += d * d;
    }
  double s = 0;
  for (; i < n; ++i) {
    const double d = static_cast<double>(p[i]) - m;
    s += d * d;
  }
  for (int k = 0; k < 8; ++k) s += acc[k];
  return s;
}

// Two passes (mean, then squared deviations): no cancellation when |mean| >> std.
template <class T>
void moments_impl(T* mean, T* var, const T* x, int64_t n, int64_t c, int64_t s) {
  const int64_t per_channel = n * s;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per_channel, 1));
  parallel_for(0, c, grain, [&](int64_t c0, int64_t c1) {
    std::vector<double> m(static_cast<size_t>(c1 - c0), 0.0), q(static_cast<size_t>(c1 - c0), 0.0);
    // Row by row over the batch so that, when S is small (an [N, C] input), the channels
    // of a block are read contiguously.
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = c0; ch < c1; ++ch) m[ch - c0] += strip_sum(x + (b * c + ch) * s, s);
    const double inv = per_channel > 0 ? 1.0 / static_cast<double>(per_channel)
                                       : std::numeric_limits<double>::quiet_NaN();
    for (auto& v : m) v *= inv;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = c0; ch < c1; ++ch) q[ch - c0] += strip_sq_dev(x + (b * c + ch) * s, s, m[ch - c0]);
    for (int64_t ch = c0; ch < c1; ++ch) {
      mean[ch] = static_cast<T>(m[ch - c0]);
      var[ch] = static_cast<T>(q[ch - c0] * inv);
    }
  });
}

template <class T>
void affine_impl(T* out, const T* x, const T* center, const T* scale, const T* shift, int64_t n,
                 int64_t c, int64_t s) {
  const int64_t rows = n * c;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(s, 1));
  if (s == 1) {
    // [N, C]: the scale varies along the contiguous dim.
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const T* xi = x + b * c;
        T* yo = out + b * c;
        for (int64_t ch = 0; ch < c; ++ch) yo[ch] = (xi[ch] - center[ch]) * scale[ch] + shift[ch];
      }
    });
    return;
  }
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T m = center[r % c], a = scale[r % c], b = shift[r % c];
      const T* xi = x + r * s;
      T* yo = out + r * s;
      for (int64_t k = 0; k < s; ++k) yo[k] = (xi[k] - m) * a + b;
    }
  });
}

}  // namespace

void CpuBackend::moments(const Tensor& mean, const Tensor& var, const Tensor& in, int64_t n,
                         int64_t c, int64_t s) {
  NABLA_ASSERT(in.is_contiguous() && mean.is_contiguous() && var.is_contiguous(),
               "moments kernel: contiguous operands");
  switch (in.scalar_type()) {
    case kFloat:
      return moments_impl(mean.data_ptr<float>(), var.data_ptr<float>(), in.data_ptr<float>(), n, c, s);
    case kDouble:
      return moments_impl(mean.data_ptr<double>(), var.data_ptr<double>(), in.data_ptr<double>(), n, c, s);
    default: NABLA_CHECK(false, "moments kernel: float or double expected, got ", in.scalar_type());
  }
}

void CpuBackend::channel_affine(const Tensor& out, const Tensor& in, const Tensor& center,
                                const Tensor& scale, const Tensor& shift, int64_t n, int64_t c,
                                int64_t s) {
  NABLA_ASSERT(in.is_contiguous() && out.is_contiguous() && center.is_contiguous() &&
                   scale.is_contiguous() && shift.is_contiguous(),
               "channel_affine kernel: contiguous operands");
  switch (in.scalar_type()) {
    case kFloat:
      return affine_impl(out.data_ptr<float>(), in.data_ptr<float>(), center.data_ptr<float>(), scale.data_ptr<float>(),
                         shift.data_ptr<float>(), n, c, s);
    case kDouble:
      return affine_impl(out.data_ptr<double>(), in.data_ptr<double>(), center.data_ptr<double>(), scale.data_ptr<double>(),
                         shift.data_ptr<double>(), n, c, s);
    default: NABLA_CHECK(false, "channel_affine kernel: float or double expected, got ", in.scalar_type());
  }
}

}  // namespace nabla::cpu
