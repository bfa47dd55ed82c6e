#pragma once
// Launcher of the integer matrix product (gemm.cu); float32/float64 products go to cuBLAS
// (gemm.cpp).
#include <cuda_runtime_api.h>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// C = alpha * A @ B + beta * C for contiguous row-major integer matrices of dtype t (uint8,
/// int32, int64), `batch` of them: a [batch, m, k], b [batch, k, n], c [batch, m, n].
/// Sums wrap around as the CPU's; beta == 0 never reads C. Other dtypes give
/// cudaErrorNotSupported.
cudaError_t launch_int_gemm(ScalarType t, const void* a, const void* b, void* c, int64_t batch,
                            int64_t m, int64_t n, int64_t k, int64_t alpha, int64_t beta, Stream s);

}  // namespace nabla::cuda_kernels
