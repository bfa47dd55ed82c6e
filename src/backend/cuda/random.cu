// Random fills on CUDA: element i from Philox counter offset + i (Note [Counter-based random
// numbers], backend/philox.h), whatever the launch geometry. The CPU's stream is another
// one (LibTorch's mt19937), so the two devices draw different numbers for one seed.
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "backend/cuda/launch.cuh"
#include "backend/cuda/random_launch.h"
#include "backend/philox.h"

namespace nabla::cuda_kernels {
namespace {

template <class T>
__global__ void random_kernel(T* out, int64_t numel, int kind, uint64_t seed, uint64_t offset,
                              double a, double b, int64_t low, uint64_t range) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += stride) {
    uint32_t w[4];
    philox::words(seed, offset + static_cast<uint64_t>(i), w);
    if (kind == 3) {
      out[i] = static_cast<T>(philox::int_value(w, low, range));
      continue;
    }
    T v = static_cast<T>(philox::real_value(kind, w, a, b));
    if constexpr (std::is_floating_point_v<T>) {
      // Rounding to float must not produce the excluded upper bound.
      if (kind == 0 && b > a && v >= static_cast<T>(b))
        v = nextafter(static_cast<T>(b), static_cast<T>(a));
    }
    out[i] = v;
  }
}

template <class T>
cudaError_t run(void* out, int64_t numel, int kind, uint64_t seed, uint64_t offset, double a,
                double b, int64_t low, uint64_t range, Stream s) {
  random_kernel<T><<<blocks_for(numel), kThreads, 0, s>>>(static_cast<T*>(out), numel, kind, seed,
                                                          offset, a, b, low, range);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_random(void* out, ScalarType t, int64_t numel, int kind, uint64_t seed,
                          uint64_t offset, double a, double b, int64_t low, uint64_t range,
                          Stream s) {
  if (numel == 0) return cudaSuccess;
  return with_compute_type(t, [&](auto tag) {
    return run<decltype(tag)>(out, numel, kind, seed, offset, a, b, low, range, s);
  });
}

}  // namespace nabla::cuda_kernels
