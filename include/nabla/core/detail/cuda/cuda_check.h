#pragma once
// Every CUDA runtime call of nabla goes through NABLA_CUDA_CHECK: a failure is a
// nabla::Error naming the call and CUDA's message, never an abort or an ignored code.
#include <cuda_runtime_api.h>

#include "nabla/core/error.h"

namespace nabla::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
/// Counts a wait of the host for a device (cuda::host_synchronizations()).
void note_host_sync();

}  // namespace nabla::cuda::detail

#define NABLA_CUDA_CHECK(call)                                                             \
  do {                                                                                     \
    const cudaError_t nabla_cuda_err_ = (call);                                            \
    if (nabla_cuda_err_ != cudaSuccess) [[unlikely]]                                       \
      ::nabla::cuda::detail::throw_cuda_error(nabla_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)
