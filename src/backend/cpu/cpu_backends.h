#pragma once
// The CPU backend, one instance per ISA path (Note [Kernels per ISA]).
#include "nabla/backend/backend.h"
#include "nabla/backend/isa.h"

namespace nabla::cpu {

namespace avx512 {
KernelBackend& cpu_backend();
}
namespace avx2 {
KernelBackend& cpu_backend();
}
namespace baseline {
KernelBackend& cpu_backend();
}

/// The CPU backend whose loops were compiled for `isa` (Isa::Scalar: baseline x86-64).
KernelBackend& cpu_backend_for(Isa isa);

}  // namespace nabla::cpu
