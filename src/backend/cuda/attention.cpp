// CudaBackend's attention entries: no fused CUDA kernel yet, so both answer false and
// scaled_dot_product_attention composes the attention from cuBLAS products and the softmax
// kernel (Note [Fused attention], src/ops/nn/attention.cpp). A FlashAttention-style kernel
// belongs here once it can be checked on a GPU.
#include "backend/cuda/cuda_backend.h"

namespace nabla::cuda_kernels {

bool CudaBackend::attention_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                    const Tensor&, const Tensor&, const AttentionParams&) {
  return false;
}

bool CudaBackend::attention_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                     const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                     const Tensor&, const Tensor&, const AttentionParams&) {
  return false;
}

}  // namespace nabla::cuda_kernels
