// Run-time ISA choice (include/nabla/backend/isa.h) and show_config().
#include "nabla/backend/isa.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backend/cpu/gemm/gemm.h"
#include "backend/cpu/onednn/conv_dnnl.h"
#include "backend/device_backends.h"
#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"
#include "nabla/version.h"

extern "C" char* openblas_get_corename(void);
extern "C" int openblas_get_num_threads(void);

namespace nabla {

Isa supported_isa() {
  static const Isa isa = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      return Isa::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
    return Isa::Scalar;
  }();
  return isa;
}

bool isa_compiled(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return NABLA_KERNELS_AVX512 != 0;
    case Isa::Avx2:
      return NABLA_KERNELS_AVX2 != 0;
    case Isa::Scalar:
      break;
  }
  return NABLA_KERNELS_SCALAR != 0;
}

namespace {

std::string compiled_isas() {
  std::string names;
  for (Isa isa : {Isa::Avx512, Isa::Avx2, Isa::Scalar})
    if (isa_compiled(isa)) names += std::string(names.empty() ? "" : ", ") + isa_name(isa);
  return names;
}

Isa isa_from_env() {
  // The best path both the CPU and the build have (paths are ordered Scalar < Avx2 < Avx512).
  int best = static_cast<int>(supported_isa());
  while (best >= 0 && !isa_compiled(static_cast<Isa>(best))) --best;
  NABLA_CHECK(best >= 0, "this build of nabla compiled its CPU kernels for ", compiled_isas(),
              " only (NABLA_KERNEL_ISAS), and this CPU supports up to ", isa_name(supported_isa()),
              ": rebuild with -DNABLA_KERNEL_ISAS=all");
  const char* env = std::getenv("NABLA_ISA");
  if (env == nullptr || *env == '\0') return static_cast<Isa>(best);
  const std::string want = env;
  Isa asked = Isa::Scalar;
  if (want == "scalar")
    asked = Isa::Scalar;
  else if (want == "avx2")
    asked = Isa::Avx2;
  else if (want == "avx512")
    asked = Isa::Avx512;
  else
    NABLA_CHECK(false, "NABLA_ISA: expected scalar, avx2 or avx512, got \"", want, "\"");
  NABLA_CHECK(asked <= supported_isa(), "NABLA_ISA=", want,
              " asks for a path this CPU does not support (it supports up to ",
              isa_name(supported_isa()), ")");
  NABLA_CHECK(isa_compiled(asked), "NABLA_ISA=", want,
              " asks for a path this build did not compile (NABLA_KERNEL_ISAS gave ",
              compiled_isas(), ")");
  return asked;
}

// The first CPU's model name with its family and model numbers (machines of one name,
// "AMD EPYC" say, differ in generation and in what OpenBLAS makes of them).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name = "unknown CPU", family, model;
  auto value = [&line] { return line.substr(line.find(':') + 2); };
  while (std::getline(in, line) && !line.empty()) {
    if (line.rfind("model name", 0) == 0)
      name = value();
    else if (line.rfind("cpu family", 0) == 0)
      family = value();
    else if (line.rfind("model\t", 0) == 0)
      model = value();
  }
  if (!family.empty() && !model.empty()) name += " (family " + family + ", model " + model + ")";
  return name;
}

}  // namespace

Isa active_isa() {
  static const Isa isa = isa_from_env();
  return isa;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return "avx512";
    case Isa::Avx2:
      return "avx2";
    case Isa::Scalar:
      break;
  }
  return "scalar";
}

std::string show_config() {
  const int threads = get_num_threads();  // starts the pool, which sets OpenBLAS's threads
  std::ostringstream s;
  s << "nabla " << NABLA_VERSION << " (LibTorch API " << TORCH_VERSION_MAJOR << "."
    << TORCH_VERSION_MINOR << ")\n"
    << "  CPU: " << cpu_model() << "\n"
    << "  kernel ISA: " << isa_name(active_isa()) << " (CPU supports " << isa_name(supported_isa())
    << ")\n"
    << "  vector loops: the "
    << (active_isa() == Isa::Scalar ? "x86-64 baseline" : isa_name(active_isa()))
    << " build of the CPU kernels (built: " << compiled_isas() << "; chosen at run time)\n"
    << "  float32 GEMM: " << cpu::gemm::describe() << "\n"
    << "  float32 convolutions: " << cpu::conv::describe() << "\n"
    << "  BLAS: OpenBLAS, core " << openblas_get_corename() << ", " << openblas_get_num_threads()
    << " threads\n"
    << "  intra-op threads: " << threads << "\n"
    << "  CUDA: " << cuda_config() << "\n";
  return s.str();
}

}  // namespace nabla
