#pragma once
// What the CUDA kernels get from a Tensor: plain structs, so the .cu files (compiled by
// nvcc) include no Tensor header — only this file, nabla/backend/kernel_types.h and
// nabla/core/scalar_type.h. Each kernel family is a .cpp (the KernelBackend entries,
// compiled with the rest of the library) that turns tensors into these and calls the
// launchers of its .cu file, declared in the family's *_launch.h. A launcher queues its
// kernels on the stream it is given and returns cudaGetLastError() (a cudaError_t); the
// .cpp checks it with NABLA_CUDA_CHECK (core/cuda/cuda_check.h), so a failed launch is a
// nabla::Error.
#include <cstdint>

#include "nabla/backend/kernel_types.h"
#include "nabla/core/scalar_type.h"

struct CUstream_st;

namespace nabla::cuda_kernels {

constexpr int kMaxDims = 16;

/// One tensor: its first element, dtype and geometry (strides in elements).
struct TensorArg {
  char* data = nullptr;
  ScalarType dtype = ScalarType::Float;
  int ndim = 0;
  int64_t numel = 1;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};

/// N operands walked together over one index space (operand 0 the output), dims collapsed
/// where all operands allow it and ordered innermost first; strides in bytes (0 for a
/// broadcast dim).
template <int N>
struct ElementwisePlan {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  char* data[N] = {};
  int64_t strides[N][kMaxDims] = {};
};

using Stream = CUstream_st*;

}  // namespace nabla::cuda_kernels
