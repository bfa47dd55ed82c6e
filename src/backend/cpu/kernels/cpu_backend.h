#pragma once
// The CPU implementation of the backend contract (nabla/backend/backend.h), compiled
// once per ISA path (Note [Kernels per ISA]). Each family of kernels lives in its own
// file of this folder: elementwise.cpp, reduce.cpp, norm.cpp, softmax.cpp, window.cpp,
// index.cpp, random.cpp, gemm.cpp, conv.cpp.
#include "backend/cpu/cpu_backends.h"
#include "backend/cpu/kernels/kernel_isa.h"
#include "nabla/backend/backend.h"

namespace nabla::cpu::NABLA_KERNEL_NS {

class CpuBackend final : public KernelBackend {
 public:
  DeviceType device_type() const override { return kCPU; }
#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) Ret name params override;
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD
};

}  // namespace nabla::cpu::NABLA_KERNEL_NS
