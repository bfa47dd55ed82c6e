#pragma once
// The instruction-set path of nabla's CPU kernels, chosen at run time from the CPU's
// feature flags (cpuid), never from a list of CPU models. NABLA_ISA=scalar|avx2|avx512
// in the environment caps the path (to test or measure a lower one).
#include <string>

namespace nabla {

enum class Isa { Scalar = 0, Avx2 = 1, Avx512 = 2 };

/// The best path this CPU supports: Avx512 needs AVX-512F/BW/VL/DQ, Avx2 needs AVX2 and FMA.
Isa supported_isa();
/// The path the kernels take: supported_isa(), capped by NABLA_ISA. A NABLA_ISA above
/// what the CPU supports, or not one of the three names, is a nabla::Error.
Isa active_isa();
/// "scalar", "avx2" or "avx512".
const char* isa_name(Isa isa);

/// Build and run-time configuration, as torch::show_config(): version, CPU, the ISA
/// path of the kernels, the GEMM in use, BLAS and its kernel name, thread settings.
std::string show_config();

}  // namespace nabla
