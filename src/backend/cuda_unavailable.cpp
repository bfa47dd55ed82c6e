// The CUDA backend of a build without CUDA (NABLA_CUDA off or no CUDA compiler found):
// none. cmake/NablaCuda.cmake compiles this file instead of src/backend/cuda/.
#include "backend/device_backends.h"

namespace nabla {

KernelBackend* cuda_device_backend() { return nullptr; }
bool cuda_conv_library() { return false; }
std::string cuda_config() { return "not built (configure with -DNABLA_CUDA=ON)"; }

}  // namespace nabla
