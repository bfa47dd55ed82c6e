#include "backend/cpu/cpu_backends.h"
#include "backend/profiling_backend.h"
#include "nabla/core/profiler.h"

namespace nabla {
namespace cpu {

KernelBackend& cpu_backend_for(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return avx512::cpu_backend();
    case Isa::Avx2:
      return avx2::cpu_backend();
    case Isa::Scalar:
      break;
  }
  return baseline::cpu_backend();
}

}  // namespace cpu

KernelBackend& backend_for(Device device) {
  static KernelBackend& cpu_backend = cpu::cpu_backend_for(active_isa());
  NABLA_CHECK(device.is_cpu(), "no backend for device ", device,
              ": this build of nabla has only the cpu backend (cuda::is_available() is false)");
  // While a profile runs, kernels go through a timing proxy (nabla/core/profiler.h).
  if (autograd::profiler::is_enabled()) [[unlikely]] {
    static ProfilingBackend profiled_cpu(cpu_backend);
    return profiled_cpu;
  }
  return cpu_backend;
}

}  // namespace nabla

namespace nabla {

void throw_reduced_precision(ScalarType t) {
  throw Error(str(
      "this op does not support ", t, " (", dtype_name(t), ") tensors: nabla stores 16-bit floats ",
      "and converts them, but computes in float32/float64; convert first with .to(nabla::kFloat)"));
}

}  // namespace nabla
