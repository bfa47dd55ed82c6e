// This variant's CpuBackend (Note [Kernels per ISA]).
#include "backend/cpu/kernels/cpu_backend.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

KernelBackend& cpu_backend() {
  static CpuBackend backend;
  return backend;
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
