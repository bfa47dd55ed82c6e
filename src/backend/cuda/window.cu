// Sliding-window kernels: im2col, col2im, max pooling and its backward. Each thread owns one
// output element, so the results need no synchronisation, except max pooling's backward
// (indices may repeat, and the geometry is not known there): atomic adds.
//
// col2im is a gather: each image element sums its column entries itself, in the CPU's
// order (kernel row, then kernel column), so it is deterministic and bit-identical to the
// CPU's scatter form.
//
// Index arithmetic runs in int32 when every offset fits (the integer divisions dominate
// these kernels, and 64-bit ones cost several times more), else in int64.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backend/cuda/launch.cuh"
#include "backend/cuda/window_launch.h"

namespace nabla::cuda_kernels {
namespace {

/// WindowGeometry in the index type I.
template <class I>
struct Geometry {
  I h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};

template <class I>
Geometry<I> geometry_as(const WindowGeometry& g) {
  return {static_cast<I>(g.h),  static_cast<I>(g.w),  static_cast<I>(g.kh), static_cast<I>(g.kw),
          static_cast<I>(g.sh), static_cast<I>(g.sw), static_cast<I>(g.ph), static_cast<I>(g.pw),
          static_cast<I>(g.dh), static_cast<I>(g.dw), static_cast<I>(g.oh), static_cast<I>(g.ow)};
}

// Whether int32 holds every offset below `bound` (and the geometry's intermediate values,
// which stay below the image and column extents plus the padding).
bool fits_int32(int64_t bound, const WindowGeometry& g) {
  constexpr int64_t kLimit = std::numeric_limits<int32_t>::max() / 2;
  return bound < kLimit && (g.h + g.ph) * g.w < kLimit && (g.w + g.pw) * g.h < kLimit &&
         g.oh * g.sh + g.kh * g.dh < kLimit && g.ow * g.sw + g.kw * g.dw < kLimit;
}

__device__ __forceinline__ int64_t first_item() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t item_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// One thread per cols element (b, c, i, j, y, x), x fastest: the writes coalesce.
template <class T, class I>
__global__ void im2col_kernel(T* __restrict__ cols, I s0, I s1, const T* __restrict__ image,
                              I channels, Geometry<I> g, int64_t total) {
  for (int64_t t = first_item(); t < total; t += item_stride()) {
    I r = static_cast<I>(t);
    const I x = r % g.ow;
    r /= g.ow;
    const I y = r % g.oh;
    r /= g.oh;
    const I j = r % g.kw;
    r /= g.kw;
    const I i = r % g.kh;
    r /= g.kh;  // r = b * channels + c: the image plane
    const I c = r % channels, b = r / channels;
    const I iy = y * g.sh - g.ph + i * g.dh, ix = x * g.sw - g.pw + j * g.dw;
    const T v =
        iy >= 0 && iy < g.h && ix >= 0 && ix < g.w ? image[(r * g.h + iy) * g.w + ix] : T(0);
    cols[b * s0 + ((c * g.kh + i) * g.kw + j) * s1 + y * g.ow + x] = v;
  }
}

// One thread per image element: the sum of the cols entries that im2col copied it to.
template <class T, class I>
__global__ void col2im_kernel(T* __restrict__ image, const T* __restrict__ cols, I s0, I s1,
                              I channels, Geometry<I> g, int64_t total) {
  for (int64_t t = first_item(); t < total; t += item_stride()) {
    I r = static_cast<I>(t);
    const I ix = r % g.w;
    r /= g.w;
    const I iy = r % g.h;
    r /= g.h;
    const I c = r % channels, b = r / channels;
    const T* plane = cols + b * s0 + c * g.kh * g.kw * s1;
    T sum = T(0);
    for (I i = 0; i < g.kh; ++i) {
      const I ty = iy + g.ph - i * g.dh;  // y * sh for the window row y that reads iy
      if (ty < 0) break;                  // and for every later i
      if (ty % g.sh != 0 || ty / g.sh >= g.oh) continue;
      const T* row = plane + i * g.kw * s1 + (ty / g.sh) * g.ow;
      for (I j = 0; j < g.kw; ++j) {
        const I tx = ix + g.pw - j * g.dw;
        if (tx < 0) break;
        if (tx % g.sw != 0 || tx / g.sw >= g.ow) continue;
        sum += row[j * s1 + tx / g.sw];
      }
    }
    image[t] = sum;
  }
}

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

// One thread per output: the first maximum of its window (NaN wins), positions outside
// the image skipped, as the CPU (a window with none gives 0 at index -1).
template <class T, class I>
__global__ void max_pool2d_kernel(T* __restrict__ values, int64_t* __restrict__ indices,
                                  const T* __restrict__ image, Geometry<I> g, int64_t total) {
  for (int64_t t = first_item(); t < total; t += item_stride()) {
    I r = static_cast<I>(t);
    const I x = r % g.ow;
    r /= g.ow;
    const I y = r % g.oh;
    const I p = r / g.oh;
    const T* img = image + p * g.h * g.w;
    const I y0 = y * g.sh - g.ph, x0 = x * g.sw - g.pw;
    T best = T(0);
    I best_at = -1;
    for (I i = 0; i < g.kh; ++i) {
      const I iy = y0 + i * g.dh;
      if (iy < 0 || iy >= g.h) continue;
      for (I j = 0; j < g.kw; ++j) {
        const I ix = x0 + j * g.dw;
        if (ix < 0 || ix >= g.w) continue;
        const I at = iy * g.w + ix;
        const T v = img[at];
        if (best_at < 0 || v > best || (is_nan(v) && !is_nan(best))) {
          best = v;
          best_at = at;
        }
      }
    }
    values[t] = best;
    indices[t] = best_at;
  }
}

template <class T>
__global__ void max_pool2d_backward_kernel(T* __restrict__ grad_image, int64_t plane,
                                           const T* __restrict__ grad_out,
                                           const int64_t* __restrict__ indices, int64_t out,
                                           int64_t total) {
  for (int64_t t = first_item(); t < total; t += item_stride()) {
    const int64_t at = indices[t];
    // -1: a window with no image position (max_pool2d's convention), so no gradient.
    if (at >= 0) atomicAdd(grad_image + (t / out) * plane + at, grad_out[t]);
  }
}

// f(T{}) for float or double; other dtypes give cudaErrorInvalidValue (the entries refuse
// them first).
template <class F>
cudaError_t dispatch_floating(ScalarType dtype, F&& f) {
  if (dtype == ScalarType::Float) return f(float{});
  if (dtype == ScalarType::Double) return f(double{});
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_im2col(ScalarType dtype, void* cols, int64_t s0, int64_t s1, const void* image,
                          int64_t batch, int64_t channels, const WindowGeometry& g, Stream stream) {
  const int64_t rows = channels * g.kh * g.kw, total = batch * rows * g.oh * g.ow;
  if (total == 0) return cudaSuccess;
  const int64_t extent =
      std::max(batch * channels * g.h * g.w, (batch - 1) * s0 + (rows - 1) * s1 + g.oh * g.ow);
  const bool narrow = fits_int32(std::max(total, extent), g);
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto* c = static_cast<T*>(cols);
    const auto* im = static_cast<const T*>(image);
    if (narrow) {
      im2col_kernel<T, int32_t><<<blocks_for(total), kThreads, 0, stream>>>(
          c, static_cast<int32_t>(s0), static_cast<int32_t>(s1), im, static_cast<int32_t>(channels),
          geometry_as<int32_t>(g), total);
    } else {
      im2col_kernel<T, int64_t><<<blocks_for(total), kThreads, 0, stream>>>(
          c, s0, s1, im, channels, geometry_as<int64_t>(g), total);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_col2im(ScalarType dtype, void* image, const void* cols, int64_t s0, int64_t s1,
                          int64_t batch, int64_t channels, const WindowGeometry& g, Stream stream) {
  const int64_t total = batch * channels * g.h * g.w;
  if (total == 0) return cudaSuccess;
  const int64_t rows = channels * g.kh * g.kw;
  const int64_t extent = (batch - 1) * s0 + (rows - 1) * s1 + g.oh * g.ow;
  const bool narrow = fits_int32(std::max(total, extent), g);
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    auto* im = static_cast<T*>(image);
    const auto* c = static_cast<const T*>(cols);
    if (narrow) {
      col2im_kernel<T, int32_t><<<blocks_for(total), kThreads, 0, stream>>>(
          im, c, static_cast<int32_t>(s0), static_cast<int32_t>(s1), static_cast<int32_t>(channels),
          geometry_as<int32_t>(g), total);
    } else {
      col2im_kernel<T, int64_t><<<blocks_for(total), kThreads, 0, stream>>>(
          im, c, s0, s1, channels, geometry_as<int64_t>(g), total);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_max_pool2d(ScalarType dtype, void* values, int64_t* indices, const void* image,
                              int64_t planes, const WindowGeometry& g, Stream stream) {
  const int64_t total = planes * g.oh * g.ow;
  if (total == 0) return cudaSuccess;
  const bool narrow = fits_int32(std::max(total, planes * g.h * g.w), g);
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    auto* v = static_cast<T*>(values);
    const auto* im = static_cast<const T*>(image);
    if (narrow) {
      max_pool2d_kernel<T, int32_t><<<blocks_for(total), kThreads, 0, stream>>>(
          v, indices, im, geometry_as<int32_t>(g), total);
    } else {
      max_pool2d_kernel<T, int64_t><<<blocks_for(total), kThreads, 0, stream>>>(
          v, indices, im, geometry_as<int64_t>(g), total);
    }
    return cudaGetLastError();
  };
  switch (dtype) {
    case ScalarType::Float:
      return launch(float{});
    case ScalarType::Double:
      return launch(double{});
    case ScalarType::Long:
      return launch(int64_t{});
    case ScalarType::Byte:
      return launch(uint8_t{});
    default:
      return cudaErrorInvalidValue;  // the entry refuses other dtypes first
  }
}

cudaError_t launch_max_pool2d_backward(ScalarType dtype, void* grad_image, int64_t image_numel,
                                       int64_t plane, const void* grad_out, const int64_t* indices,
                                       int64_t out_numel, int64_t out, Stream stream) {
  return dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (image_numel > 0) {
      // Zero bits are 0.0 in float and double.
      const cudaError_t err =
          cudaMemsetAsync(grad_image, 0, static_cast<size_t>(image_numel) * sizeof(T), stream);
      if (err != cudaSuccess) return err;
    }
    if (out_numel == 0 || plane == 0) return cudaSuccess;
    max_pool2d_backward_kernel<T><<<blocks_for(out_numel), kThreads, 0, stream>>>(
        static_cast<T*>(grad_image), plane, static_cast<const T*>(grad_out), indices, out,
        out_numel);
    return cudaGetLastError();
  });
}

}  // namespace nabla::cuda_kernels
