// Run-time ISA choice (include/nabla/backend/isa.h) and show_config().
#include "nabla/backend/isa.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backend/cpu/gemm/gemm.h"
#include "backend/cpu/onednn/conv_dnnl.h"
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

namespace {

Isa isa_from_env() {
  const Isa best = supported_isa();
  const char* env = std::getenv("NABLA_ISA");
  if (env == nullptr || *env == '\0') return best;
  const std::string want = env;
  Isa asked = best;
  if (want == "scalar")
    asked = Isa::Scalar;
  else if (want == "avx2")
    asked = Isa::Avx2;
  else if (want == "avx512")
    asked = Isa::Avx512;
  else
    NABLA_CHECK(false, "NABLA_ISA: expected scalar, avx2 or avx512, got \"", want, "\"");
  NABLA_CHECK(asked <= best, "NABLA_ISA=", want,
              " asks for a path this CPU does not support (it supports up to ", isa_name(best),
              ")");
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
    << " build of the CPU kernels (one per path, chosen at run time)\n"
    << "  float32 GEMM: " << cpu::gemm::describe() << "\n"
    << "  float32 convolutions: " << cpu::conv::describe() << "\n"
    << "  BLAS: OpenBLAS, core " << openblas_get_corename() << ", " << openblas_get_num_threads()
    << " threads\n"
    << "  intra-op threads: " << threads << "\n";
  return s.str();
}

}  // namespace nabla
