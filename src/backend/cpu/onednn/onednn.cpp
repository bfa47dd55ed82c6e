// oneDNN's process-wide setup behind onednn.h.
#include "backend/cpu/onednn/onednn.h"

#include "nabla/backend/isa.h"

#if NABLA_HAVE_DNNL

#include <oneapi/dnnl/dnnl.hpp>
#include <sstream>

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
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2:
      out << "avx2";
      break;
    case dnnl::cpu_isa::avx512_core:
      out << "avx512_core";
      break;
    case dnnl::cpu_isa::avx512_core_vnni:
      out << "avx512_core_vnni";
      break;
    case dnnl::cpu_isa::avx512_core_bf16:
      out << "avx512_core_bf16";
      break;
    case dnnl::cpu_isa::avx512_core_amx:
      out << "avx512_core_amx";
      break;
    default:
      out << "baseline";
  }
  out << " kernels";
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
