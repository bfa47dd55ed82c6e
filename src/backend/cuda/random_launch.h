#pragma once
// Launcher of the CUDA random fills (random.cu; Note [Counter-based random numbers]).
#include <cuda_runtime_api.h>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// Fills `numel` contiguous elements of dtype t at `out`: kind 0 Uniform [a, b), 1 Normal
/// (mean a, std b), 2 Bernoulli (p = a), 3 RandInt [low, low + range).
cudaError_t launch_random(void* out, ScalarType t, int64_t numel, int kind, uint64_t seed,
                          uint64_t offset, double a, double b, int64_t low, uint64_t range,
                          Stream s);

}  // namespace nabla::cuda_kernels
