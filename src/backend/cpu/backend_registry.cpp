#include "backend/cpu/cpu_backends.h"
#include "backend/profiling_backend.h"
#include "nabla/core/error.h"
#include "nabla/core/profiler.h"

namespace nabla {
namespace cpu {

// Only the paths NABLA_KERNEL_ISAS compiled exist; active_isa() never names another.
KernelBackend& cpu_backend_for(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
#if NABLA_KERNELS_AVX512
      return avx512::cpu_backend();
#else
      break;
#endif
    case Isa::Avx2:
#if NABLA_KERNELS_AVX2
      return avx2::cpu_backend();
#else
      break;
#endif
    case Isa::Scalar:
#if NABLA_KERNELS_SCALAR
      return baseline::cpu_backend();
#else
      break;
#endif
  }
  throw Error(str("no CPU kernels compiled for the ", isa_name(isa), " path (NABLA_KERNEL_ISAS)"));
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
