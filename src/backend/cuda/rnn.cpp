// CudaBackend's recurrent-cell entries: no fused CUDA kernels yet, so each answers false
// and the RNN ops compose their steps from cuBLAS products and elementwise kernels. Fused
// cells belong here once they can be checked on a GPU.
#include "backend/cuda/cuda_backend.h"

namespace nabla::cuda_kernels {

bool CudaBackend::lstm_cell(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                            const Tensor&) {
  return false;
}
bool CudaBackend::lstm_cell_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                     const Tensor&, const Tensor&, const Tensor&) {
  return false;
}
bool CudaBackend::gru_cell(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&) {
  return false;
}
bool CudaBackend::gru_cell_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                    const Tensor&, const Tensor&) {
  return false;
}

}  // namespace nabla::cuda_kernels
