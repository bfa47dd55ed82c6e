// CudaBackend::random (kernels in random.cu): Philox counters reserved from the device's
// generator (Note [Counter-based random numbers]); a non-contiguous output is filled
// through a contiguous one, in row-major order.
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/random_launch.h"
#include "nabla/core/detail/cuda/cuda_check.h"

namespace nabla::cuda_kernels {

void CudaBackend::random(Distribution d, const Tensor& out, Generator& gen, const Scalar& a,
                         const Scalar& b) {
  NABLA_CHECK(!gen.device().is_cpu(), "random: a ", out.device(),
              " tensor needs a CUDA generator, got a CPU one");
  if (out.numel() == 0) return;
  if (!out.is_contiguous()) {
    Tensor dense = empty_contiguous(out.sizes(), out.scalar_type(), out.device());
    random(d, dense, gen, a, b);
    copy(out, dense);
    return;
  }
  OnDevice on(out);
  const auto [seed, offset] = gen.reserve(static_cast<uint64_t>(out.numel()));
  // RandInt's bounds are exact int64s; the range fits uint64 since low < high.
  const bool ints = d == Distribution::RandInt;
  const int64_t low = ints ? a.toLong() : 0;
  const uint64_t range = ints ? static_cast<uint64_t>(b.toLong()) - static_cast<uint64_t>(low) : 0;
  const cudaError_t err =
      launch_random(out.data_ptr(), out.scalar_type(), out.numel(), static_cast<int>(d), seed,
                    offset, a.toDouble(), b.toDouble(), low, range, on.stream());
  if (err == cudaErrorNotSupported)
    not_on_cuda("random", str(dtype_name(out.scalar_type()), " tensors").c_str());
  NABLA_CUDA_CHECK(err);
}

}  // namespace nabla::cuda_kernels
