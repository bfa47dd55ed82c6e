// im2col / col2im: the sliding-window copies under convolution and pooling. Parallel
// over (batch, channel) planes: each plane owns its rows of the column matrix, so
// col2im's accumulation needs no synchronisation.
#include <algorithm>
#include <cstring>

#include "cpu_backend.h"
#include "loops.h"
#include "nabla/backend/parallel.h"

namespace nabla::cpu {

namespace {

template <class T>
void im2col_plane(T* cols, const T* img, const WindowGeometry& g) {
  const int64_t positions = g.oh * g.ow;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      T* row = cols + (i * g.kw + j) * positions;
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
          const int64_t lo = std::clamp<int64_t>(-x0, 0, g.ow), hi = std::clamp<int64_t>(g.w - x0, lo, g.ow);
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
void col2im_plane(T* img, const T* cols, const WindowGeometry& g) {
  std::fill(img, img + g.h * g.w, T(0));
  const int64_t positions = g.oh * g.ow;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      const T* row = cols + (i * g.kw + j) * positions;
      for (int64_t y = 0; y < g.oh; ++y) {
        const int64_t iy = y * g.sh - g.ph + i * g.dh;
        if (iy < 0 || iy >= g.h) continue;
        T* dst = img + iy * g.w;
        const T* in = row + y * g.ow;
        const int64_t x0 = j * g.dw - g.pw;
        if (g.sw == 1) {
          const int64_t lo = std::clamp<int64_t>(-x0, 0, g.ow), hi = std::clamp<int64_t>(g.w - x0, lo, g.ow);
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

template <class F>
void for_each_plane(int64_t planes, int64_t plane_work, F&& body) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane_work, 1));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) body(p);
  });
}

}  // namespace

void CpuBackend::im2col(const Tensor& cols, const Tensor& image, const WindowGeometry& g) {
  const int64_t planes = image.size(0) * image.size(1);
  const int64_t rows = g.kh * g.kw * g.oh * g.ow;
  dispatch_all(image.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T* c = cols.data_ptr<T>();
      const T* im = image.data_ptr<T>();
      for_each_plane(planes, rows, [&](int64_t p) { im2col_plane(c + p * rows, im + p * g.h * g.w, g); });
    } else {
      NABLA_CHECK(false, "im2col: floating tensors only, got ", image.scalar_type());
    }
  });
}

void CpuBackend::col2im(const Tensor& image, const Tensor& cols, const WindowGeometry& g) {
  const int64_t planes = image.size(0) * image.size(1);
  const int64_t rows = g.kh * g.kw * g.oh * g.ow;
  dispatch_all(image.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T* im = image.data_ptr<T>();
      const T* c = cols.data_ptr<T>();
      for_each_plane(planes, rows, [&](int64_t p) { col2im_plane(im + p * g.h * g.w, c + p * rows, g); });
    } else {
      NABLA_CHECK(false, "col2im: floating tensors only, got ", image.scalar_type());
    }
  });
}

}  // namespace nabla::cpu
