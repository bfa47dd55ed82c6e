// The integer matrix product on CUDA (cuBLAS has none): one thread per output element,
// which loops over k. Integer products are rare in training (LibTorch has no CUDA kernel
// for them at all), so this is written for correctness, not speed: sums in the unsigned
// type of the dtype, so they wrap around as the CPU's do.
#include <cuda_runtime.h>

#include <type_traits>

#include "backend/cuda/gemm_launch.h"
#include "backend/cuda/launch.cuh"

namespace nabla::cuda_kernels {
namespace {

template <class T>
__global__ void int_gemm_kernel(const T* a, const T* b, T* c, int64_t batch, int64_t m, int64_t n,
                                int64_t k, T alpha, T beta) {
  using U = std::make_unsigned_t<T>;
  const int64_t total = batch * m * n;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    const int64_t j = idx % n, i = (idx / n) % m, bi = idx / (m * n);
    const T* row = a + (bi * m + i) * k;
    const T* col = b + bi * k * n + j;
    U acc = 0;
    for (int64_t p = 0; p < k; ++p)
      acc = static_cast<U>(acc + static_cast<U>(row[p]) * static_cast<U>(col[p * n]));
    U r = static_cast<U>(static_cast<U>(alpha) * acc);
    if (beta != 0) r = static_cast<U>(r + static_cast<U>(beta) * static_cast<U>(c[idx]));
    c[idx] = static_cast<T>(r);
  }
}

}  // namespace

cudaError_t launch_int_gemm(ScalarType t, const void* a, const void* b, void* c, int64_t batch,
                            int64_t m, int64_t n, int64_t k, int64_t alpha, int64_t beta,
                            Stream s) {
  return with_compute_type(t, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, bool>) {
      return cudaErrorNotSupported;
    } else {
      const int64_t total = batch * m * n;
      if (total == 0) return cudaSuccess;
      int_gemm_kernel<T><<<blocks_for(total), kThreads, 0, s>>>(
          static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), batch, m, n, k,
          static_cast<T>(alpha), static_cast<T>(beta));
      return cudaGetLastError();
    }
  });
}

}  // namespace nabla::cuda_kernels
