// The reduction entries of the CUDA backend: reduce, arg_reduce, cumsum and sort. This file
// checks arguments and allocates scratch; the kernels are in reduce.cu (Note [CUDA
// reduction layout]).
#include <cstdint>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/reduce_launch.h"
#include "nabla/core/detail/cuda/cuda_check.h"

namespace nabla::cuda_kernels {
namespace {

// The kernels take every dtype but the 16-bit floats, which the ops never pass.
void check_dtype(const char* entry, const Tensor& t) {
  if (isReducedFloatingType(t.scalar_type()))
    not_on_cuda(entry, std::string(dtype_name(t.scalar_type())).c_str());
}

// `bytes` of device scratch on t's device (undefined for 0); freed when the entry returns,
// which is safe: the caching allocator reuses it only in this stream's order.
Tensor scratch(int64_t bytes, const Tensor& t) {
  return bytes > 0 ? empty_contiguous({bytes}, kByte, t.device()) : Tensor();
}

void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  NABLA_ASSERT(out.dim() == in.dim() && out.scalar_type() == in.scalar_type(),
               "reduce: out must be the keepdim shape in the input's dtype");
  NABLA_ASSERT((op != ReduceOp::All && op != ReduceOp::Any) || in.scalar_type() == kBool,
               "reduce: all/any need bool tensors, got ", in.scalar_type());
  check_dtype("reduce", in);
  if (out.numel() == 0) return;
  uint32_t mask = 0;
  for (int64_t d : dims) mask |= 1u << d;
  OnDevice on(in);
  const TensorArg o = tensor_arg(out), i = tensor_arg(in);
  const Tensor s = scratch(reduce_scratch_bytes(o, i, mask), in);
  NABLA_CUDA_CHECK(launch_reduce(op, o, i, mask, data_or_null(s), on.stream()));
}

void CudaBackend::arg_reduce(bool is_max, const Tensor& out_index, const Tensor& out_value,
                             const Tensor& in, int64_t dim) {
  NABLA_ASSERT(out_index.strides() == out_value.strides(),
               "arg_reduce: index and value outputs must share strides");
  check_dtype("arg_reduce", in);
  if (out_index.numel() == 0) return;
  NABLA_ASSERT(in.dim() == 0 || in.size(dim) > 0, "arg_reduce: empty range");
  OnDevice on(in);
  const TensorArg oi = tensor_arg(out_index), ov = tensor_arg(out_value), i = tensor_arg(in);
  const int d = static_cast<int>(dim);
  const Tensor s = scratch(reduce_scratch_bytes(oi, i, 1u << d), in);
  NABLA_CUDA_CHECK(launch_arg_reduce(is_max, oi, ov, i, d, data_or_null(s), on.stream()));
}

void CudaBackend::cumsum(const Tensor& out, const Tensor& in, int64_t dim) {
  check_dtype("cumsum", in);
  if (out.numel() == 0) return;
  OnDevice on(in);
  NABLA_CUDA_CHECK(
      launch_cumsum(tensor_arg(out), tensor_arg(in), static_cast<int>(dim), on.stream()));
}

void CudaBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                       bool descending) {
  NABLA_ASSERT(values.strides() == indices.strides(), "sort: outputs must share strides");
  check_dtype("sort", in);
  if (values.numel() == 0) return;
  if (in.dim() > 0 && in.size(dim) > INT32_MAX)
    not_on_cuda("sort", "rows of 2^31 or more elements");
  OnDevice on(in);
  const TensorArg v = tensor_arg(values), i = tensor_arg(in);
  const int d = static_cast<int>(dim);
  int64_t bytes = 0;
  NABLA_CUDA_CHECK(sort_scratch_bytes(i, d, &bytes));
  const Tensor s = scratch(bytes, in);
  NABLA_CUDA_CHECK(
      launch_sort(v, tensor_arg(indices), i, d, descending, data_or_null(s), on.stream()));
}

}  // namespace nabla::cuda_kernels
