// Device dispatch: backend_for(Device) is the one place that maps a device to the backend
// that computes on it. Each backend lives in its own folder (cpu/, cuda/); this file
// knows them only through device_backends.h.
#include <memory>

#include "backend/cpu/cpu_backends.h"
#include "backend/device_backends.h"
#include "backend/device_checking_backend.h"
#include "backend/profiling_backend.h"
#include "nabla/core/error.h"
#include "nabla/core/profiler.h"

namespace nabla {

KernelBackend& cpu_device_backend() { return cpu::cpu_backend_for(active_isa()); }

namespace {

// A device's backend as ops see it: checked for mixed devices while a GPU is present
// (Note [One device per op]), and timed by the profiling proxy while a profile runs.
struct DeviceSlot {
  KernelBackend* backend = nullptr;
  std::unique_ptr<DeviceCheckingBackend> checked;
  std::unique_ptr<ProfilingBackend> profiled;

  explicit DeviceSlot(KernelBackend* device_backend, bool several_devices) {
    if (!device_backend) return;
    backend = device_backend;
    if (several_devices) {
      checked = std::make_unique<DeviceCheckingBackend>(*device_backend);
      backend = checked.get();
    }
    profiled = std::make_unique<ProfilingBackend>(*backend);
  }
};

DeviceSlot& slot_for(DeviceType type) {
  static KernelBackend* const cuda = cuda_device_backend();
  static DeviceSlot cpu_slot(&cpu_device_backend(), cuda != nullptr);
  static DeviceSlot cuda_slot(cuda, true);
  return type == DeviceType::CUDA ? cuda_slot : cpu_slot;
}

}  // namespace

KernelBackend& backend_for(Device device) {
  DeviceSlot& slot = slot_for(device.type());
  NABLA_CHECK(slot.backend, "no backend for device ", device,
              ": this build of nabla or this machine has no CUDA device (cuda::is_available() is "
              "false)");
  // While a profile runs, kernels go through a timing proxy (nabla/core/profiler.h).
  if (autograd::profiler::is_enabled()) [[unlikely]]
    return *slot.profiled;
  return *slot.backend;
}

void throw_reduced_precision(ScalarType t) {
  throw Error(str(
      "this op does not support ", t, " (", dtype_name(t), ") tensors: nabla stores 16-bit floats ",
      "and converts them, but computes in float32/float64; convert first with .to(nabla::kFloat)"));
}

}  // namespace nabla
