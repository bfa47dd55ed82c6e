// Index kernels: gather (index_select is a gather whose index repeats along the other dims)
// and scatter / scatter-add.
//
// An index out of range for the indexed dim (the ops' deferred check reports it later)
// reads as 0 in gather and is skipped by scatter: no kernel touches memory outside a tensor.
//
// Every launch walks the positions of the index's shape with three operands: the data
// tensor addressed at the position itself (gather's out, scatter's src), the index, and
// the indexed tensor, addressed at the position with its `dim` coordinate replaced by the
// index value (gather's in, scatter's self).
//
// Scatter collides only along `dim`: two positions that differ in another coordinate
// write different elements of self. So when it can fill the GPU, scatter gives each
// thread one row (all positions along `dim` for the other coordinates fixed) and walks it
// in order, as the CPU does: repeated indices then keep the last write and sums add in
// index order, bit for bit as on the CPU. Otherwise (few long rows) each thread takes one
// position, and repeated indices race (an arbitrary write wins; sums use atomics).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "backend/cuda/index_launch.h"
#include "backend/cuda/launch.cuh"

namespace nabla::cuda_kernels {
namespace {

// The ordered scatter walk is used when rows are this short, or there are this many rows.
constexpr int64_t kOrderedMaxRun = 32;
constexpr int64_t kOrderedMinRows = int64_t(1) << 15;

/// The walk: operand 0 the directly addressed data, 1 the index, 2 the indexed tensor.
struct IndexPlan {
  int ndim = 0;
  int64_t numel = 1;                  // threads' work items: positions, or rows
  int64_t sizes[kMaxDims] = {};       // outermost first, size-1 dims dropped, dims merged
  int64_t strides[3][kMaxDims] = {};  // elements; operand 2 has 0 along `dim`
  int64_t dim_stride = 0;             // operand 2's stride along `dim`
  int64_t dim_size = 0;               // operand 2's size along `dim`: indices lie in [0, it)
  int64_t run = 1;                    // the ordered walk: positions per row (along `dim`)
  int64_t step[2] = {};               // the ordered walk: operands 0 and 1 along `dim`
  char* data[3] = {};
};

// `ordered`: `dim` leaves the walked dims, each work item being a row along it.
IndexPlan make_plan(const TensorArg& direct, const TensorArg& index, const TensorArg& indexed,
                    int dim, bool ordered) {
  IndexPlan p;
  p.data[0] = direct.data;
  p.data[1] = index.data;
  p.data[2] = indexed.data;
  p.dim_stride = indexed.strides[dim];
  p.dim_size = indexed.sizes[dim];
  if (ordered) {
    p.run = index.sizes[dim];
    p.step[0] = direct.strides[dim];
    p.step[1] = index.strides[dim];
  }
  int m = 0;
  for (int d = 0; d < index.ndim; ++d) {
    const int64_t size = index.sizes[d];
    if (size == 1 || (ordered && d == dim)) continue;
    const int64_t st[3] = {direct.strides[d], index.strides[d], d == dim ? 0 : indexed.strides[d]};
    p.numel *= size;
    // Merge into the outer dim when every operand steps through both as through one.
    if (m > 0 && p.strides[0][m - 1] == st[0] * size && p.strides[1][m - 1] == st[1] * size &&
        p.strides[2][m - 1] == st[2] * size) {
      p.sizes[m - 1] *= size;
      for (int k = 0; k < 3; ++k) p.strides[k][m - 1] = st[k];
      continue;
    }
    p.sizes[m] = size;
    for (int k = 0; k < 3; ++k) p.strides[k][m] = st[k];
    ++m;
  }
  p.ndim = m;
  return p;
}

__device__ __forceinline__ void offsets_of(const IndexPlan& p, int64_t t, int64_t (&o)[3]) {
  o[0] = o[1] = o[2] = 0;
  for (int d = p.ndim - 1; d >= 0; --d) {
    const int64_t c = t % p.sizes[d];
    t /= p.sizes[d];
    o[0] += c * p.strides[0][d];
    o[1] += c * p.strides[1][d];
    o[2] += c * p.strides[2][d];
  }
}

__device__ __forceinline__ bool in_range(const IndexPlan& p, int64_t i) {
  return i >= 0 && i < p.dim_size;
}

__device__ __forceinline__ int64_t first_item() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t item_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

__global__ void check_range_kernel(const int64_t* index, int64_t n, int64_t lo, int64_t hi,
                                   unsigned long long* slot) {
  for (int64_t t = first_item(); t < n; t += item_stride()) {
    const int64_t v = index[t];
    if (v < lo || v >= hi) [[unlikely]] {
      // The value first, visible to the host before the flag that says to read it.
      slot[1] = static_cast<unsigned long long>(v);
      __threadfence_system();
      slot[0] = 1;
    }
  }
}

// U: an unsigned type of the element's size (a copy needs no more).
template <class U>
__global__ void gather_kernel(const __grid_constant__ IndexPlan p) {
  const auto* idx = reinterpret_cast<const int64_t*>(p.data[1]);
  const auto* in = reinterpret_cast<const U*>(p.data[2]);
  auto* out = reinterpret_cast<U*>(p.data[0]);
  for (int64_t t = first_item(); t < p.numel; t += item_stride()) {
    int64_t o[3];
    offsets_of(p, t, o);
    const int64_t i = idx[o[1]];
    out[o[0]] = in_range(p, i) ? in[o[2] + i * p.dim_stride] : U(0);
  }
}

// Adds v at d, atomically (several positions may hit one element).
__device__ __forceinline__ void atomic_accumulate(float* d, float v) { atomicAdd(d, v); }
__device__ __forceinline__ void atomic_accumulate(double* d, double v) { atomicAdd(d, v); }
__device__ __forceinline__ void atomic_accumulate(int32_t* d, int32_t v) { atomicAdd(d, v); }
__device__ __forceinline__ void atomic_accumulate(int64_t* d, int64_t v) {
  // Two's complement: the unsigned sum wraps to the signed one.
  atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void atomic_accumulate(uint8_t* d, uint8_t v) {
  // No byte atomics: compare-and-swap the aligned word holding the byte. The word lies in
  // the same allocation (the allocator hands out blocks aligned and sized far past 4).
  const auto addr = reinterpret_cast<uintptr_t>(d);
  auto* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int sum = ((assumed >> shift) + v) & 0xffu;
    old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (sum << shift));
  } while (old != assumed);
}
__device__ __forceinline__ void atomic_accumulate(bool* d, bool v) {
  // d = d || v: only `true` is ever stored, so racing stores agree.
  if (v) *d = true;
}

// One position per thread: plain stores (U by size) or atomic sums (T the dtype).
template <class T, bool kAccumulate>
__global__ void scatter_kernel(const __grid_constant__ IndexPlan p) {
  const auto* src = reinterpret_cast<const T*>(p.data[0]);
  const auto* idx = reinterpret_cast<const int64_t*>(p.data[1]);
  auto* self = reinterpret_cast<T*>(p.data[2]);
  for (int64_t t = first_item(); t < p.numel; t += item_stride()) {
    int64_t o[3];
    offsets_of(p, t, o);
    const int64_t i = idx[o[1]];
    if (!in_range(p, i)) continue;
    T* d = self + o[2] + i * p.dim_stride;
    if constexpr (kAccumulate) {
      atomic_accumulate(d, src[o[0]]);
    } else {
      *d = src[o[0]];
    }
  }
}

template <class T>
__device__ __forceinline__ T plain_sum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(a + b);  // uint8 wraps, as on the CPU
  }
}

// One row per thread, in index order (see the top of the file).
template <class T, bool kAccumulate>
__global__ void scatter_ordered_kernel(const __grid_constant__ IndexPlan p) {
  const auto* src = reinterpret_cast<const T*>(p.data[0]);
  const auto* idx = reinterpret_cast<const int64_t*>(p.data[1]);
  auto* self = reinterpret_cast<T*>(p.data[2]);
  for (int64_t t = first_item(); t < p.numel; t += item_stride()) {
    int64_t o[3];
    offsets_of(p, t, o);
    for (int64_t j = 0; j < p.run; ++j) {
      const int64_t i = idx[o[1] + j * p.step[1]];
      if (!in_range(p, i)) continue;
      T& d = self[o[2] + i * p.dim_stride];
      const T v = src[o[0] + j * p.step[0]];
      if constexpr (kAccumulate) {
        d = plain_sum(d, v);
      } else {
        d = v;
      }
    }
  }
}

template <template <class, bool> class Launch, bool kAccumulate>
cudaError_t dispatch_scatter(ScalarType dtype, const IndexPlan& p, Stream stream) {
  return with_compute_type(
      dtype, [&](auto tag) { return Launch<decltype(tag), kAccumulate>::run(p, stream); });
}

template <class T, bool kAccumulate>
struct ScatterLaunch {
  static cudaError_t run(const IndexPlan& p, Stream stream) {
    scatter_kernel<T, kAccumulate><<<blocks_for(p.numel), kThreads, 0, stream>>>(p);
    return cudaGetLastError();
  }
};

template <class T, bool kAccumulate>
struct OrderedScatterLaunch {
  static cudaError_t run(const IndexPlan& p, Stream stream) {
    scatter_ordered_kernel<T, kAccumulate><<<blocks_for(p.numel), kThreads, 0, stream>>>(p);
    return cudaGetLastError();
  }
};

}  // namespace

cudaError_t launch_check_range(const int64_t* index, int64_t n, int64_t lo, int64_t hi,
                               unsigned long long* slot, Stream stream) {
  if (n == 0) return cudaSuccess;
  check_range_kernel<<<blocks_for(n), kThreads, 0, stream>>>(index, n, lo, hi, slot);
  return cudaGetLastError();
}

cudaError_t launch_gather(const TensorArg& out, const TensorArg& index, const TensorArg& in,
                          int dim, Stream stream) {
  if (index.numel == 0) return cudaSuccess;
  const IndexPlan p = make_plan(out, index, in, dim, false);
  const unsigned int blocks = blocks_for(p.numel);
  switch (out.dtype) {
    case ScalarType::Bool:
    case ScalarType::Byte:
    case ScalarType::Char:
      gather_kernel<uint8_t><<<blocks, kThreads, 0, stream>>>(p);
      break;
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Short:
      gather_kernel<uint16_t><<<blocks, kThreads, 0, stream>>>(p);
      break;
    case ScalarType::Int:
    case ScalarType::Float:
      gather_kernel<uint32_t><<<blocks, kThreads, 0, stream>>>(p);
      break;
    case ScalarType::Long:
    case ScalarType::Double:
      gather_kernel<uint64_t><<<blocks, kThreads, 0, stream>>>(p);
      break;
  }
  return cudaGetLastError();
}

cudaError_t launch_scatter(const TensorArg& self, const TensorArg& index, const TensorArg& src,
                           int dim, bool accumulate, Stream stream) {
  if (index.numel == 0) return cudaSuccess;
  const int64_t run = index.sizes[dim];
  const bool ordered = run <= kOrderedMaxRun || index.numel / run >= kOrderedMinRows;
  const IndexPlan p = make_plan(src, index, self, dim, ordered);
  if (ordered) {
    return accumulate ? dispatch_scatter<OrderedScatterLaunch, true>(self.dtype, p, stream)
                      : dispatch_scatter<OrderedScatterLaunch, false>(self.dtype, p, stream);
  }
  return accumulate ? dispatch_scatter<ScatterLaunch, true>(self.dtype, p, stream)
                    : dispatch_scatter<ScatterLaunch, false>(self.dtype, p, stream);
}

}  // namespace nabla::cuda_kernels
