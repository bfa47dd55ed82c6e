#pragma once
// Launchers of the optimizer kernels (optim.cu).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// Adam's update (nabla/backend/backend.h: AdamSlot, AdamHyper) of `count` parameters of
/// one dtype (float or double), in as few launches as the kernel arguments allow: slot k has
/// numels[k] contiguous elements at params[k], grads[k], exp_avgs[k], exp_avg_sqs[k] (and
/// max_exp_avg_sqs[k] when `amsgrad`; else the array may be null). The arrays are host
/// memory, read before the call returns.
cudaError_t launch_adam(ScalarType dtype, int64_t count, void* const* params,
                        const void* const* grads, void* const* exp_avgs, void* const* exp_avg_sqs,
                        void* const* max_exp_avg_sqs, const int64_t* numels,
                        const double* step_sizes, const double* bias2_sqrts, double beta1,
                        double beta2, double eps, double weight_decay, double param_scale,
                        bool amsgrad, Stream stream);

}  // namespace nabla::cuda_kernels
