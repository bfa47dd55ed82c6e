// Softmax / log_softmax along one dim of a contiguous tensor viewed as [outer, n, inner].
// inner == 1 (the last dim, the common case) runs one row at a time: max, then the sum
// of exp(x - max) (written to out on the way), then a scaling pass — every pass over a
// contiguous row, so the compiler vectorizes them. Other dims keep per-column
// running max / sum vectors of length `inner` and sweep the n planes, again contiguous.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/row_reduce.h"
#include "backend/cpu/vec_math.h"
#include "nabla/backend/parallel.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

template <class T>
void softmax_rows(T* out, const T* in, int64_t rows, int64_t n, bool log) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* x = in + r * n;
      T* y = out + r * n;
      const T m = lane_max(x, n);
      // exp(x - m) goes to y (log_softmax overwrites it) while it is summed.
      const T sum = lane_sum(x, n, [&](T v, int64_t j) { return y[j] = vec_exp(v - m); });
      if (log) {
        // (x - m) - log(sum), not x - (m + log(sum)): the latter rounds log(sum) away
        // when |m| is large.
        const T lse = std::log(sum);
        for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m) - lse;
      } else {
        const T inv = T(1) / sum;
        for (int64_t j = 0; j < n; ++j) y[j] *= inv;
      }
    }
  });
}

// Columns [i0, i1) of one outer block: x[j * inner + i] for j < n.
template <class T>
void softmax_columns(T* y, const T* x, int64_t n, int64_t inner, int64_t i0, int64_t i1, bool log,
                     T* m, T* s) {
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
    // Column sums: each s[i] is its own accumulator, so this vectorizes across i.
    for (int64_t i = 0; i < w; ++i) {
      yj[i] = vec_exp(xj[i] - m[i]);
      s[i] += yj[i];
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
      softmax_columns(out + o * n * inner, in + o * n * inner, n, inner, i0, i1, log, buf.data(),
                      buf.data() + kBlock);
    }
  });
}

// A tensor of `sizes` seen as [outer, n, inner] around `dim` (n = 1 for a 0-d tensor).
struct AroundDim {
  int64_t outer = 1, n = 1, inner = 1;
};
AroundDim around_dim(IntArrayRef sizes, int64_t dim) {
  AroundDim a;
  if (!sizes.empty()) a.n = sizes[dim];
  for (int64_t d = 0; d < dim; ++d) a.outer *= sizes[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(sizes.size()); ++d) a.inner *= sizes[d];
  return a;
}

template <class T>
void softmax_impl(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  if (in.numel() == 0) return;
  const auto [outer, n, inner] = around_dim(in.sizes(), dim);
  if (inner == 1) {
    softmax_rows(out.data_ptr<T>(), in.data_ptr<T>(), outer, n, log);
  } else {
    softmax_strided(out.data_ptr<T>(), in.data_ptr<T>(), outer, n, inner, log);
  }
}

// Backward over [outer, n, inner]: per (outer, column) the sum over n of g * y (softmax)
// or of g (log_softmax), then one elementwise pass. inner == 1 is the contiguous-row case.
template <class T>
void softmax_backward_impl(T* gi, const T* g, const T* y, int64_t outer, int64_t n, int64_t inner,
                           bool log) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * inner, 1));
  parallel_for(0, outer, grain, [&](int64_t o0, int64_t o1) {
    std::vector<T> s(static_cast<size_t>(inner));
    for (int64_t o = o0; o < o1; ++o) {
      const T* go = g + o * n * inner;
      const T* yo = y + o * n * inner;
      T* gio = gi + o * n * inner;
      if (inner == 1) {
        T acc = 0;
        if (log) {
          acc = lane_sum(go, n, [](T v, int64_t) { return v; });
          for (int64_t j = 0; j < n; ++j) gio[j] = go[j] - vec_exp(yo[j]) * acc;
        } else {
          acc = lane_sum(go, n, [&](T v, int64_t j) { return v * yo[j]; });
          for (int64_t j = 0; j < n; ++j) gio[j] = yo[j] * (go[j] - acc);
        }
        continue;
      }
      std::fill(s.begin(), s.end(), T(0));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < inner; ++i)
          s[i] += log ? go[j * inner + i] : go[j * inner + i] * yo[j * inner + i];
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t k = j * inner + i;
          gio[k] = log ? go[k] - vec_exp(yo[k]) * s[i] : yo[k] * (go[k] - s[i]);
        }
    }
  });
}

template <class T>
void softmax_backward_dispatch(const Tensor& gi, const Tensor& g, const Tensor& y, int64_t dim,
                               bool log) {
  if (y.numel() == 0) return;
  const auto [outer, n, inner] = around_dim(y.sizes(), dim);
  softmax_backward_impl(gi.data_ptr<T>(), g.data_ptr<T>(), y.data_ptr<T>(), outer, n, inner, log);
}

}  // namespace

void CpuBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                  int64_t dim, bool log) {
  NABLA_ASSERT(grad_in.is_contiguous() && grad_out.is_contiguous() && out.is_contiguous(),
               "softmax_backward kernel: contiguous operands");
  dispatch_floating(out.scalar_type(), "softmax_backward", [&](auto tag) {
    softmax_backward_dispatch<typename decltype(tag)::type>(grad_in, grad_out, out, dim, log);
  });
}

void CpuBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  NABLA_ASSERT(in.is_contiguous() && out.is_contiguous(), "softmax kernel: contiguous operands");
  dispatch_floating(in.scalar_type(), "softmax", [&](auto tag) {
    softmax_impl<typename decltype(tag)::type>(out, in, dim, log);
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
