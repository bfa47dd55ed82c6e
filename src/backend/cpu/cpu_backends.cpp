#include "backend/cpu/cpu_backends.h"

#include "nabla/core/error.h"

namespace nabla::cpu {

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

}  // namespace nabla::cpu
