// Normalization kernels: softmax / log_softmax and their backward along one dim of a
// contiguous [outer, n, inner] view, and, over contiguous [N, C, S] views, per-channel
// moments, the channel affine map, and the backward passes of group/layer norm and batch
// norm. The formulas and accumulation types follow the CPU kernels
// (src/backend/cpu/kernels/softmax.cpp, norm.cpp): softmax accumulates in the dtype, the
// norms in double.
//
// Note [CUDA slot reductions]
// Each reduction here sums, for many "slots" (a softmax column, a channel, a group), a
// sequence of elements. A block of 256 threads is bx slots by `by` lanes; lane y of a slot
// takes elements y, y + by, ..., and the lanes meet in a shared-memory tree. The lanes
// move fastest across threads when a slot's elements are contiguous (a warp reads one
// run), the slots when neighbouring slots are neighbours in memory (softmax over a
// non-last dim, channels of an [N, C] tensor). Per-channel sums over N * S elements split
// the range into chunks (grid.y) when there are few channels; a second kernel adds each
// channel's chunks in order, so results depend only on the shapes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backend/cuda/device_args.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/norm_launch.h"

namespace nabla::cuda_kernels {
namespace {

// ---- Slots and lanes, Note [CUDA slot reductions] -----------------------------------------

/// bx slots by `by` lanes per block (bx * by == kThreads); lane_fast: the lane index moves
/// fastest across threadIdx.x.
struct Layout {
  int bx = 1, by = kThreads;
  bool lane_fast = true;
};

// `slots` sequences of `len` elements each.
Layout make_layout(int64_t slots, int64_t len, bool lane_fast) {
  Layout l;
  l.lane_fast = lane_fast;
  if (lane_fast) {
    l.by = pow2_ceil(len, kThreads);
  } else {
    const int bx = pow2_ceil(slots, 32);
    l.by = pow2_ceil(len, kThreads / bx);
  }
  l.bx = kThreads / l.by;
  return l;
}

__device__ inline void thread_slot(const Layout& l, int* x, int* y) {
  const int t = static_cast<int>(threadIdx.x);
  if (l.lane_fast) {
    *x = t / l.by;
    *y = t % l.by;
  } else {
    *x = t % l.bx;
    *y = t / l.bx;
  }
}

// Combines v over the lanes of slot x with f; every thread of the block calls it, and
// every lane gets the result. sm holds kThreads values.
template <class T, class F>
__device__ inline T lanes_reduce(T v, T* sm, int x, int y, int by, F f) {
  T* mine = sm + x * by;
  mine[y] = v;
  __syncthreads();
  for (int w = by / 2; w > 0; w /= 2) {
    if (y < w) mine[y] = f(mine[y], mine[y + w]);
    __syncthreads();
  }
  const T r = mine[0];
  __syncthreads();  // sm is reused by the next call
  return r;
}

struct Plus {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

// NaN-propagating max, as the CPU's nan_max: a NaN anywhere in a row gives NaN.
struct NanMax {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};

__device__ inline float dev_exp(float x) { return expf(x); }
__device__ inline double dev_exp(double x) { return exp(x); }
__device__ inline float dev_log(float x) { return logf(x); }
__device__ inline double dev_log(double x) { return log(x); }

// ---- softmax ---------------------------------------------------------------------------------

/// [outer, n, inner] walked as outer * inner columns of n elements (stride inner).
struct Columns {
  int64_t n, inner, count;
  __device__ int64_t base(int64_t col) const { return (col / inner) * n * inner + col % inner; }
};

Layout column_layout(const Columns& c) { return make_layout(c.count, c.n, c.inner == 1); }

// Three passes per column: the max, the sum of exp(x - max), the output. A column's
// elements are at k = first, first + step, ... < end.
template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_kernel(Columns c, Layout l, T* out, const T* in, bool log) {
  __shared__ T sm[kThreads];
  int x, y;
  thread_slot(l, &x, &y);
  const int64_t step = l.by * c.inner;
  for (int64_t tile = blockIdx.x; tile * l.bx < c.count; tile += gridDim.x) {
    const int64_t col = tile * l.bx + x;
    const bool valid = col < c.count;
    const int64_t base = valid ? c.base(col) : 0;
    const int64_t first = base + y * c.inner, end = valid ? base + c.n * c.inner : 0;
    T m = -std::numeric_limits<T>::infinity();
    for (int64_t k = first; k < end; k += step) m = NanMax()(m, in[k]);
    m = lanes_reduce(m, sm, x, y, l.by, NanMax());
    T sum = 0;
    for (int64_t k = first; k < end; k += step) sum += dev_exp(in[k] - m);
    sum = lanes_reduce(sum, sm, x, y, l.by, Plus());
    if (log) {
      // (x - m) - log(sum), as on the CPU: x - (m + log(sum)) rounds log(sum) away for
      // large |m|.
      const T lse = dev_log(sum);
      for (int64_t k = first; k < end; k += step) out[k] = (in[k] - m) - lse;
    } else {
      const T inv = T(1) / sum;
      for (int64_t k = first; k < end; k += step) out[k] = dev_exp(in[k] - m) * inv;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_backward_kernel(Columns c, Layout l, T* gi, const T* g, const T* y_out, bool log) {
  __shared__ T sm[kThreads];
  int x, y;
  thread_slot(l, &x, &y);
  const int64_t step = l.by * c.inner;
  for (int64_t tile = blockIdx.x; tile * l.bx < c.count; tile += gridDim.x) {
    const int64_t col = tile * l.bx + x;
    const bool valid = col < c.count;
    const int64_t base = valid ? c.base(col) : 0;
    const int64_t first = base + y * c.inner, end = valid ? base + c.n * c.inner : 0;
    T s = 0;
    if (log) {
      for (int64_t k = first; k < end; k += step) s += g[k];
    } else {
      for (int64_t k = first; k < end; k += step) s += g[k] * y_out[k];
    }
    s = lanes_reduce(s, sm, x, y, l.by, Plus());
    if (log) {
      for (int64_t k = first; k < end; k += step) gi[k] = g[k] - dev_exp(y_out[k]) * s;
    } else {
      for (int64_t k = first; k < end; k += step) gi[k] = y_out[k] * (g[k] - s);
    }
  }
}

// ---- Per-channel sums over N and S -------------------------------------------------------

/// Channel ch of [n, c, s] is the n * s elements (b, ch, k); sums over them in chunks.
struct ChannelPlan {
  int64_t n = 0, c = 0, s = 1, len = 0;
  Layout l;
  int64_t chunks = 1, chunk_len = 1;
  int64_t step_b = 0, step_k = 0;  // a lane's stride `by` as whole strips plus elements
};

ChannelPlan make_channel_plan(int64_t n, int64_t c, int64_t s) {
  ChannelPlan p;
  p.n = n;
  p.c = c;
  p.s = std::max<int64_t>(s, 1);
  p.len = n * s;
  // Strips of 16 or more elements are read along the strip; shorter ones (an [N, C]
  // tensor: s == 1) across channels.
  p.l = make_layout(c, p.len, s >= 16);
  p.chunk_len = std::max<int64_t>(p.len, 1);
  const int64_t blocks = ceil_div(c, p.l.bx);
  if (blocks < kTargetBlocks) {
    const int64_t want = ceil_div(kTargetBlocks, blocks);
    const int64_t most = p.len / (p.l.by * kMinPerThread);
    const int64_t chunks = std::min({want, most, kMaxChunks});
    if (chunks > 1) {
      p.chunk_len = ceil_div(p.len, chunks);
      p.chunks = ceil_div(p.len, p.chunk_len);
    }
  }
  p.step_b = p.l.by / p.s;
  p.step_k = p.l.by % p.s;
  return p;
}

// For each channel, K sums over chunk blockIdx.y of its elements: f.channel(ch) gives a
// per-channel value, f(acc, that, b, offset) adds element (b, ch, k) at `offset`.
// partial[(q * c + ch) * chunks + chunk] = sum q.
template <int K, class F>
__global__ void __launch_bounds__(kThreads)
    channel_sums_kernel(ChannelPlan p, F f, double* partial) {
  __shared__ double sm[K][kThreads];
  int x, y;
  thread_slot(p.l, &x, &y);
  const int64_t j0 = static_cast<int64_t>(blockIdx.y) * p.chunk_len;
  const int64_t j1 = j0 + p.chunk_len < p.len ? j0 + p.chunk_len : p.len;
  for (int64_t tile = blockIdx.x; tile * p.l.bx < p.c; tile += gridDim.x) {
    const int64_t ch = tile * p.l.bx + x;
    double acc[K];
    for (int q = 0; q < K; ++q) acc[q] = 0;
    int64_t j = j0 + y;
    if (ch < p.c && j < j1) {
      const auto per_channel = f.channel(ch);
      int64_t b = j / p.s, k = j - b * p.s;
      for (; j < j1; j += p.l.by) {
        f(acc, per_channel, b, (b * p.c + ch) * p.s + k);
        b += p.step_b;
        k += p.step_k;
        if (k >= p.s) {
          k -= p.s;
          ++b;
        }
      }
    }
    for (int q = 0; q < K; ++q) acc[q] = lanes_reduce(acc[q], sm[q], x, y, p.l.by, Plus());
    if (y == 0 && ch < p.c)
      for (int q = 0; q < K; ++q) partial[(q * p.c + ch) * p.chunks + blockIdx.y] = acc[q];
  }
}

template <int K, class F>
void launch_channel_sums(const ChannelPlan& p, const F& f, double* partial, Stream stream) {
  const dim3 grid(grid_for(ceil_div(p.c, p.l.bx)), static_cast<unsigned>(p.chunks));
  channel_sums_kernel<K><<<grid, kThreads, 0, stream>>>(p, f, partial);
}

// Sum q of channel ch: its chunks added in order.
__device__ inline double channel_total(const double* partial, int64_t q, int64_t c, int64_t ch,
                                       int64_t chunks) {
  const double* p = partial + (q * c + ch) * chunks;
  double s = 0;
  for (int64_t i = 0; i < chunks; ++i) s += p[i];
  return s;
}

// A grid-stride loop over the channels ch < c, one thread each.
#define NABLA_FOR_CHANNELS(ch, c)                                                          \
  for (int64_t ch = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; ch < (c); \
       ch += static_cast<int64_t>(gridDim.x) * blockDim.x)

// ---- moments -------------------------------------------------------------------------------

template <class T>
struct SumOf {
  const T* x;
  __device__ int channel(int64_t) const { return 0; }
  __device__ void operator()(double (&acc)[1], int, int64_t, int64_t off) const {
    acc[0] += static_cast<double>(x[off]);
  }
};

template <class T>
struct SquaredDeviations {
  const T* x;
  const double* mean;
  __device__ double channel(int64_t ch) const { return mean[ch]; }
  __device__ void operator()(double (&acc)[1], double m, int64_t, int64_t off) const {
    const double d = static_cast<double>(x[off]) - m;
    acc[0] += d * d;
  }
};

// mean_d[ch] (double, for the second pass) and mean[ch].
template <class T>
__global__ void moments_mean_kernel(const double* partial, int64_t c, int64_t chunks, double inv,
                                    double* mean_d, T* mean) {
  NABLA_FOR_CHANNELS(ch, c) {
    const double m = channel_total(partial, 0, c, ch, chunks) * inv;
    mean_d[ch] = m;
    mean[ch] = static_cast<T>(m);
  }
}

template <class T>
__global__ void moments_var_kernel(const double* partial, int64_t c, int64_t chunks, double inv,
                                   T* var) {
  NABLA_FOR_CHANNELS(ch, c) {
    var[ch] = static_cast<T>(channel_total(partial, 0, c, ch, chunks) * inv);
  }
}

template <class T>
cudaError_t moments_typed(T* mean, T* var, const T* x, int64_t n, int64_t c, int64_t s,
                          double* scratch, Stream stream) {
  const ChannelPlan p = make_channel_plan(n, c, s);
  double* mean_d = scratch;
  double* partial = scratch + c;
  const int64_t len = n * s;
  const double inv =
      len > 0 ? 1.0 / static_cast<double>(len) : std::numeric_limits<double>::quiet_NaN();
  const unsigned blocks = grid_for(ceil_div(c, kThreads));
  launch_channel_sums<1>(p, SumOf<T>{x}, partial, stream);
  moments_mean_kernel<T><<<blocks, kThreads, 0, stream>>>(partial, c, p.chunks, inv, mean_d, mean);
  launch_channel_sums<1>(p, SquaredDeviations<T>{x, mean_d}, partial, stream);
  moments_var_kernel<T><<<blocks, kThreads, 0, stream>>>(partial, c, p.chunks, inv, var);
  return cudaGetLastError();
}

// ---- Elementwise maps over [N, C, S] ---------------------------------------------------------

// I: a 32-bit index when the tensor is small enough (cheaper divisions).
template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    channel_affine_kernel(T* out, const T* in, const T* center, const T* scale, const T* shift,
                          I total, I c, I s) {
  const I step = static_cast<I>(gridDim.x) * blockDim.x;
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const I ch = (i / s) % c;
    out[i] = (in[i] - center[ch]) * scale[ch] + shift[ch];
  }
}

// Batch norm's input gradient from the per-channel coefficients k1, k2, k3 (doubles that
// hold dtype-rounded values, at coef[ch], coef[c + ch], coef[2c + ch]).
template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    batch_norm_grad_in_kernel(T* gx, const T* go, const T* x, const T* mean, const double* coef,
                              I total, I c, I s, bool training) {
  const I step = static_cast<I>(gridDim.x) * blockDim.x;
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const I ch = (i / s) % c;
    const T k1 = static_cast<T>(coef[ch]);
    if (training) {
      const T k2 = static_cast<T>(coef[c + ch]), k3 = static_cast<T>(coef[2 * c + ch]);
      gx[i] = k1 * go[i] + k2 * (x[i] - mean[ch]) + k3;
    } else {
      // Only go: an inf or NaN of x must not reach gx through 0 * x.
      gx[i] = k1 * go[i];
    }
  }
}

// Runs kernel<T, I> over `total` elements with I = uint32_t when the indices fit.
template <class Launch>
void launch_elementwise(int64_t total, Launch&& launch) {
  const unsigned blocks = grid_for(ceil_div(total, kThreads));
  if (total <= (int64_t(1) << 31))
    launch(blocks, uint32_t{});
  else
    launch(blocks, uint64_t{});
}

// ---- group_norm_backward -------------------------------------------------------------------

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

template <class T>
NormGrad<T> typed(const NormBackwardArgs& a) {
  return {static_cast<T*>(a.grad_in),
          static_cast<T*>(a.grad_weight),
          static_cast<T*>(a.grad_bias),
          static_cast<const T*>(a.grad_out),
          static_cast<const T*>(a.in),
          static_cast<const T*>(a.mean),
          static_cast<const T*>(a.rstd),
          static_cast<const T*>(a.weight),
          a.n,
          a.c,
          a.g,
          a.s};
}

// One slot per (sample, group) row of len = (C / G) * S contiguous elements: the sums of
// gh = go * w[c] and gh * (x - mean) (double), then gx as the CPU's group_rows:
// gx = scale * go + slope * (x - mean) + shift.
template <class T>
__global__ void __launch_bounds__(kThreads)
    group_norm_grad_in_kernel(NormGrad<T> a, Layout l, int64_t step_c, int64_t step_k) {
  __shared__ double sm[kThreads];
  int x, y;
  thread_slot(l, &x, &y);
  const int64_t rows = a.n * a.g, d = a.c / a.g, len = d * a.s;
  for (int64_t tile = blockIdx.x; tile * l.bx < rows; tile += gridDim.x) {
    const int64_t row = tile * l.bx + x;
    const bool valid = row < rows;
    const int64_t base = row * len, c0 = valid ? (row % a.g) * d : 0;
    const double m = valid ? static_cast<double>(a.mean[row]) : 0.0;
    const double r = valid ? static_cast<double>(a.rstd[row]) : 0.0;
    double gh_sum = 0, ghx_sum = 0;
    if (valid && y < len) {
      int64_t jc = y / a.s, k = y - jc * a.s;  // element y is channel c0 + jc, position k
      for (int64_t j = y; j < len; j += l.by) {
        const double w = a.w ? static_cast<double>(a.w[c0 + jc]) : 1.0;
        const double gh = static_cast<double>(a.go[base + j]) * w;
        gh_sum += gh;
        ghx_sum += gh * (static_cast<double>(a.x[base + j]) - m);
        jc += step_c;
        k += step_k;
        if (k >= a.s) {
          k -= a.s;
          ++jc;
        }
      }
    }
    gh_sum = lanes_reduce(gh_sum, sm, x, y, l.by, Plus());
    ghx_sum = lanes_reduce(ghx_sum, sm, x, y, l.by, Plus());
    if (!valid || y >= len) continue;
    const double inv = 1.0 / static_cast<double>(len);
    const T shift = static_cast<T>(-r * gh_sum * inv);
    const T slope = static_cast<T>(-r * r * r * ghx_sum * inv);
    const T mt = static_cast<T>(m), rt = static_cast<T>(r);
    int64_t jc = y / a.s, k = y - jc * a.s;
    for (int64_t j = y; j < len; j += l.by) {
      // Layer norm (S == 1) scales in the dtype, group norm in double, as the CPU does.
      T scale;
      if (a.s == 1)
        scale = a.w ? rt * a.w[c0 + jc] : rt;
      else
        scale = static_cast<T>(r * (a.w ? static_cast<double>(a.w[c0 + jc]) : 1.0));
      a.gx[base + j] = scale * a.go[base + j] + slope * (a.x[base + j] - mt) + shift;
      jc += step_c;
      k += step_k;
      if (k >= a.s) {
        k -= a.s;
        ++jc;
      }
    }
  }
}

// grad_weight's and grad_bias's sums: go * (x - mean) * rstd and go, per channel, with the
// statistics of (b, the channel's group).
template <class T>
struct GroupNormParamSums {
  const T* go;
  const T* x;
  const T* mean;
  const T* rstd;
  int64_t g, d;  // groups, channels per group
  __device__ int64_t channel(int64_t ch) const { return ch / d; }
  __device__ void operator()(double (&acc)[2], int64_t group, int64_t b, int64_t off) const {
    const int64_t row = b * g + group;
    const double gov = static_cast<double>(go[off]);
    const double m = static_cast<double>(mean[row]), r = static_cast<double>(rstd[row]);
    acc[0] += gov * ((static_cast<double>(x[off]) - m) * r);
    acc[1] += gov;
  }
};

template <class T>
__global__ void param_grads_kernel(const double* partial, int64_t c, int64_t chunks, T* gw, T* gb) {
  NABLA_FOR_CHANNELS(ch, c) {
    if (gw) gw[ch] = static_cast<T>(channel_total(partial, 0, c, ch, chunks));
    if (gb) gb[ch] = static_cast<T>(channel_total(partial, 1, c, ch, chunks));
  }
}

template <class T>
cudaError_t group_norm_backward_typed(const NormGrad<T>& a, double* scratch, Stream stream) {
  const int64_t d = a.c / a.g, len = d * a.s, rows = a.n * a.g;
  if (a.gx != nullptr && rows > 0) {
    const Layout l = make_layout(rows, len, true);
    const int64_t s = std::max<int64_t>(a.s, 1);
    group_norm_grad_in_kernel<T>
        <<<grid_for(ceil_div(rows, l.bx)), kThreads, 0, stream>>>(a, l, l.by / s, l.by % s);
  }
  if (a.gw != nullptr || a.gb != nullptr) {
    const ChannelPlan p = make_channel_plan(a.n, a.c, a.s);
    launch_channel_sums<2>(p, GroupNormParamSums<T>{a.go, a.x, a.mean, a.rstd, a.g, d}, scratch,
                           stream);
    param_grads_kernel<T><<<grid_for(ceil_div(a.c, kThreads)), kThreads, 0, stream>>>(
        scratch, a.c, p.chunks, a.gw, a.gb);
  }
  return cudaGetLastError();
}

// ---- batch_norm_backward -------------------------------------------------------------------

// db = sum of go, ds = sum of go * (x - mean[c]).
template <class T>
struct BatchNormSums {
  const T* go;
  const T* x;
  const T* mean;
  __device__ double channel(int64_t ch) const { return static_cast<double>(mean[ch]); }
  __device__ void operator()(double (&acc)[2], double m, int64_t, int64_t off) const {
    const double g = static_cast<double>(go[off]);
    acc[0] += g;
    acc[1] += g * (static_cast<double>(x[off]) - m);
  }
};

// grad_weight, grad_bias and the input gradient's coefficients (batch_norm_backward_impl
// on the CPU): k1 = w r, and in training k2 = -w r^3 ds / M, k3 = -w r db / M.
template <class T>
__global__ void batch_norm_coef_kernel(const double* partial, int64_t c, int64_t chunks,
                                       const T* rstd, const T* w, T* gw, T* gb, double* coef,
                                       double inv_m, bool training) {
  NABLA_FOR_CHANNELS(ch, c) {
    const double db = partial ? channel_total(partial, 0, c, ch, chunks) : 0.0;
    const double ds = partial ? channel_total(partial, 1, c, ch, chunks) : 0.0;
    const double r = static_cast<double>(rstd[ch]);
    if (gw) gw[ch] = static_cast<T>(ds * r);
    if (gb) gb[ch] = static_cast<T>(db);
    if (coef) {
      const double wr = (w ? static_cast<double>(w[ch]) : 1.0) * r;
      coef[ch] = static_cast<T>(wr);
      coef[c + ch] = static_cast<T>(training ? -wr * r * r * ds * inv_m : 0.0);
      coef[2 * c + ch] = static_cast<T>(training ? -wr * db * inv_m : 0.0);
    }
  }
}

// Scratch: the coefficients (3c) then the channel sums' partials.
bool batch_norm_needs_sums(const NormBackwardArgs& a, bool training) {
  return a.grad_weight != nullptr || a.grad_bias != nullptr || (a.grad_in != nullptr && training);
}

template <class T>
cudaError_t batch_norm_backward_typed(const NormGrad<T>& a, bool training, bool sums,
                                      double* scratch, Stream stream) {
  double* coef = a.gx ? scratch : nullptr;
  double* partial = sums ? scratch + 3 * a.c : nullptr;
  const ChannelPlan p = make_channel_plan(a.n, a.c, a.s);
  if (sums) launch_channel_sums<2>(p, BatchNormSums<T>{a.go, a.x, a.mean}, partial, stream);
  const double inv_m = 1.0 / static_cast<double>(a.n * a.s);
  batch_norm_coef_kernel<T><<<grid_for(ceil_div(a.c, kThreads)), kThreads, 0, stream>>>(
      partial, a.c, p.chunks, a.rstd, a.w, a.gw, a.gb, coef, inv_m, training);
  const int64_t total = a.n * a.c * a.s;
  if (a.gx != nullptr && total > 0) {
    launch_elementwise(total, [&](unsigned blocks, auto index) {
      using I = decltype(index);
      batch_norm_grad_in_kernel<T, I>
          <<<blocks, kThreads, 0, stream>>>(a.gx, a.go, a.x, a.mean, coef, static_cast<I>(total),
                                            static_cast<I>(a.c), static_cast<I>(a.s), training);
    });
  }
  return cudaGetLastError();
}

// Calls f(T{}) for float or double.
template <class F>
cudaError_t dispatch_floating(ScalarType t, F&& f) {
  if (t == ScalarType::Float) return f(float{});
  if (t == ScalarType::Double) return f(double{});
  return cudaErrorInvalidValue;
}

#undef NABLA_FOR_CHANNELS

}  // namespace

// ---- Launchers -------------------------------------------------------------------------------

cudaError_t launch_softmax(ScalarType dtype, void* out, const void* in, int64_t outer, int64_t n,
                           int64_t inner, bool log, Stream stream) {
  const Columns c{n, inner, outer * inner};
  if (c.count == 0 || n == 0) return cudaSuccess;
  const Layout l = column_layout(c);
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    softmax_kernel<T><<<grid_for(ceil_div(c.count, l.bx)), kThreads, 0, stream>>>(
        c, l, static_cast<T*>(out), static_cast<const T*>(in), log);
    return cudaGetLastError();
  });
}

cudaError_t launch_softmax_backward(ScalarType dtype, void* grad_in, const void* grad_out,
                                    const void* out, int64_t outer, int64_t n, int64_t inner,
                                    bool log, Stream stream) {
  const Columns c{n, inner, outer * inner};
  if (c.count == 0 || n == 0) return cudaSuccess;
  const Layout l = column_layout(c);
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    softmax_backward_kernel<T><<<grid_for(ceil_div(c.count, l.bx)), kThreads, 0, stream>>>(
        c, l, static_cast<T*>(grad_in), static_cast<const T*>(grad_out), static_cast<const T*>(out),
        log);
    return cudaGetLastError();
  });
}

int64_t moments_scratch(int64_t n, int64_t c, int64_t s) {
  return c + c * make_channel_plan(n, c, s).chunks;
}

cudaError_t launch_moments(ScalarType dtype, void* mean, void* var, const void* in, int64_t n,
                           int64_t c, int64_t s, double* scratch, Stream stream) {
  if (c == 0) return cudaSuccess;
  if (scratch == nullptr) return cudaErrorInvalidValue;
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    return moments_typed(static_cast<T*>(mean), static_cast<T*>(var), static_cast<const T*>(in), n,
                         c, s, scratch, stream);
  });
}

cudaError_t launch_channel_affine(ScalarType dtype, void* out, const void* in, const void* center,
                                  const void* scale, const void* shift, int64_t n, int64_t c,
                                  int64_t s, Stream stream) {
  const int64_t total = n * c * s;
  if (total == 0) return cudaSuccess;
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_elementwise(total, [&](unsigned blocks, auto index) {
      using I = decltype(index);
      channel_affine_kernel<T, I><<<blocks, kThreads, 0, stream>>>(
          static_cast<T*>(out), static_cast<const T*>(in), static_cast<const T*>(center),
          static_cast<const T*>(scale), static_cast<const T*>(shift), static_cast<I>(total),
          static_cast<I>(c), static_cast<I>(s));
    });
    return cudaGetLastError();
  });
}

int64_t group_norm_backward_scratch(const NormBackwardArgs& a) {
  if (a.grad_weight == nullptr && a.grad_bias == nullptr) return 0;
  return 2 * a.c * make_channel_plan(a.n, a.c, a.s).chunks;
}

cudaError_t launch_group_norm_backward(const NormBackwardArgs& a, double* scratch, Stream stream) {
  if (a.c == 0 || a.g <= 0) return cudaSuccess;
  if (group_norm_backward_scratch(a) > 0 && scratch == nullptr) return cudaErrorInvalidValue;
  return dispatch_floating(a.dtype, [&](auto tag) {
    return group_norm_backward_typed(typed<decltype(tag)>(a), scratch, stream);
  });
}

int64_t batch_norm_backward_scratch(const NormBackwardArgs& a, bool training) {
  const int64_t sums =
      batch_norm_needs_sums(a, training) ? 2 * a.c * make_channel_plan(a.n, a.c, a.s).chunks : 0;
  return 3 * a.c + sums;
}

cudaError_t launch_batch_norm_backward(const NormBackwardArgs& a, bool training, double* scratch,
                                       Stream stream) {
  if (a.c == 0) return cudaSuccess;
  if (scratch == nullptr) return cudaErrorInvalidValue;
  const bool sums = batch_norm_needs_sums(a, training);
  return dispatch_floating(a.dtype, [&](auto tag) {
    return batch_norm_backward_typed(typed<decltype(tag)>(a), training, sums, scratch, stream);
  });
}

}  // namespace nabla::cuda_kernels
