// Optimizer kernels: Adam's whole update in one pass over each parameter, many parameters
// per launch. The per-parameter pointers travel in the kernel's arguments (no copy to the
// device); each block takes a chunk of one parameter, found by a search over the chunks'
// starts, so a step's small biases and large weights share the launch evenly.
//
// The arithmetic is the CPU's (src/backend/cpu/kernels/optim.cpp), operation for
// operation, with the rounding intrinsics: nvcc would otherwise contract a * b + c into
// one fma, which the CPU (built without contraction) does not, and the results would
// drift apart in the last bit.
#include <algorithm>
#include <cstdint>

#include "backend/cuda/launch.cuh"
#include "backend/cuda/optim_launch.h"

namespace nabla::cuda_kernels {
namespace {

constexpr int64_t kChunk = kThreads * 8;  // elements per block
// Slots per launch: the arguments stay within the classic 4 KiB kernel-parameter limit.
constexpr int kMaxSlots = 48;

struct AdamBatch {
  int count = 0;
  int64_t chunk_start[kMaxSlots + 1] = {};  // first block of each slot; the last: the total
  int64_t numel[kMaxSlots] = {};
  void* param[kMaxSlots] = {};
  const void* grad[kMaxSlots] = {};
  void* exp_avg[kMaxSlots] = {};
  void* exp_avg_sq[kMaxSlots] = {};
  void* max_exp_avg_sq[kMaxSlots] = {};
  double step_size[kMaxSlots] = {};
  double bias2_sqrt[kMaxSlots] = {};
};

struct AdamConstants {
  double beta1, beta2, eps, weight_decay, param_scale;
};
static_assert(sizeof(AdamBatch) + sizeof(AdamConstants) <= 4096, "kernel arguments past 4 KiB");

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float div(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float root(float a) { return __fsqrt_rn(a); }
__device__ __forceinline__ double root(double a) { return __dsqrt_rn(a); }

template <class T, bool kDecay, bool kAmsgrad>
__global__ void adam_kernel(const __grid_constant__ AdamBatch batch, AdamConstants h) {
  const int64_t block = blockIdx.x;
  // The slot whose chunks hold this block: the last with chunk_start <= block.
  int lo = 0, hi = batch.count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (batch.chunk_start[mid] <= block) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const int s = lo;
  const int64_t begin = (block - batch.chunk_start[s]) * kChunk;
  const int64_t end = std::min(batch.numel[s], begin + kChunk);
  T* __restrict__ p = static_cast<T*>(batch.param[s]);
  const T* __restrict__ g = static_cast<const T*>(batch.grad[s]);
  T* __restrict__ m = static_cast<T*>(batch.exp_avg[s]);
  T* __restrict__ v = static_cast<T*>(batch.exp_avg_sq[s]);
  T* __restrict__ vmax = static_cast<T*>(batch.max_exp_avg_sq[s]);
  // The CPU's constants: each rounded once from the double hyperparameters.
  const T beta1 = T(h.beta1), beta2 = T(h.beta2), keep1 = T(1 - h.beta1), keep2 = T(1 - h.beta2);
  const T decay = T(h.weight_decay), scale = T(h.param_scale), eps = T(h.eps);
  const T neg_step = T(-batch.step_size[s]), bias2 = T(batch.bias2_sqrt[s]);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    const T pv = p[i];
    const T pi = mul(pv, scale);
    const T gi = kDecay ? add(g[i], mul(decay, pv)) : g[i];
    const T mi = add(mul(m[i], beta1), mul(keep1, gi));
    const T vi = add(mul(v[i], beta2), mul(keep2, mul(gi, gi)));
    m[i] = mi;
    v[i] = vi;
    T vd = vi;
    if constexpr (kAmsgrad) {
      const T w = vmax[i];
      vd = (w != w || w > vi) ? w : vi;  // NaN propagates, as maximum()
      vmax[i] = vd;
    }
    p[i] = add(pi, mul(neg_step, div(mi, add(div(root(vd), bias2), eps))));
  }
}

template <class T>
cudaError_t launch_batch(const AdamBatch& batch, const AdamConstants& h, bool amsgrad,
                         Stream stream) {
  const auto blocks = static_cast<unsigned int>(batch.chunk_start[batch.count]);
  const bool decay = h.weight_decay != 0;
  if (decay && amsgrad) {
    adam_kernel<T, true, true><<<blocks, kThreads, 0, stream>>>(batch, h);
  } else if (decay) {
    adam_kernel<T, true, false><<<blocks, kThreads, 0, stream>>>(batch, h);
  } else if (amsgrad) {
    adam_kernel<T, false, true><<<blocks, kThreads, 0, stream>>>(batch, h);
  } else {
    adam_kernel<T, false, false><<<blocks, kThreads, 0, stream>>>(batch, h);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_adam(ScalarType dtype, int64_t count, void* const* params,
                        const void* const* grads, void* const* exp_avgs, void* const* exp_avg_sqs,
                        void* const* max_exp_avg_sqs, const int64_t* numels,
                        const double* step_sizes, const double* bias2_sqrts, double beta1,
                        double beta2, double eps, double weight_decay, double param_scale,
                        bool amsgrad, Stream stream) {
  if (dtype != ScalarType::Float && dtype != ScalarType::Double) return cudaErrorInvalidValue;
  const AdamConstants h{beta1, beta2, eps, weight_decay, param_scale};
  // A batch closes when full, or before its block count would pass the grid's limit.
  constexpr int64_t kMaxGrid = (int64_t(1) << 31) - 1;
  AdamBatch batch;
  auto flush = [&]() -> cudaError_t {
    if (batch.count == 0) return cudaSuccess;
    const cudaError_t err = dtype == ScalarType::Float
                                ? launch_batch<float>(batch, h, amsgrad, stream)
                                : launch_batch<double>(batch, h, amsgrad, stream);
    batch = AdamBatch();
    return err;
  };
  for (int64_t k = 0; k < count; ++k) {
    const int64_t chunks = (numels[k] + kChunk - 1) / kChunk;
    if (chunks == 0) continue;
    if (batch.count == kMaxSlots || batch.chunk_start[batch.count] + chunks > kMaxGrid) {
      if (const cudaError_t err = flush(); err != cudaSuccess) return err;
    }
    const int s = batch.count++;
    batch.numel[s] = numels[k];
    batch.param[s] = params[k];
    batch.grad[s] = grads[k];
    batch.exp_avg[s] = exp_avgs[k];
    batch.exp_avg_sq[s] = exp_avg_sqs[k];
    batch.max_exp_avg_sq[s] = amsgrad ? max_exp_avg_sqs[k] : nullptr;
    batch.step_size[s] = step_sizes[k];
    batch.bias2_sqrt[s] = bias2_sqrts[k];
    batch.chunk_start[s + 1] = batch.chunk_start[s] + chunks;
  }
  return flush();
}

}  // namespace nabla::cuda_kernels
