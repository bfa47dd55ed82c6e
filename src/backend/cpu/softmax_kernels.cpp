// Softmax / log_softmax along one dim of a contiguous tensor viewed as [outer, n, inner].
// inner == 1 (the last dim, the common case) runs one row at a time: max, then the sum
// of exp(x - max) (written to out on the way for softmax), then a scaling pass — every
// pass over a contiguous row, so the compiler vectorizes them. Other dims keep per-column
// running max / sum vectors of length `inner` and sweep the n planes, again contiguous.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu_backend.h"
#include "nabla/backend/parallel.h"

namespace nabla::cpu {

namespace {

// NaN-propagating max: a row holding a NaN gives NaN everywhere, as in LibTorch.
template <class T>
inline T nan_max(T a, T b) {
  return (a > b || std::isnan(a)) ? a : b;
}

template <class T>
void softmax_rows(T* out, const T* in, int64_t rows, int64_t n, bool log) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* x = in + r * n;
      T* y = out + r * n;
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t j = 0; j < n; ++j) m = nan_max(m, x[j]);
      T sum = 0;
      if (log) {
        for (int64_t j = 0; j < n; ++j) sum += std::exp(x[j] - m);
        // (x - m) - log(sum), not x - (m + log(sum)): the latter rounds log(sum) away
        // when |m| is large.
        const T lse = std::log(sum);
        for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m) - lse;
      } else {
        for (int64_t j = 0; j < n; ++j) {
          y[j] = std::exp(x[j] - m);
          sum += y[j];
        }
        const T inv = T(1) / sum;
        for (int64_t j = 0; j < n; ++j) y[j] *= inv;
      }
    }
  });
}

// Columns [i0, i1) of one outer block: x[j * inner + i] for j < n.
template <class T>
void softmax_columns(T* y, const T* x, int64_t n, int64_t inner, int64_t i0, int64_t i1,
                     bool log, T* m, T* s) {
  const int64_t w = i1 - i0;
  std::fill(m, m + w, -std::numeric_limits<T>::infinity());
  std::fill(s, s + w, T(0));
  for (int64_t j = 0; j < n; ++j) {
    const T* xj = x + j * inner + i0;
    for (int64_t i = 0; i < w; ++i) m[i] = nan_max(m[i], xj[i]);
  }
  for (int64_t j = 0; j < n; ++j) {
    const T* xj = x + j * inner + i0;
    T* yj = y + j * inner + i0;
    if (log) {
      for (int64_t i = 0; i < w; ++i) s[i] += std::exp(xj[i] - m[i]);
    } else {
      for (int64_t i = 0; i < w; ++i) {
        yj[i] = std::exp(xj[i] - m[i]);
        s[i] += yj[i];
      }
    }
  }
  if (log) {
    for (int64_t i = 0; i < w; ++i) s[i] = std::log(s[i]);
  } else {
    for (int64_t i = 0; i < w; ++i) s[i] = T(1) / s[i];
  }
  for (int64_t j = 0; j < n; ++j) {
    const T* xj = x + j * inner + i0;
    T* yj = y + j * inner + i0;
    if (log) {
      for (int64_t i = 0; i < w; ++i) yj[i] = (xj[i] - m[i]) - s[i];
    } else {
      for (int64_t i = 0; i < w; ++i) yj[i] *= s[i];
    }
  }
}

template <class T>
void softmax_strided(T* out, const T* in, int64_t outer, int64_t n, int64_t inner, bool log) {
  // Tasks are (outer block, column block) pairs so that a single outer block with many
  // columns still spreads over threads.
  constexpr int64_t kBlock = 256;
  const int64_t col_blocks = (inner + kBlock - 1) / kBlock;
  const int64_t tasks = outer * col_blocks;
  const int64_t per_task = n * std::min(inner, kBlock);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per_task, 1));
  parallel_for(0, tasks, grain, [&](int64_t t0, int64_t t1) {
    std::vector<T> buf(2 * kBlock);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t o = t / col_blocks, c = t % col_blocks;
      const int64_t i0 = c * kBlock, i1 = std::min(inner, i0 + kBlock);
      softmax_columns(out + o * n * inner, in + o * n * inner, n, inner, i0, i1, log,
                      buf.data(), buf.data() + kBlock);
    }
  });
}

template <class T>
void softmax_impl(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  IntArrayRef sizes = in.sizes();
  int64_t outer = 1, inner = 1;
  const int64_t n = sizes.empty() ? 1 : sizes[dim];
  for (int64_t d = 0; d < dim; ++d) outer *= sizes[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(sizes.size()); ++d) inner *= sizes[d];
  if (in.numel() == 0) return;
  if (inner == 1) {
    softmax_rows(out.data_ptr<T>(), in.data_ptr<T>(), outer, n, log);
  } else {
    softmax_strided(out.data_ptr<T>(), in.data_ptr<T>(), outer, n, inner, log);
  }
}

}  // namespace

void CpuBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  NABLA_ASSERT(in.is_contiguous() && out.is_contiguous(), "softmax kernel: contiguous operands");
  switch (in.scalar_type()) {
    case kFloat: return softmax_impl<float>(out, in, dim, log);
    case kDouble: return softmax_impl<double>(out, in, dim, log);
    default: NABLA_CHECK(false, "softmax kernel: float or double expected, got ", in.scalar_type());
  }
}

}  // namespace nabla::cpu
