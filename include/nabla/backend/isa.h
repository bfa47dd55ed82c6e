#pragma once
// The instruction-set path of nabla's CPU kernels, chosen at run time from the CPU's
// feature flags (cpuid), never from a list of CPU models, among the paths the build
// compiled (CMake's NABLA_KERNEL_ISAS; all three by default). NABLA_ISA=scalar|avx2|avx512
// in the environment caps the path (to test or measure a lower one).
#include <string>

namespace nabla {

enum class Isa { Scalar = 0, Avx2 = 1, Avx512 = 2 };

/// The best path this CPU supports: Avx512 needs AVX-512F/BW/VL/DQ, Avx2 needs AVX2 and FMA.
Isa supported_isa();
/// Whether this build compiled the kernels for `isa` (NABLA_KERNEL_ISAS).
bool isa_compiled(Isa isa);
/// The path the kernels take: the best compiled path within supported_isa(), capped by
/// NABLA_ISA. A NABLA_ISA above what the CPU supports, naming a path the build did not
/// compile, or not one of the three names, is a nabla::Error, as is a build whose paths
/// this CPU cannot run.
Isa active_isa();
/// "scalar", "avx2" or "avx512".
const char* isa_name(Isa isa);

/// Build and run-time configuration, as torch::show_config(): version, CPU, the ISA
/// path of the kernels, the GEMM in use, BLAS and its kernel name, thread settings.
std::string show_config();

}  // namespace nabla
