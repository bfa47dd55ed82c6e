// CudaBackend::gemm on cuBLAS: float32 in full FP32 unless
// globalContext().allowTF32CuBLAS() (off by default, as in LibTorch since 1.12, so results
// agree with the CPU's to float32 rounding), and float64, batched by one strided-batched call;
// integer matrices on nabla's own kernel (gemm.cu).
// cuBLAS is column-major: a row-major C = A @ B is computed as C^T = B^T @ A^T, where each
// row-major operand is already its transpose in column-major terms.

#include <mutex>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/gemm_launch.h"
#include "nabla/core/context.h"
#include "nabla/core/detail/cuda/cuda_check.h"
#include "nabla/core/detail/cuda/libraries.h"

namespace nabla::cuda_kernels {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  NABLA_CHECK(status == CUBLAS_STATUS_SUCCESS, "cuBLAS error in ", call, ": ",
              cuda::detail::cublas().cublasGetStatusString(status));
}

// One handle per device, created on first use and kept for the process (destroying it at
// exit could run after the driver has unloaded).
cublasHandle_t handle_for(int device) {
  static std::mutex mutex;
  static cublasHandle_t handles[16] = {};
  std::lock_guard<std::mutex> lock(mutex);
  if (!handles[device])
    check_cublas(cuda::detail::cublas().cublasCreate(&handles[device]), "cublasCreate");
  // TF32 rounds the operands to 10 mantissa bits: only when the program asked for it.
  check_cublas(cuda::detail::cublas().cublasSetMathMode(
                   handles[device], globalContext().allowTF32CuBLAS() ? CUBLAS_TF32_TENSOR_OP_MATH
                                                                      : CUBLAS_PEDANTIC_MATH),
               "cublasSetMathMode");
  return handles[device];
}

// An operand [..., r, c] as cuBLAS sees it: its column-major transpose (op N) when rows
// are contiguous, itself transposed (op T) when columns are; ld its leading dimension;
// batch_stride the step between matrices (0: broadcast), valid when the batch dims
// collapse to one stride.
struct Operand {
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
  int64_t batch_stride = 0;
  bool usable = false;
};

Operand describe(const Tensor& t) {
  Operand o;
  const int64_t nd = t.dim(), r = t.size(nd - 2), c = t.size(nd - 1);
  const int64_t sr = t.stride(nd - 2), sc = t.stride(nd - 1);
  if ((sc == 1 || c == 1) && sr >= std::max<int64_t>(1, c)) {
    o.op = CUBLAS_OP_N;
    o.ld = std::max<int64_t>(sr, std::max<int64_t>(1, c));
  } else if ((sr == 1 || r == 1) && sc >= std::max<int64_t>(1, r)) {
    o.op = CUBLAS_OP_T;
    o.ld = std::max<int64_t>(sc, std::max<int64_t>(1, r));
  } else {
    return o;
  }
  // The batch dims must collapse into one stride (all zero for a broadcast operand).
  int64_t inner = -1, expect = 0;
  for (int64_t d = nd - 3; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (inner < 0)
      inner = t.stride(d);
    else if (t.stride(d) != expect)
      return o;
    expect = t.stride(d) * t.size(d);
  }
  o.batch_stride = inner < 0 ? 0 : inner;
  o.usable = o.ld <= INT32_MAX;
  return o;
}

}  // namespace

void CudaBackend::gemm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
                       const Scalar& alpha) {
  const ScalarType t = c.scalar_type();
  // float32/float64 on cuBLAS; uint8, int32, int64 on gemm.cu (int8/int16 are CPU-only).
  if (t != kFloat && t != kDouble && t != kByte && t != kInt && t != kLong)
    not_on_cuda("gemm", str(dtype_name(t), " matrices").c_str());
  OnDevice on(c);
  const int64_t nd = c.dim(), m = c.size(nd - 2), n = c.size(nd - 1), k = a.size(nd - 1);
  const int64_t batch = m == 0 ? 0 : c.numel() / (m * std::max<int64_t>(n, 1));
  if (c.numel() == 0) return;
  if (k == 0 && beta.toDouble() == 0) return fill(c, 0);
  auto dense = [&](const Tensor& x) {
    Tensor y = empty_contiguous(x.sizes(), x.scalar_type(), x.device());
    copy(y, x);
    return y;
  };
  if (t != kFloat && t != kDouble) {  // integers: nabla's own kernel (gemm.cu) on dense copies
    Tensor A = dense(a), B = dense(b),
           C = beta.toDouble() == 0 ? empty_contiguous(c.sizes(), t, c.device()) : dense(c);
    NABLA_CUDA_CHECK(launch_int_gemm(t, A.data_ptr(), B.data_ptr(), C.data_ptr(), batch, m, n, k,
                                     alpha.to<int64_t>(), beta.to<int64_t>(), on.stream()));
    copy(c, C);
    return;
  }
  Tensor A = a, B = b;
  Operand oa = describe(A), ob = describe(B);
  if (!oa.usable) A = dense(A), oa = describe(A);
  if (!ob.usable) B = dense(B), ob = describe(B);
  // C must be row-major (op N in the transposed view); else compute into a dense copy.
  Tensor C = c;
  Operand oc = describe(C);
  const bool staged = !oc.usable || oc.op != CUBLAS_OP_N || (batch > 1 && oc.batch_stride == 0);
  if (staged) {
    C = beta.toDouble() == 0 ? empty_contiguous(c.sizes(), t, c.device()) : dense(c);
    oc = describe(C);
  }
  NABLA_CHECK(m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX && batch <= INT32_MAX,
              "gemm: sizes beyond cuBLAS's 32-bit limits: ", m, "x", k, " @ ", k, "x", n);
  cublasHandle_t h = handle_for(static_cast<int>(c.device().index()));
  check_cublas(cuda::detail::cublas().cublasSetStream(h, on.stream()), "cublasSetStream");
  // C^T [n, m] = B^T [n, k] @ A^T [k, m]
  const int in = static_cast<int>(n), im = static_cast<int>(m), ik = static_cast<int>(k);
  if (t == kFloat) {
    const float al = alpha.to<float>(), be = beta.to<float>();
    check_cublas(
        cuda::detail::cublas().cublasSgemmStridedBatched(
            h, ob.op, oa.op, in, im, ik, &al, B.data_ptr<float>(), static_cast<int>(ob.ld),
            ob.batch_stride, A.data_ptr<float>(), static_cast<int>(oa.ld), oa.batch_stride, &be,
            C.data_ptr<float>(), static_cast<int>(oc.ld), oc.batch_stride, static_cast<int>(batch)),
        "cublasSgemmStridedBatched");
  } else {
    const double al = alpha.to<double>(), be = beta.to<double>();
    check_cublas(cuda::detail::cublas().cublasDgemmStridedBatched(
                     h, ob.op, oa.op, in, im, ik, &al, B.data_ptr<double>(),
                     static_cast<int>(ob.ld), ob.batch_stride, A.data_ptr<double>(),
                     static_cast<int>(oa.ld), oa.batch_stride, &be, C.data_ptr<double>(),
                     static_cast<int>(oc.ld), oc.batch_stride, static_cast<int>(batch)),
                 "cublasDgemmStridedBatched");
  }
  if (staged) copy(c, C);
}

}  // namespace nabla::cuda_kernels
