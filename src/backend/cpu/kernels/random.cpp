// The CPU's random fills are LibTorch's serial streams (src/backend/cpu/random_streams.cpp,
// compiled once): the draws are in order, so neither the thread count nor the vector
// width of this ISA path changes a number.
#include "backend/cpu/kernels/cpu_backend.h"
#include "nabla/backend/detail/cpu_random_streams.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

void CpuBackend::random(Distribution dist, const Tensor& out, Generator& gen, const Scalar& a,
                        const Scalar& b) {
  fill_random(dist, out, gen, a, b);
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
