#pragma once
// The profiling proxy (include/nabla/core/profiler.h): while a profile runs,
// backend_for() hands out this KernelBackend, which times each kernel call as a Kernel event
// named after the entry and its op ("binary.Mul", "unary.Tanh", "reduce.Sum", "gemm", ...)
// and forwards it unchanged to the device's own backend. A new KernelBackend entry must be
// listed in nabla/backend/kernel_methods.def, which declares and forwards it here.
#include "nabla/backend/backend.h"

namespace nabla {

class ProfilingBackend final : public KernelBackend {
 public:
  explicit ProfilingBackend(KernelBackend& inner) : inner_(inner) {}
  DeviceType device_type() const override { return inner_.device_type(); }
#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) Ret name params override;
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD

 private:
  KernelBackend& inner_;
};

/// The event names the proxy uses ("unary.Tanh", "binary.Mul", "reduce.Sum").
const char* kernel_name(UnaryOp op);
const char* kernel_name(BinaryOp op);
const char* kernel_name(ReduceOp op);
const char* kernel_name(KernelBackend::Distribution d);

}  // namespace nabla
