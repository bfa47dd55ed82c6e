// The normalization entries of the CUDA backend: softmax and its backward, moments,
// channel_affine, group_norm_backward and batch_norm_backward (and the fused cross-entropy,
// which answers false). This file checks arguments and allocates scratch; the kernels are
// in norm.cu (Note [CUDA slot reductions]).
#include <cstdint>
#include <initializer_list>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/norm_launch.h"
#include "nabla/core/detail/cuda/cuda_check.h"

namespace nabla::cuda_kernels {
namespace {

// The same message as the CPU kernels' for a dtype outside the contract.
void check_floating(const char* kernel, const Tensor& t) {
  NABLA_CHECK(t.scalar_type() == kFloat || t.scalar_type() == kDouble, kernel,
              " kernel: float or double expected, got ", t.scalar_type());
}

void check_operands(const char* kernel, const Tensor& ref,
                    std::initializer_list<const Tensor*> operands) {
  for (const Tensor* t : operands) {
    if (!t->defined()) continue;
    NABLA_ASSERT(t->is_contiguous(), kernel, " kernel: contiguous operands");
    NABLA_ASSERT(t->scalar_type() == ref.scalar_type(), kernel, " kernel: operands of one dtype");
  }
}

void* ptr(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// `count` doubles of device scratch on t's device (undefined for 0); freed when the entry
// returns, which is safe: the caching allocator reuses it only in this stream's order.
Tensor double_scratch(int64_t count, const Tensor& t) {
  return count > 0 ? empty_contiguous({count}, kDouble, t.device()) : Tensor();
}

// A tensor of `sizes` seen as [outer, n, inner] around `dim` (n = 1 for a 0-d tensor).
struct AroundDim {
  int64_t outer = 1, n = 1, inner = 1;
};
AroundDim around_dim(IntArrayRef sizes, int64_t dim) {
  AroundDim a;
  if (!sizes.empty()) a.n = sizes[dim];
  for (int64_t d = 0; d < dim; ++d) a.outer *= sizes[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(sizes.size()); ++d) a.inner *= sizes[d];
  return a;
}

NormBackwardArgs backward_args(const Tensor& grad_in, const Tensor& grad_weight,
                               const Tensor& grad_bias, const Tensor& grad_out, const Tensor& in,
                               const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                               int64_t n, int64_t c, int64_t g, int64_t s) {
  NormBackwardArgs a;
  a.dtype = in.scalar_type();
  a.grad_in = ptr(grad_in);
  a.grad_weight = ptr(grad_weight);
  a.grad_bias = ptr(grad_bias);
  a.grad_out = ptr(grad_out);
  a.in = ptr(in);
  a.mean = ptr(mean);
  a.rstd = ptr(rstd);
  a.weight = ptr(weight);
  a.n = n;
  a.c = c;
  a.g = g;
  a.s = s;
  return a;
}

}  // namespace

void CudaBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  check_floating("softmax", in);
  check_operands("softmax", in, {&out, &in});
  if (in.numel() == 0) return;
  const AroundDim a = around_dim(in.sizes(), dim);
  OnDevice on(in);
  NABLA_CUDA_CHECK(launch_softmax(in.scalar_type(), out.data_ptr(), in.data_ptr(), a.outer, a.n,
                                  a.inner, log, on.stream()));
}

void CudaBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                   int64_t dim, bool log) {
  check_floating("softmax_backward", out);
  check_operands("softmax_backward", out, {&grad_in, &grad_out, &out});
  if (out.numel() == 0) return;
  const AroundDim a = around_dim(out.sizes(), dim);
  OnDevice on(out);
  NABLA_CUDA_CHECK(launch_softmax_backward(out.scalar_type(), grad_in.data_ptr(),
                                           grad_out.data_ptr(), out.data_ptr(), a.outer, a.n,
                                           a.inner, log, on.stream()));
}

void CudaBackend::moments(const Tensor& mean, const Tensor& var, const Tensor& in, int64_t n,
                          int64_t c, int64_t s) {
  check_floating("moments", in);
  check_operands("moments", in, {&mean, &var, &in});
  if (c == 0) return;
  OnDevice on(in);
  const Tensor scratch = double_scratch(moments_scratch(n, c, s), in);
  NABLA_CUDA_CHECK(launch_moments(in.scalar_type(), mean.data_ptr(), var.data_ptr(), ptr(in), n, c,
                                  s, static_cast<double*>(ptr(scratch)), on.stream()));
}

void CudaBackend::channel_affine(const Tensor& out, const Tensor& in, const Tensor& center,
                                 const Tensor& scale, const Tensor& shift, int64_t n, int64_t c,
                                 int64_t s) {
  check_floating("channel_affine", in);
  check_operands("channel_affine", in, {&out, &in, &center, &scale, &shift});
  if (n * c * s == 0) return;
  OnDevice on(in);
  NABLA_CUDA_CHECK(launch_channel_affine(in.scalar_type(), out.data_ptr(), in.data_ptr(),
                                         center.data_ptr(), scale.data_ptr(), shift.data_ptr(), n,
                                         c, s, on.stream()));
}

void CudaBackend::group_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                      const Tensor& grad_bias, const Tensor& grad_out,
                                      const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                      const Tensor& weight, int64_t n, int64_t c, int64_t g,
                                      int64_t s) {
  check_floating("group_norm_backward", in);
  check_operands("group_norm_backward", in,
                 {&grad_in, &grad_weight, &grad_bias, &grad_out, &in, &mean, &rstd, &weight});
  NABLA_ASSERT(g > 0 && c % g == 0, "group_norm_backward kernel: C divisible by G");
  if (c == 0) return;
  OnDevice on(in);
  const NormBackwardArgs a =
      backward_args(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, n, c, g, s);
  const Tensor scratch = double_scratch(group_norm_backward_scratch(a), in);
  NABLA_CUDA_CHECK(launch_group_norm_backward(a, static_cast<double*>(ptr(scratch)), on.stream()));
}

void CudaBackend::batch_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                      const Tensor& grad_bias, const Tensor& grad_out,
                                      const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                      const Tensor& weight, int64_t n, int64_t c, int64_t s,
                                      bool training) {
  check_floating("batch_norm_backward", in);
  check_operands("batch_norm_backward", in,
                 {&grad_in, &grad_weight, &grad_bias, &grad_out, &in, &mean, &rstd, &weight});
  if (c == 0) return;
  OnDevice on(in);
  const NormBackwardArgs a =
      backward_args(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, n, c, 1, s);
  const Tensor scratch = double_scratch(batch_norm_backward_scratch(a, training), in);
  NABLA_CUDA_CHECK(
      launch_batch_norm_backward(a, training, static_cast<double*>(ptr(scratch)), on.stream()));
}

// No fused cross-entropy on CUDA yet: the op runs log_softmax and nll_loss instead. A
// fused kernel belongs here once it can be checked on a GPU.
bool CudaBackend::cross_entropy_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                        const Tensor&) {
  return false;
}
bool CudaBackend::cross_entropy_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                         const Tensor&, const Tensor&) {
  return false;
}

}  // namespace nabla::cuda_kernels
