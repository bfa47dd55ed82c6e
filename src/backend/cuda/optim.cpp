// CudaBackend's optimizer entries: adam_step (kernels in optim.cu).
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/optim_launch.h"
#include "nabla/core/detail/cuda/cuda_check.h"

namespace nabla::cuda_kernels {

void CudaBackend::adam_step(const std::vector<AdamSlot>& slots, const AdamHyper& h) {
  for (const AdamSlot& s : slots) {
    const ScalarType t = s.param.scalar_type();
    if (t != kFloat && t != kDouble) not_on_cuda("adam_step", "dtypes other than float and double");
    NABLA_CHECK(s.param.is_contiguous() && s.grad.is_contiguous() && s.exp_avg.is_contiguous() &&
                    s.exp_avg_sq.is_contiguous() &&
                    (!h.amsgrad || s.max_exp_avg_sq.is_contiguous()),
                "adam_step kernel: contiguous tensors expected");
  }
  // One launcher call per (device, dtype) among the slots (a parameter group may span
  // devices); the launcher packs its slots into few launches.
  std::vector<bool> done(slots.size(), false);
  for (size_t first = 0; first < slots.size(); ++first) {
    if (done[first]) continue;
    const Device device = slots[first].param.device();
    const ScalarType dtype = slots[first].param.scalar_type();
    std::vector<void*> params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs;
    std::vector<const void*> grads;
    std::vector<int64_t> numels;
    std::vector<double> step_sizes, bias2_sqrts;
    for (size_t k = first; k < slots.size(); ++k) {
      const AdamSlot& s = slots[k];
      if (done[k] || s.param.device() != device || s.param.scalar_type() != dtype) continue;
      done[k] = true;
      params.push_back(s.param.data_ptr());
      grads.push_back(s.grad.data_ptr());
      exp_avgs.push_back(s.exp_avg.data_ptr());
      exp_avg_sqs.push_back(s.exp_avg_sq.data_ptr());
      max_exp_avg_sqs.push_back(h.amsgrad ? s.max_exp_avg_sq.data_ptr() : nullptr);
      numels.push_back(s.param.numel());
      step_sizes.push_back(s.step_size);
      bias2_sqrts.push_back(s.bias2_sqrt);
    }
    OnDevice on(slots[first].param);
    NABLA_CUDA_CHECK(launch_adam(dtype, static_cast<int64_t>(params.size()), params.data(),
                                 grads.data(), exp_avgs.data(), exp_avg_sqs.data(),
                                 max_exp_avg_sqs.data(), numels.data(), step_sizes.data(),
                                 bias2_sqrts.data(), h.beta1, h.beta2, h.eps, h.weight_decay,
                                 h.param_scale, h.amsgrad, on.stream()));
  }
}

}  // namespace nabla::cuda_kernels
