#pragma once
// The CUDA implementation of the backend contract (nabla/backend/backend.h). Entries are
// defined per kernel family in this folder, each a .cpp (tensors in, plain arguments out:
// device_args.h) beside a .cu with its kernels: elementwise, reduce, index, window,
// norm, random, gemm (cuBLAS), conv (cuDNN), optim. Every kernel runs on the current
// stream of the tensors' device (Note [Current stream]) and never synchronizes the host.
#include "backend/cuda/device_args.h"
#include "nabla/backend/backend.h"

namespace nabla::cuda_kernels {

class CudaBackend final : public KernelBackend {
 public:
  DeviceType device_type() const override { return kCUDA; }
#define NABLA_KERNEL_METHOD(Ret, name, params, args, event) Ret name params override;
#include "nabla/backend/kernel_methods.def"
#undef NABLA_KERNEL_METHOD
};

/// A tensor as the kernels see it (a nabla::Error past kMaxDims dims).
TensorArg tensor_arg(const Tensor& t);
/// The plan for N operands of one shape (out's; the inputs broadcast to it).
template <int N>
ElementwisePlan<N> elementwise_plan(const Tensor* const (&operands)[N]);
/// Makes t's device current for an entry's scope and holds its current stream, which the
/// entry's launches use.
class OnDevice {
 public:
  explicit OnDevice(const Tensor& t);
  Stream stream() const { return stream_; }

 private:
  cuda::CUDAGuard guard_;
  Stream stream_;
};
/// A nabla::Error for an entry with no CUDA kernel for these arguments yet.
[[noreturn]] void not_on_cuda(const char* entry, const char* what);

}  // namespace nabla::cuda_kernels
