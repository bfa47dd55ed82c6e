#pragma once
// The backends this build has, one per device type, for dispatch.cpp (the only place that
// picks a backend for a device).
#include <string>

#include "nabla/backend/backend.h"

namespace nabla {

/// The CPU backend of the best ISA path the CPU supports (active_isa()).
KernelBackend& cpu_device_backend();
/// The CUDA backend (src/backend/cuda/), or nullptr in a build without CUDA
/// (src/backend/cuda_unavailable.cpp) or on a machine without a GPU.
KernelBackend* cuda_device_backend();
/// Whether CUDA convolutions have a library (cuDNN) to run on (false without CUDA).
bool cuda_conv_library();
/// show_config()'s CUDA line: the GPUs, runtime, driver and libraries, or why there are
/// none.
std::string cuda_config();

}  // namespace nabla
