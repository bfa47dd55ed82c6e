// TEMPORARY: kernels whose implementation is in progress. Each raises until its file lands.
#include "backend/cpu/cpu_backend.h"

namespace nabla::cpu {
void CpuBackend::reduce(ReduceOp, const Tensor&, const Tensor&, IntArrayRef) { NABLA_CHECK(false, "reduce: not implemented yet"); }
void CpuBackend::arg_reduce(bool, const Tensor&, const Tensor&, const Tensor&, int64_t) { NABLA_CHECK(false, "arg_reduce: not implemented yet"); }
}  // namespace nabla::cpu
