#pragma once
// The backend contract: every kernel a device must provide, in one small interface. Ops
// validate arguments, choose dtypes, allocate outputs and broadcast inputs (expand, a
// free view); kernels only compute. The entries are listed once, in kernel_methods.def;
// backend_for() (src/backend/dispatch.cpp) picks a tensor's device's backend. See
// docs/backend.md for how to add a device.
#include <cstdint>
#include <vector>

#include "nabla/backend/kernel_types.h"
#include "nabla/core/tensor.h"

namespace nabla {

/// One parameter of KernelBackend::adam_step. All tensors contiguous, of one floating
/// dtype and the parameter's size; max_exp_avg_sq is read only with AdamHyper::amsgrad.
/// Per element, with g = grad + weight_decay * param:
///   param *= param_scale (AdamW's decoupled decay; 1 for Adam)
///   exp_avg = exp_avg * beta1 + (1 - beta1) * g
///   exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
///   amsgrad: max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq), used as v below
///   param += -step_size * exp_avg / (sqrt(v) / bias2_sqrt + eps)
struct AdamSlot {
  Tensor param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq;
  double step_size = 0;   // lr / (1 - beta1^step)
  double bias2_sqrt = 1;  // sqrt(1 - beta2^step)
};
struct AdamHyper {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, param_scale = 1;
  bool amsgrad = false;
};

/// Which way a float32 convolution runs (Note [Convolution algorithm], conv_algorithm.h):
/// Products — a 1x1 convolution as one matrix product per sample, in NCHW order; Library —
/// the device's convolution library (oneDNN on the CPU, cuDNN on CUDA); Im2col — the op's
/// own im2col + gemm, for everything else (no backend entry).
enum class ConvAlgorithm : uint8_t { Products, Library, Im2col };

/// The kernels of one device. Every entry is declared once, in kernel_methods.def (where
/// each is documented); a backend overrides all of them.
class KernelBackend {
 public:
  /// The distributions of the `random` entry.
  enum class Distribution : uint8_t { Uniform, Normal, Bernoulli, RandInt };

  virtual ~KernelBackend() = default;
  virtual DeviceType device_type() const = 0;

#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) virtual Ret name params = 0;
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD
};

/// The algorithm for conv2d(image [B, C, h, w], weight [O, C / groups, kh, kw]) over g on
/// the tensors' device (Note [Convolution algorithm], src/backend/conv_algorithm.cpp).
ConvAlgorithm choose_conv_algorithm(const Tensor& image, const Tensor& weight,
                                    const WindowGeometry& g, int64_t groups);

/// The backend of a device (the profiling proxy around it while a profile runs); a
/// nabla::Error for a device this build does not have.
KernelBackend& backend_for(Device device);
/// Refuses Half/BFloat16 tensors: nabla stores and converts them but has no kernels in
/// them (`op` names the caller).
[[noreturn]] void throw_reduced_precision(ScalarType t);
inline KernelBackend& backend_for(const Tensor& t) {
  if (isReducedFloatingType(t.scalar_type())) [[unlikely]]
    throw_reduced_precision(t.scalar_type());
  return backend_for(t.device());
}

}  // namespace nabla
