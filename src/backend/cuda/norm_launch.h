#pragma once
// Launchers of the normalization kernels (norm.cu): softmax and its backward, per-channel
// moments, the channel affine map and the backward passes of group/layer norm and batch
// norm. Operands are contiguous float or double arrays of one dtype; scratch is a double
// array from the caller (norm.cpp allocates it as a tensor), sized by the *_scratch
// functions. Each launcher queues its kernels on `stream` and returns cudaGetLastError().
#include <cuda_runtime_api.h>

#include <cstdint>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// out = softmax (log_softmax) of in viewed as [outer, n, inner], along n.
cudaError_t launch_softmax(ScalarType dtype, void* out, const void* in, int64_t outer, int64_t n,
                           int64_t inner, bool log, Stream stream);

/// grad_in = y * (g - sum(g * y)), or g - exp(y) * sum(g) for log_softmax, along n.
cudaError_t launch_softmax_backward(ScalarType dtype, void* grad_in, const void* grad_out,
                                    const void* out, int64_t outer, int64_t n, int64_t inner,
                                    bool log, Stream stream);

/// Doubles of scratch launch_moments needs.
int64_t moments_scratch(int64_t n, int64_t c, int64_t s);
/// mean[c] and biased var[c] of in viewed as [n, c, s] (two passes, double accumulation).
cudaError_t launch_moments(ScalarType dtype, void* mean, void* var, const void* in, int64_t n,
                           int64_t c, int64_t s, double* scratch, Stream stream);

/// out[n, c, s] = (in[n, c, s] - center[c]) * scale[c] + shift[c]; out may be in.
cudaError_t launch_channel_affine(ScalarType dtype, void* out, const void* in, const void* center,
                                  const void* scale, const void* shift, int64_t n, int64_t c,
                                  int64_t s, Stream stream);

/// The operands of the normalization backwards (kernel_methods.def); a null pointer is
/// an output not wanted or no weight. mean and rstd are [n, g] for group norm, [c] for
/// batch norm.
struct NormBackwardArgs {
  ScalarType dtype = ScalarType::Float;
  void* grad_in = nullptr;
  void* grad_weight = nullptr;
  void* grad_bias = nullptr;
  const void* grad_out = nullptr;
  const void* in = nullptr;
  const void* mean = nullptr;
  const void* rstd = nullptr;
  const void* weight = nullptr;
  int64_t n = 0, c = 0, g = 1, s = 0;
};

/// Doubles of scratch launch_group_norm_backward needs.
int64_t group_norm_backward_scratch(const NormBackwardArgs& a);
cudaError_t launch_group_norm_backward(const NormBackwardArgs& a, double* scratch, Stream stream);

/// Doubles of scratch launch_batch_norm_backward needs.
int64_t batch_norm_backward_scratch(const NormBackwardArgs& a, bool training);
cudaError_t launch_batch_norm_backward(const NormBackwardArgs& a, bool training, double* scratch,
                                       Stream stream);

}  // namespace nabla::cuda_kernels
