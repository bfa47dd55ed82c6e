// CudaBackend's index entries: check_index_range, index_select, gather and scatter (kernels
// in index.cu).
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/index_launch.h"
#include "nabla/core/detail/cuda/cuda_check.h"
#include "nabla/core/detail/cuda/device_checks.h"

namespace nabla::cuda_kernels {

namespace {

void check_dtype(const char* entry, const Tensor& t) {
  if (isReducedFloatingType(t.scalar_type())) not_on_cuda(entry, "Half or BFloat16 tensors");
}

}  // namespace

void CudaBackend::check_index_range(const Tensor& index, int64_t lo, int64_t hi,
                                    const IndexCheck& what) {
  if (index.numel() == 0) return;
  OnDevice on(index);
  unsigned long long* slot = cuda::detail::claim_check_slot(index.device().index(), on.stream(),
                                                            {what.op, what.noun, what.context});
  NABLA_CUDA_CHECK(launch_check_range(static_cast<const int64_t*>(index.data_ptr()), index.numel(),
                                      lo, hi, slot, on.stream()));
}

void CudaBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim,
                               const Tensor& index) {
  check_dtype("index_select", out);
  if (out.numel() == 0) return;
  // A gather whose index has out's shape and repeats the 1-d index along the other dims.
  const TensorArg o = tensor_arg(out);
  TensorArg x;
  x.data = static_cast<char*>(index.data_ptr());
  x.dtype = ScalarType::Long;
  x.ndim = o.ndim;
  x.numel = o.numel;
  for (int d = 0; d < o.ndim; ++d) x.sizes[d] = o.sizes[d];
  x.strides[dim] = index.dim() == 0 ? 0 : index.stride(0);
  OnDevice on(out);
  NABLA_CUDA_CHECK(launch_gather(o, x, tensor_arg(in), static_cast<int>(dim), on.stream()));
}

void CudaBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  check_dtype("gather", out);
  if (out.numel() == 0) return;
  OnDevice on(out);
  NABLA_CUDA_CHECK(launch_gather(tensor_arg(out), tensor_arg(index), tensor_arg(in),
                                 static_cast<int>(dim), on.stream()));
}

void CudaBackend::scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          bool accumulate) {
  check_dtype(accumulate ? "scatter_add" : "scatter", self);
  if (index.numel() == 0) return;
  OnDevice on(self);
  NABLA_CUDA_CHECK(launch_scatter(tensor_arg(self), tensor_arg(index), tensor_arg(src),
                                  static_cast<int>(dim), accumulate, on.stream()));
}

}  // namespace nabla::cuda_kernels
