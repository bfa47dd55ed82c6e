// CudaBackend::random (kernels in random.cu).
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/random_launch.h"
#include "core/cuda/cuda_check.h"

namespace nabla::cuda_kernels {

void CudaBackend::random(Distribution d, const Tensor& out, uint64_t seed, uint64_t offset,
                         double a, double b) {
  NABLA_CHECK(out.is_contiguous(), "random kernel expects a contiguous output");
  OnDevice on(out);
  // As the CPU: RandInt's bounds saturate into int64 (backend/philox.h).
  auto sat = [](double v) {
    return v != v                        ? 0
           : v >= 9.2233720368547758e18  ? INT64_MAX
           : v <= -9.2233720368547758e18 ? INT64_MIN
                                         : static_cast<int64_t>(v);
  };
  const int64_t low = sat(a);
  const uint64_t range = static_cast<uint64_t>(sat(b) - low);
  const cudaError_t err =
      launch_random(out.data_ptr(), out.scalar_type(), out.numel(), static_cast<int>(d), seed,
                    offset, a, b, low, range, on.stream());
  if (err == cudaErrorNotSupported)
    not_on_cuda("random", str(dtype_name(out.scalar_type()), " tensors").c_str());
  NABLA_CUDA_CHECK(err);
}

}  // namespace nabla::cuda_kernels
