// oneDNN's process-wide setup behind onednn.h.
#include "backend/cpu/onednn/onednn.h"

#include "nabla/backend/isa.h"

#if NABLA_HAVE_DNNL

#include <oneapi/dnnl/dnnl.hpp>
#include <sstream>
#include <utility>

extern "C" void omp_set_num_threads(int n);

namespace nabla::cpu::onednn {

bool available() {
  static const bool on = [] {
    if (active_isa() == Isa::Scalar) return false;
    if (active_isa() == Isa::Avx2) dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
    return true;
  }();
  return on;
}

std::string describe() {
  if (!available()) return "oneDNN not used: NABLA_ISA=scalar";
  const dnnl_version_t* v = dnnl::version();
  std::ostringstream out;
  out << "oneDNN " << v->major << "." << v->minor << "." << v->patch << ", ";
  using dnnl::cpu_isa;
  static const std::pair<cpu_isa, const char*> kNames[] = {
      {cpu_isa::avx2, "avx2"},
      {cpu_isa::avx512_core, "avx512_core"},
      {cpu_isa::avx512_core_vnni, "avx512_core_vnni"},
      {cpu_isa::avx512_core_bf16, "avx512_core_bf16"},
      {cpu_isa::avx512_core_amx, "avx512_core_amx"}};
  const char* name = "baseline";
  for (const auto& [isa, n] : kNames)
    if (isa == dnnl::get_effective_cpu_isa()) name = n;
  out << name << " kernels";
  return out.str();
}

void set_threads(int n) { omp_set_num_threads(n); }

}  // namespace nabla::cpu::onednn

#else  // built without oneDNN

namespace nabla::cpu::onednn {

bool available() { return false; }
std::string describe() { return "oneDNN not built in: libdnnl-dev was not found"; }
void set_threads(int) {}

}  // namespace nabla::cpu::onednn

#endif
