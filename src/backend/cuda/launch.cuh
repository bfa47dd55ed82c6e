#pragma once
// What the CUDA kernel files (.cu) share: the launch shape of their grid-stride loops and
// the dispatch from a dtype to its C++ type.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

constexpr int kThreads = 256;
constexpr int64_t kMaxGrid = int64_t(1) << 20;  // blocks per grid dim; kernels loop past it
constexpr int64_t kTargetBlocks = 1024;         // enough to fill an H100 several times over
constexpr int64_t kMinPerThread = 16;           // elements per thread before splitting a range
constexpr int64_t kMaxChunks = 1024;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The least power of two >= n, at most cap.
inline int pow2_ceil(int64_t n, int cap) {
  int p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

/// A grid dim for `blocks` blocks: at least 1, at most kMaxGrid (the kernels loop past it).
inline unsigned grid_for(int64_t blocks) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, kMaxGrid)));
}

/// Blocks of kThreads for a grid-stride loop over n elements.
inline unsigned blocks_for(int64_t n) { return grid_for(ceil_div(n, kThreads)); }

/// Calls f(T{}) with the C++ type of t for the six compute dtypes; the 16-bit floats, which
/// no kernel computes in, and int8/int16 (CPU-only integer dtypes for now, which keeps the
/// CUDA kernels' instantiations down) give cudaErrorNotSupported.
template <class F>
cudaError_t with_compute_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool:
      return f(bool{});
    case ScalarType::Byte:
      return f(uint8_t{});
    case ScalarType::Int:
      return f(int32_t{});
    case ScalarType::Long:
      return f(int64_t{});
    case ScalarType::Float:
      return f(float{});
    case ScalarType::Double:
      return f(double{});
    default:
      return cudaErrorNotSupported;
  }
}

}  // namespace nabla::cuda_kernels
