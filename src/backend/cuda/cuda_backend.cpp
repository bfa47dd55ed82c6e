// The CUDA backend's instance and the helpers every kernel family shares: tensors turned
// into kernel arguments (device_args.h) and the elementwise plan.
#include "backend/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "nabla/core/detail/cuda/libraries.h"

#include "backend/device_backends.h"
#include "nabla/core/cuda.h"

namespace nabla {

KernelBackend* cuda_device_backend() {
  static cuda_kernels::CudaBackend backend;
  return cuda::is_available() ? &backend : nullptr;
}

bool cuda_conv_library() { return cuda::cudnn_is_available(); }

std::string cuda_config() {
  int runtime = 0, driver = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaDriverGetVersion(&driver);
  auto version = [](int v) { return str(v / 1000, ".", (v % 1000) / 10); };
  std::string s = str("runtime ", version(runtime), ", kernels for sm ", NABLA_CUDA_ARCHS);
  if (!cuda::is_available())
    return s + str(", no device (driver ", driver ? version(driver) : "absent", ")");
  s += str(", driver ", version(driver), ", cuBLAS ", CUBLAS_VER_MAJOR, ".", CUBLAS_VER_MINOR);
#if NABLA_HAVE_CUDNN
  if (cuda::cudnn_is_available())
    s += str(", cuDNN ", cuda::detail::cudnn()->cudnnGetVersion());
  else
    s += ", cuDNN not found (convolutions by im2col + cuBLAS)";
#else
  s += ", no cuDNN (convolutions by im2col + cuBLAS)";
#endif
  for (int d = 0; d < cuda::device_count(); ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    s += str("\n    cuda:", d, " ", p.name, ", sm_", p.major, p.minor, ", ", p.multiProcessorCount,
             " SMs, ", p.totalGlobalMem >> 20, " MiB");
  }
  return s;
}

namespace cuda_kernels {

OnDevice::OnDevice(const Tensor& t)
    : guard_(t.device()), stream_(cuda::getCurrentCUDAStream(t.device().index()).stream()) {}

void not_on_cuda(const char* entry, const char* what) {
  throw Error(str(entry, ": no CUDA kernel yet for ", what,
                  "; move the tensors to the CPU (.cpu()) for this op"));
}

TensorArg tensor_arg(const Tensor& t) {
  TensorArg a;
  if (!t.defined()) return a;
  NABLA_CHECK(t.dim() <= kMaxDims, "CUDA kernels take tensors of at most ", kMaxDims, " dims, got ",
              t.dim());
  a.data = static_cast<char*>(t.data_ptr());
  a.dtype = t.scalar_type();
  a.ndim = static_cast<int>(t.dim());
  a.numel = t.numel();
  for (int d = 0; d < a.ndim; ++d) {
    a.sizes[d] = t.size(d);
    a.strides[d] = t.stride(d);
  }
  return a;
}

// Dims of out's shape, innermost first; an input with fewer dims is aligned at the right
// and reads its missing and size-1 dims with stride 0. Neighbouring dims merge when every
// operand steps through them as one (stride of the outer = size * stride of the inner).
template <int N>
ElementwisePlan<N> elementwise_plan(const Tensor* const (&operands)[N]) {
  const Tensor& out = *operands[0];
  NABLA_CHECK(out.dim() <= kMaxDims, "CUDA kernels take tensors of at most ", kMaxDims,
              " dims, got ", out.dim());
  ElementwisePlan<N> p;
  p.numel = out.numel();
  const int nd = static_cast<int>(out.dim());
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];
  for (int i = 0; i < nd; ++i) {  // i: position from the innermost
    const int64_t d = nd - 1 - i;
    sizes[i] = out.size(d);
    for (int k = 0; k < N; ++k) {
      const Tensor& t = *operands[k];
      const int64_t td = t.dim() - 1 - i;
      const int64_t bytes = static_cast<int64_t>(elementSize(t.scalar_type()));
      strides[k][i] = td >= 0 && t.size(td) != 1 ? t.stride(td) * bytes : 0;
    }
  }
  for (int k = 0; k < N; ++k) p.data[k] = static_cast<char*>(operands[k]->data_ptr());
  int m = 0;
  for (int i = 0; i < nd; ++i) {
    if (sizes[i] == 1) continue;
    if (m > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k)
        merge = merge && strides[k][i] == p.sizes[m - 1] * p.strides[k][m - 1];
      if (merge) {
        p.sizes[m - 1] *= sizes[i];
        continue;
      }
    }
    p.sizes[m] = sizes[i];
    for (int k = 0; k < N; ++k) p.strides[k][m] = strides[k][i];
    ++m;
  }
  p.ndim = m;
  return p;
}

template ElementwisePlan<1> elementwise_plan<1>(const Tensor* const (&)[1]);
template ElementwisePlan<2> elementwise_plan<2>(const Tensor* const (&)[2]);
template ElementwisePlan<3> elementwise_plan<3>(const Tensor* const (&)[3]);
template ElementwisePlan<4> elementwise_plan<4>(const Tensor* const (&)[4]);

}  // namespace cuda_kernels
}  // namespace nabla
