#include "backend/cpu/cpu_backend.h"

namespace nabla {

Backend& backend_for(Device device) {
  static cpu::CpuBackend cpu_backend;
  NABLA_CHECK(device.is_cpu(), "no backend for device ", device,
              ": this build of nabla has only the cpu backend (cuda::is_available() is false)");
  return cpu_backend;
}

}  // namespace nabla
