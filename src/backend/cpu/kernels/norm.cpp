// Normalization kernels over a contiguous [N, C, S] view: per-channel moments (batch
// norm: N batches of S-element strips per channel; layer/group norm: N = 1, one row per
// "channel"), a per-channel centre-scale-shift map, and the fused backward passes of
// group/layer norm and batch norm. All run in parallel over channel blocks or rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vec_math.h"
#include "nabla/backend/parallel.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

// Sum of f(i) for i < n with 8 independent double lanes, so the compiler can vectorize
// the reduction (a single accumulator is a serial dependency chain).
template <class F>
NABLA_VEC_INLINE double strip_reduce(int64_t n, F f) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += f(i + k);
  double s = 0;
  for (; i < n; ++i) s += f(i);
  for (int k = 0; k < 8; ++k) s += acc[k];
  return s;
}

template <class T>
double strip_sum(const T* p, int64_t n) {
  return strip_reduce(n, [p](int64_t i) { return static_cast<double>(p[i]); });
}

template <class T>
double strip_sq_dev(const T* p, int64_t n, double m) {
  return strip_reduce(n, [p, m](int64_t i) {
    const double d = static_cast<double>(p[i]) - m;
    return d * d;
  });
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
      for (int64_t ch = c0; ch < c1; ++ch)
        q[ch - c0] += strip_sq_dev(x + (b * c + ch) * s, s, m[ch - c0]);
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
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t b = b0; b < b1; ++b) {
                     const T* xi = x + b * c;
                     T* yo = out + b * c;
                     for (int64_t ch = 0; ch < c; ++ch)
                       yo[ch] = (xi[ch] - center[ch]) * scale[ch] + shift[ch];
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

// Sum of a[i] * b[i] (b == nullptr: of a[i]), as strip_sum.
template <class T>
double strip_dot(const T* a, const T* b, int64_t n) {
  if (b == nullptr) return strip_sum(a, n);
  return strip_reduce(
      n, [a, b](int64_t i) { return static_cast<double>(a[i]) * static_cast<double>(b[i]); });
}

// Operands of group_norm_backward as pointers (null: output not wanted / no weight).
template <class T>
struct NormGrad {
  T* gx;
  T* gw;
  T* gb;
  const T* go;
  const T* x;
  const T* mean;
  const T* rstd;
  const T* w;
  int64_t n, c, g, s;
};

// With xhat = (x - m) r, gh = go w[c] and L elements per group, the input gradient is
// r w[c] go - r^2 (x - m) sum(gh xhat)/(L r) - r sum(gh)/L: per group two sums, then one
// pass linear in (go, x - m). Sums run in double.
template <class T>
void group_rows(const NormGrad<T>& a, int64_t row, const double* gh_sum, const double* ghx_sum) {
  // row = n * G + group; gh_sum/ghx_sum: sum(gh) and sum(gh (x - m)) over the group.
  const int64_t d = a.c / a.g, len = d * a.s;
  const double m = a.mean[row], r = a.rstd[row];
  const double inv = len > 0 ? 1.0 / static_cast<double>(len) : 0.0;
  const T shift = static_cast<T>(-r * *gh_sum * inv);
  const T slope = static_cast<T>(-r * r * r * *ghx_sum * inv);
  const T mt = static_cast<T>(m);
  const int64_t c0 = (row % a.g) * d;
  const T* go = a.go + row * len;
  const T* x = a.x + row * len;
  T* gx = a.gx + row * len;
  if (a.s == 1) {  // layer norm: the weight varies along the row
    const T rt = static_cast<T>(r);
    const T* w = a.w ? a.w + c0 : nullptr;
    if (w)
      for (int64_t j = 0; j < d; ++j) gx[j] = (rt * w[j]) * go[j] + slope * (x[j] - mt) + shift;
    else
      for (int64_t j = 0; j < d; ++j) gx[j] = rt * go[j] + slope * (x[j] - mt) + shift;
    return;
  }
  for (int64_t j = 0; j < d; ++j) {
    const T scale = static_cast<T>(r * (a.w ? static_cast<double>(a.w[c0 + j]) : 1.0));
    const T* goj = go + j * a.s;
    const T* xj = x + j * a.s;
    T* gxj = gx + j * a.s;
    for (int64_t k = 0; k < a.s; ++k) gxj[k] = scale * goj[k] + slope * (xj[k] - mt) + shift;
  }
}

// Layer-norm shape (S == 1): each row is G contiguous segments; the weight varies along
// the row. Pass 1 over rows: sums and the input gradient; pass 2 over column blocks:
// weight and bias gradients.
template <class T>
void norm_backward_rows(const NormGrad<T>& a) {
  const int64_t d = a.c / a.g, rows = a.n * a.g;
  if (a.gx != nullptr) {
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d, 1)),
                 [&](int64_t r0, int64_t r1) {
                   std::vector<T> centered(static_cast<size_t>(d));
                   for (int64_t row = r0; row < r1; ++row) {
                     const T* go = a.go + row * d;
                     const T* x = a.x + row * d;
                     const T* w = a.w ? a.w + (row % a.g) * d : nullptr;
                     const T mt = static_cast<T>(a.mean[row]);
                     double gh_sum = 0, ghx_sum = 0;
                     if (w) {
                       std::vector<T>& gh = centered;  // reused: go * w first, then (x - m)
                       for (int64_t j = 0; j < d; ++j) gh[j] = go[j] * w[j];
                       gh_sum = strip_sum(gh.data(), d);
                       for (int64_t j = 0; j < d; ++j) gh[j] *= x[j] - mt;
                       ghx_sum = strip_sum(gh.data(), d);
                     } else {
                       gh_sum = strip_sum(go, d);
                       for (int64_t j = 0; j < d; ++j) centered[j] = x[j] - mt;
                       ghx_sum = strip_dot(go, centered.data(), d);
                     }
                     group_rows(a, row, &gh_sum, &ghx_sum);
                   }
                 });
  }
  if (a.gw == nullptr && a.gb == nullptr) return;
  // Column blocks of 64: each thread sums its columns down all rows.
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (a.c + kBlock - 1) / kBlock;
  parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(a.n * kBlock, 1)),
               [&](int64_t b0, int64_t b1) {
                 double sw[kBlock], sb[kBlock];
                 for (int64_t blk = b0; blk < b1; ++blk) {
                   const int64_t c0 = blk * kBlock, c1 = std::min(a.c, c0 + kBlock);
                   std::fill(sw, sw + kBlock, 0.0);
                   std::fill(sb, sb + kBlock, 0.0);
                   for (int64_t i = 0; i < a.n; ++i) {
                     const T* go = a.go + i * a.c;
                     const T* x = a.x + i * a.c;
                     // The block's columns group by group, each a loop with its statistics fixed.
                     for (int64_t lo = c0; lo < c1;) {
                       const int64_t group = lo / d, hi = std::min(c1, (group + 1) * d);
                       const double m = a.mean[i * a.g + group], r = a.rstd[i * a.g + group];
                       for (int64_t ch = lo; ch < hi; ++ch) {
                         const double gov = static_cast<double>(go[ch]);
                         sw[ch - c0] += gov * ((static_cast<double>(x[ch]) - m) * r);
                         sb[ch - c0] += gov;
                       }
                       lo = hi;
                     }
                   }
                   for (int64_t ch = c0; ch < c1; ++ch) {
                     if (a.gw) a.gw[ch] = static_cast<T>(sw[ch - c0]);
                     if (a.gb) a.gb[ch] = static_cast<T>(sb[ch - c0]);
                   }
                 }
               });
}

// Group-norm shape (S > 1): per (n, c) strip sums of go and go x, then per group.
template <class T>
void norm_backward_strips(const NormGrad<T>& a) {
  const int64_t d = a.c / a.g, strips = a.n * a.c;
  std::vector<double> db(static_cast<size_t>(strips)), ds(static_cast<size_t>(strips));
  parallel_for(0, strips, std::max<int64_t>(1, kGrainSize / a.s), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      db[i] = strip_sum(a.go + i * a.s, a.s);
      ds[i] = strip_dot(a.go + i * a.s, a.x + i * a.s, a.s);
    }
  });
  const int64_t rows = a.n * a.g;
  if (a.gx != nullptr) {
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d * a.s, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t row = r0; row < r1; ++row) {
                     const double m = a.mean[row];
                     double gh_sum = 0, ghx_sum = 0;
                     for (int64_t j = 0; j < d; ++j) {
                       const int64_t ch = (row % a.g) * d + j, i = (row / a.g) * a.c + ch;
                       const double w = a.w ? static_cast<double>(a.w[ch]) : 1.0;
                       gh_sum += w * db[i];
                       ghx_sum += w * (ds[i] - m * db[i]);
                     }
                     group_rows(a, row, &gh_sum, &ghx_sum);
                   }
                 });
  }
  for (int64_t ch = 0; ch < a.c; ++ch) {
    double sw = 0, sb = 0;
    for (int64_t i = 0; i < a.n; ++i) {
      const int64_t row = i * a.g + ch / d, k = i * a.c + ch;
      sw += (ds[k] - a.mean[row] * db[k]) * a.rstd[row];
      sb += db[k];
    }
    if (a.gw) a.gw[ch] = static_cast<T>(sw);
    if (a.gb) a.gb[ch] = static_cast<T>(sb);
  }
}

// Batch norm: statistics per channel over N and S. Per channel db = sum(go) and
// ds = sum(go (x - m)) (double), then one pass gx = k1[c] go + k2[c] (x - m[c]) + k3[c]
// with k1 = w r, and in training k2 = -w r^3 ds / M, k3 = -w r db / M (M = N S): the
// same gradient as group norm's, with the statistics' dims swapped.
template <class T>
void batch_norm_backward_impl(const NormGrad<T>& a, bool training) {
  const int64_t C = a.c, S = a.s;
  std::vector<double> db(static_cast<size_t>(C)), ds(static_cast<size_t>(C));
  if (S == 1) {
    // [N, C]: blocks of channels, rows summed into per-channel lanes (vector across c).
    constexpr int64_t kBlock = 64;
    const int64_t blocks = (C + kBlock - 1) / kBlock;
    parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(a.n * kBlock, 1)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t blk = b0; blk < b1; ++blk) {
                     const int64_t c0 = blk * kBlock, w = std::min(C, c0 + kBlock) - c0;
                     double sb[kBlock] = {}, sd[kBlock] = {};
                     for (int64_t i = 0; i < a.n; ++i) {
                       const T* go = a.go + i * C + c0;
                       const T* x = a.x + i * C + c0;
                       for (int64_t j = 0; j < w; ++j) {
                         const double g = static_cast<double>(go[j]);
                         sb[j] += g;
                         sd[j] +=
                             g * (static_cast<double>(x[j]) - static_cast<double>(a.mean[c0 + j]));
                       }
                     }
                     std::copy(sb, sb + w, db.begin() + c0);
                     std::copy(sd, sd + w, ds.begin() + c0);
                   }
                 });
  } else {
    parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(a.n * S, 1)),
                 [&](int64_t c0, int64_t c1) {
                   for (int64_t ch = c0; ch < c1; ++ch) {
                     const double m = a.mean[ch];
                     double sb = 0, sd = 0;
                     for (int64_t i = 0; i < a.n; ++i) {
                       const T* go = a.go + (i * C + ch) * S;
                       const T* x = a.x + (i * C + ch) * S;
                       sb += strip_sum(go, S);
                       sd += strip_reduce(S, [go, x, m](int64_t k) {
                         return static_cast<double>(go[k]) * (static_cast<double>(x[k]) - m);
                       });
                     }
                     db[ch] = sb;
                     ds[ch] = sd;
                   }
                 });
  }
  for (int64_t ch = 0; ch < C; ++ch) {
    if (a.gw) a.gw[ch] = static_cast<T>(ds[ch] * a.rstd[ch]);
    if (a.gb) a.gb[ch] = static_cast<T>(db[ch]);
  }
  if (a.gx == nullptr) return;
  const double inv_m = 1.0 / static_cast<double>(a.n * S);
  std::vector<T> k1(static_cast<size_t>(C)), k2(static_cast<size_t>(C)), k3(static_cast<size_t>(C));
  for (int64_t ch = 0; ch < C; ++ch) {
    const double r = a.rstd[ch], wr = (a.w ? static_cast<double>(a.w[ch]) : 1.0) * r;
    k1[ch] = static_cast<T>(wr);
    k2[ch] = static_cast<T>(training ? -wr * r * r * ds[ch] * inv_m : 0.0);
    k3[ch] = static_cast<T>(training ? -wr * db[ch] * inv_m : 0.0);
  }
  // Evaluation mode reads only go (an inf or NaN of x must not reach gx through 0 * x).
  auto row = [&](T* gx, const T* go, const T* x, const T* m, const T* c1, const T* c2, const T* c3,
                 int64_t len, bool per_element) {
    if (!training) {
      if (per_element)
        for (int64_t k = 0; k < len; ++k) gx[k] = c1[k] * go[k];
      else
        for (int64_t k = 0; k < len; ++k) gx[k] = c1[0] * go[k];
    } else if (per_element) {
      for (int64_t k = 0; k < len; ++k) gx[k] = c1[k] * go[k] + c2[k] * (x[k] - m[k]) + c3[k];
    } else {
      for (int64_t k = 0; k < len; ++k) gx[k] = c1[0] * go[k] + c2[0] * (x[k] - m[0]) + c3[0];
    }
  };
  if (S == 1) {
    parallel_for(0, a.n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(C, 1)),
                 [&](int64_t i0, int64_t i1) {
                   for (int64_t i = i0; i < i1; ++i)
                     row(a.gx + i * C, a.go + i * C, a.x + i * C, a.mean, k1.data(), k2.data(),
                         k3.data(), C, true);
                 });
    return;
  }
  parallel_for(0, a.n * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t ch = r % C;
      row(a.gx + r * S, a.go + r * S, a.x + r * S, a.mean + ch, &k1[ch], &k2[ch], &k3[ch], S,
          false);
    }
  });
}

template <class T>
T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// The kernels' view of the operands of group_norm_backward and batch_norm_backward
// (undefined gradients and weight become null pointers).
struct NormOperands {
  const Tensor &grad_in, &grad_weight, &grad_bias, &grad_out, &in, &mean, &rstd, &weight;
  void check_contiguous(const char* kernel) const {
    for (const Tensor* t :
         {&grad_in, &grad_weight, &grad_bias, &grad_out, &in, &mean, &rstd, &weight})
      NABLA_ASSERT(!t->defined() || t->is_contiguous(), kernel, " kernel: contiguous operands");
  }
  template <class T>
  NormGrad<T> as(int64_t n, int64_t c, int64_t g, int64_t s) const {
    return {ptr_or_null<T>(grad_in),
            ptr_or_null<T>(grad_weight),
            ptr_or_null<T>(grad_bias),
            grad_out.data_ptr<T>(),
            in.data_ptr<T>(),
            mean.data_ptr<T>(),
            rstd.data_ptr<T>(),
            ptr_or_null<T>(weight),
            n,
            c,
            g,
            s};
  }
};

}  // namespace

void CpuBackend::group_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                     const Tensor& grad_bias, const Tensor& grad_out,
                                     const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& weight, int64_t n, int64_t c, int64_t g,
                                     int64_t s) {
  const NormOperands operands{grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight};
  operands.check_contiguous("group_norm_backward");
  NABLA_ASSERT(g > 0 && c % g == 0, "group_norm_backward kernel: C divisible by G");
  dispatch_floating(in.scalar_type(), "group_norm_backward", [&](auto tag) {
    const auto a = operands.as<typename decltype(tag)::type>(n, c, g, s);
    if (s == 1)
      norm_backward_rows(a);
    else
      norm_backward_strips(a);
  });
}

void CpuBackend::batch_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                     const Tensor& grad_bias, const Tensor& grad_out,
                                     const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& weight, int64_t n, int64_t c, int64_t s,
                                     bool training) {
  const NormOperands operands{grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight};
  operands.check_contiguous("batch_norm_backward");
  dispatch_floating(in.scalar_type(), "batch_norm_backward", [&](auto tag) {
    batch_norm_backward_impl(operands.as<typename decltype(tag)::type>(n, c, 1, s), training);
  });
}

void CpuBackend::moments(const Tensor& mean, const Tensor& var, const Tensor& in, int64_t n,
                         int64_t c, int64_t s) {
  NABLA_ASSERT(in.is_contiguous() && mean.is_contiguous() && var.is_contiguous(),
               "moments kernel: contiguous operands");
  dispatch_floating(in.scalar_type(), "moments", [&](auto tag) {
    using T = typename decltype(tag)::type;
    moments_impl(mean.data_ptr<T>(), var.data_ptr<T>(), in.data_ptr<T>(), n, c, s);
  });
}

void CpuBackend::channel_affine(const Tensor& out, const Tensor& in, const Tensor& center,
                                const Tensor& scale, const Tensor& shift, int64_t n, int64_t c,
                                int64_t s) {
  NABLA_ASSERT(in.is_contiguous() && out.is_contiguous() && center.is_contiguous() &&
                   scale.is_contiguous() && shift.is_contiguous(),
               "channel_affine kernel: contiguous operands");
  dispatch_floating(in.scalar_type(), "channel_affine", [&](auto tag) {
    using T = typename decltype(tag)::type;
    affine_impl(out.data_ptr<T>(), in.data_ptr<T>(), center.data_ptr<T>(), scale.data_ptr<T>(),
                shift.data_ptr<T>(), n, c, s);
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
