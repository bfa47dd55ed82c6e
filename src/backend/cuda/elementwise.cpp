// CudaBackend's elementwise entries: copy, fill, unary, binary, where (kernels in
// elementwise.cu).
#include <cstring>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/elementwise_launch.h"
#include "backend/profiling_backend.h"
#include "nabla/core/detail/cuda/cuda_check.h"
#include "nabla/core/half.h"

namespace nabla::cuda_kernels {
namespace {

template <class T>
uint64_t bits_of(T v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// The fill value in dst's representation, converted on the host as the CPU's fill does.
uint64_t fill_bits(ScalarType t, const Scalar& value) {
  switch (t) {
    case ScalarType::Bool:
      return bits_of(value.to<bool>());
    case ScalarType::Byte:
      return bits_of(value.to<uint8_t>());
    case ScalarType::Int:
      return bits_of(value.to<int32_t>());
    case ScalarType::Long:
      return bits_of(value.to<int64_t>());
    case ScalarType::Float:
      return bits_of(value.to<float>());
    case ScalarType::Double:
      return bits_of(value.to<double>());
    case ScalarType::Half:
      return bits_of(Half(value.to<float>()).x);
    case ScalarType::BFloat16:
      return bits_of(BFloat16(value.to<float>()).x);
    case ScalarType::Char:
      return bits_of(value.to<int8_t>());
    case ScalarType::Short:
      return bits_of(value.to<int16_t>());
  }
  return 0;
}

void check_supported(cudaError_t err, const char* entry, const char* what, ScalarType t) {
  if (err == cudaErrorNotSupported) {
    (void)cudaGetLastError();
    not_on_cuda(entry, str(what, " on ", dtype_name(t), " tensors").c_str());
  }
  NABLA_CUDA_CHECK(err);
}

}  // namespace

void CudaBackend::copy(const Tensor& dst, const Tensor& src) {
  OnDevice on(dst);
  NABLA_CUDA_CHECK(launch_copy(elementwise_plan<2>({&dst, &src}), dst.scalar_type(),
                               src.scalar_type(), on.stream()));
}

void CudaBackend::fill(const Tensor& dst, const Scalar& value) {
  OnDevice on(dst);
  NABLA_CUDA_CHECK(launch_fill(elementwise_plan<1>({&dst}),
                               static_cast<int>(elementSize(dst.scalar_type())),
                               fill_bits(dst.scalar_type(), value), on.stream()));
}

void CudaBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  OnDevice on(out);
  check_supported(
      launch_unary(op, elementwise_plan<2>({&out, &in}), in.scalar_type(), p, on.stream()), "unary",
      kernel_name(op), in.scalar_type());
}

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                         const Scalar& alpha) {
  OnDevice on(out);
  const bool integral = alpha.isIntegral(/*includeBool=*/true);
  check_supported(launch_binary(op, elementwise_plan<3>({&out, &a, &b}), a.scalar_type(),
                                alpha.toDouble(), integral ? alpha.toLong() : 0, on.stream()),
                  "binary", kernel_name(op), a.scalar_type());
}

void CudaBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  OnDevice on(out);
  NABLA_CUDA_CHECK(launch_where(elementwise_plan<4>({&out, &cond, &a, &b}),
                                static_cast<int>(elementSize(out.scalar_type())), on.stream()));
}

}  // namespace nabla::cuda_kernels
