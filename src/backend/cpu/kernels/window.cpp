// im2col / col2im (the sliding-window copies under convolution and pooling), max pooling
// and its backward. Parallel over (batch, channel) planes: each plane owns its rows of the
// column matrix and its part of the image, so accumulation needs no synchronisation.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/max_pool_avx512.h"
#include "nabla/backend/isa.h"
#include "nabla/backend/parallel.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

// `cols` points at this plane's first row; consecutive (i, j) rows are row_stride apart.
template <class T>
void im2col_plane(T* cols, int64_t row_stride, const T* img, const WindowGeometry& g) {
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      T* row = cols + (i * g.kw + j) * row_stride;
      for (int64_t y = 0; y < g.oh; ++y) {
        T* out = row + y * g.ow;
        const int64_t iy = y * g.sh - g.ph + i * g.dh;
        if (iy < 0 || iy >= g.h) {
          std::fill(out, out + g.ow, T(0));
          continue;
        }
        const T* src = img + iy * g.w;
        const int64_t x0 = j * g.dw - g.pw;  // image column of window position 0
        if (g.sw == 1) {
          // x in [lo, hi) reads inside the image: one contiguous copy, zeros around it.
          const int64_t lo = std::clamp<int64_t>(-x0, 0, g.ow),
                        hi = std::clamp<int64_t>(g.w - x0, lo, g.ow);
          std::fill(out, out + lo, T(0));
          std::memcpy(out + lo, src + x0 + lo, static_cast<size_t>(hi - lo) * sizeof(T));
          std::fill(out + hi, out + g.ow, T(0));
        } else {
          for (int64_t x = 0; x < g.ow; ++x) {
            const int64_t ix = x0 + x * g.sw;
            out[x] = ix >= 0 && ix < g.w ? src[ix] : T(0);
          }
        }
      }
    }
}

template <class T>
void col2im_plane(T* img, const T* cols, int64_t row_stride, const WindowGeometry& g) {
  std::fill(img, img + g.h * g.w, T(0));
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      const T* row = cols + (i * g.kw + j) * row_stride;
      for (int64_t y = 0; y < g.oh; ++y) {
        const int64_t iy = y * g.sh - g.ph + i * g.dh;
        if (iy < 0 || iy >= g.h) continue;
        T* dst = img + iy * g.w;
        const T* in = row + y * g.ow;
        const int64_t x0 = j * g.dw - g.pw;
        if (g.sw == 1) {
          const int64_t lo = std::clamp<int64_t>(-x0, 0, g.ow),
                        hi = std::clamp<int64_t>(g.w - x0, lo, g.ow);
          for (int64_t x = lo; x < hi; ++x) dst[x0 + x] += in[x];
        } else {
          for (int64_t x = 0; x < g.ow; ++x) {
            const int64_t ix = x0 + x * g.sw;
            if (ix >= 0 && ix < g.w) dst[ix] += in[x];
          }
        }
      }
    }
}

// Branch-free update (random data would mispredict a branch half the time): take v when
// it is larger, or NaN while the best is not (NaN wins, then stays); ties keep the first.
template <class T>
inline void consider(T v, int64_t at, T& best, int64_t& best_at) {
  bool take = v > best;
  if constexpr (std::is_floating_point_v<T>) take = take | ((v != v) & (best == best));
  const int64_t mask = -static_cast<int64_t>(take);  // all ones when taking
  best_at = (at & mask) | (best_at & ~mask);
  if constexpr (std::is_floating_point_v<T>) {  // a blend of the bits, as for the index
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    Bits vb, bb;
    std::memcpy(&vb, &v, sizeof(T));
    std::memcpy(&bb, &best, sizeof(T));
    const auto m = static_cast<Bits>(mask);
    bb = (vb & m) | (bb & ~m);
    std::memcpy(&best, &bb, sizeof(T));
  } else {
    best = take ? v : best;
  }
}

// Windows entirely inside the image. The kernel offset is the outer loop and the output
// column the inner one, so consecutive iterations are independent (no dependency chain
// through one running maximum) and the compiler can vectorize across columns. Every
// scalar is a by-value parameter, so it stays in a register.
// 2x2 windows at stride 2 (the common pooling), all inside the image: each output
// compares four values with a branch-free select, so the loop vectorizes. Ties keep the
// first position in window order; NaN wins (as LibTorch).
template <class T>
void max_pool_2x2(T* __restrict values, int64_t* __restrict indices, const T* __restrict img,
                  int64_t w, int64_t oh, int64_t ow) {
  for (int64_t y = 0; y < oh; ++y) {
    const T* r0 = img + 2 * y * w;
    const T* r1 = r0 + w;
    T* out = values + y * ow;
    int64_t* at = indices + y * ow;
    const int64_t base = 2 * y * w;
    for (int64_t x = 0; x < ow; ++x) {
      T best = r0[2 * x];
      int64_t k = 0;
      const T cand[3] = {r0[2 * x + 1], r1[2 * x], r1[2 * x + 1]};
      for (int c = 0; c < 3; ++c) {
        const bool take = cand[c] > best || (cand[c] != cand[c] && best == best);
        best = take ? cand[c] : best;
        k = take ? c + 1 : k;
      }
      out[x] = best;
      at[x] = base + 2 * x + (k & 1) + (k >> 1) * w;
    }
  }
}

// kStride > 0 fixes the column stride at compile time (1 and 2, the common ones), which
// turns the strided loads into vector loads and shuffles; 0 reads it from `sw_arg`.
template <class T, int kStride>
void max_pool_interior(T* __restrict values, int64_t* __restrict indices, const T* __restrict img,
                       int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh,
                       int64_t sw_arg, int64_t dh, int64_t dw) {
  const int64_t sw = kStride > 0 ? kStride : sw_arg;
  for (int64_t y = 0; y < oh; ++y) {
    T* best = values + y * ow;
    int64_t* best_at = indices + y * ow;
    const int64_t row0 = y * sh * w;
    for (int64_t x = 0; x < ow; ++x) {
      best[x] = img[row0 + x * sw];
      best_at[x] = row0 + x * sw;
    }
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        if (i == 0 && j == 0) continue;
        const int64_t base = row0 + i * dh * w + j * dw;
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t at = base + x * sw;
          const T v = img[at];
          bool take = v > best[x];
          if constexpr (std::is_floating_point_v<T>)
            take = take | ((v != v) & (best[x] == best[x]));
          best[x] = take ? v : best[x];
          best_at[x] = take ? at : best_at[x];
        }
      }
  }
}

template <class T>
void max_pool_plane(T* values, int64_t* indices, const T* img, const WindowGeometry& geometry) {
  // A local copy: stores through `indices` (int64) could alias the geometry's int64
  // fields, which would make the compiler reload them in every iteration.
  const WindowGeometry g = geometry;
  // Windows entirely inside the image (no padding, no ceil_mode overhang): no bounds checks.
  const bool interior = g.ph == 0 && g.pw == 0 && (g.oh - 1) * g.sh + (g.kh - 1) * g.dh < g.h &&
                        (g.ow - 1) * g.sw + (g.kw - 1) * g.dw < g.w;
  if (interior) {
    if (g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1) {
      if constexpr (std::is_same_v<T, float>) {
        // Positions are built in int32 lanes: planes below 2^31 elements.
        if (active_isa() == Isa::Avx512 && g.h * g.w < (int64_t(1) << 31))
          return max_pool_2x2_avx512(values, indices, img, g.w, g.oh, g.ow);
      }
      return max_pool_2x2(values, indices, img, g.w, g.oh, g.ow);
    }
    if (g.sw == 2)
      return max_pool_interior<T, 2>(values, indices, img, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, 2,
                                     g.dh, g.dw);
    if (g.sw == 1)
      return max_pool_interior<T, 1>(values, indices, img, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, 1,
                                     g.dh, g.dw);
    return max_pool_interior<T, 0>(values, indices, img, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw,
                                   g.dh, g.dw);
  }
  for (int64_t y = 0; y < g.oh; ++y) {
    const int64_t y0 = y * g.sh - g.ph;
    for (int64_t x = 0; x < g.ow; ++x) {
      const int64_t x0 = x * g.sw - g.pw;
      T best;
      int64_t best_at;
      if (interior) {
        best = img[y0 * g.w + x0];
        best_at = y0 * g.w + x0;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t row = (y0 + i * g.dh) * g.w;
          for (int64_t j = 0; j < g.kw; ++j)
            consider(img[row + x0 + j * g.dw], row + x0 + j * g.dw, best, best_at);
        }
      } else {
        best_at = -1;
        best = T(0);
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t iy = y0 + i * g.dh;
          if (iy < 0 || iy >= g.h) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t ix = x0 + j * g.dw;
            if (ix < 0 || ix >= g.w) continue;
            if (best_at < 0) {
              best = img[iy * g.w + ix];
              best_at = iy * g.w + ix;
            } else {
              consider(img[iy * g.w + ix], iy * g.w + ix, best, best_at);
            }
          }
        }
      }
      values[y * g.ow + x] = best;
      indices[y * g.ow + x] = best_at;
    }
  }
}

template <class F>
void for_each_plane(int64_t planes, int64_t plane_work, F&& body) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane_work, 1));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) body(p);
  });
}

// Calls body(image plane, its first row of cols, cols' row stride) for every plane of a
// floating `image` [B, C, h, w]. Plane p = (b, c) owns rows c * kh * kw ... of batch b of
// `cols`: its first row is at b * stride(0) + c * kh * kw * stride(1).
template <class F>
void for_each_window_plane(const char* kernel, const Tensor& cols, const Tensor& image,
                           const WindowGeometry& g, F&& body) {
  const int64_t channels = image.size(1), planes = image.size(0) * channels;
  const int64_t k = g.kh * g.kw, work = k * g.oh * g.ow;
  const int64_t s0 = cols.stride(0), s1 = cols.stride(1);
  NABLA_ASSERT(cols.stride(2) == 1, kernel, ": the last dim of cols must be contiguous");
  dispatch_all(image.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T* c = cols.data_ptr<T>();
      T* im = image.data_ptr<T>();
      for_each_plane(planes, work, [&](int64_t p) {
        body(im + p * g.h * g.w, c + (p / channels) * s0 + (p % channels) * k * s1, s1);
      });
    } else {
      NABLA_CHECK(false, kernel, ": floating tensors only, got ", image.scalar_type());
    }
  });
}

}  // namespace

void CpuBackend::im2col(const Tensor& cols, const Tensor& image, const WindowGeometry& g) {
  for_each_window_plane("im2col", cols, image, g,
                        [&](auto* im, auto* c, int64_t s1) { im2col_plane(c, s1, im, g); });
}

void CpuBackend::col2im(const Tensor& image, const Tensor& cols, const WindowGeometry& g) {
  for_each_window_plane("col2im", cols, image, g,
                        [&](auto* im, auto* c, int64_t s1) { col2im_plane(im, c, s1, g); });
}

void CpuBackend::max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& image,
                            const WindowGeometry& g) {
  const int64_t planes = image.size(0) * image.size(1);
  dispatch_all(image.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // The dtypes the op refuses (window/pooling.cpp): not instantiated.
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
                  std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>) {
      NABLA_CHECK(false, "max_pool2d: unsupported dtype ", image.scalar_type());
    } else {
      T* v = values.data_ptr<T>();
      int64_t* ix = indices.data_ptr<int64_t>();
      const T* im = image.data_ptr<T>();
      const int64_t out = g.oh * g.ow;
      for_each_plane(planes, out * g.kh * g.kw, [&](int64_t p) {
        max_pool_plane(v + p * out, ix + p * out, im + p * g.h * g.w, g);
      });
    }
  });
}

// Plane by plane, so that the zeroing and the scatter of one plane meet in cache: one
// pass over memory, as if each element were written once.
void CpuBackend::max_pool2d_backward(const Tensor& grad_image, const Tensor& grad_out,
                                     const Tensor& indices) {
  NABLA_ASSERT(grad_image.is_contiguous() && grad_out.is_contiguous() && indices.is_contiguous() &&
                   grad_image.dim() >= 2 && grad_out.sizes() == indices.sizes(),
               "max_pool2d_backward kernel: contiguous operands, grad_out shaped as indices");
  const int64_t plane = grad_image.size(-1) * grad_image.size(-2);
  const int64_t out = grad_out.dim() >= 2 ? grad_out.size(-1) * grad_out.size(-2) : 1;
  const int64_t planes = plane > 0 ? grad_image.numel() / plane : 0;
  dispatch_floating(grad_image.scalar_type(), "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* gi = grad_image.data_ptr<T>();
    const T* go = grad_out.data_ptr<T>();
    const int64_t* ix = indices.data_ptr<int64_t>();
    for_each_plane(planes, plane + out, [&](int64_t p) {
      T* dst = gi + p * plane;
      std::fill(dst, dst + plane, T(0));
      for (int64_t j = p * out, e = j + out; j < e; ++j) dst[ix[j]] += go[j];
    });
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
