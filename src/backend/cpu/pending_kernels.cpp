// TEMPORARY: kernels whose implementation is in progress. Each raises until its file lands.
#include "backend/cpu/cpu_backend.h"

namespace nabla::cpu {
}  // namespace nabla::cpu
