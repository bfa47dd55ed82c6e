#include "backend/profiling_backend.h"

#include "nabla/core/profiler.h"

namespace nabla {

using autograd::profiler::EventKind;
using autograd::profiler::RecordFunction;

// Kernel names follow from the op lists (core/op_list/*.def); the remaining switches list
// every enumerator without a default, so -Wswitch flags a new one.
const char* kernel_name(UnaryOp op) {
  switch (op) {
#define NABLA_UNARY_OP(name, Kernel, ...) \
  case UnaryOp::Kernel:                   \
    return "unary." #Kernel;
#define NABLA_UNARY_PREDICATE(name, Kernel) NABLA_UNARY_OP(name, Kernel)
#define NABLA_UNARY_OP_ATTRS(name, Kernel, ...) NABLA_UNARY_OP(name, Kernel)
#include "nabla/core/op_list/unary.def"
  }
  return "unary";
}

const char* kernel_name(BinaryOp op) {
  switch (op) {
#define NABLA_BINARY_OP(name, Kernel, ...) \
  case BinaryOp::Kernel:                   \
    return "binary." #Kernel;
#define NABLA_BINARY_KERNEL(name, Kernel, dtype) NABLA_BINARY_OP(name, Kernel)
#include "nabla/core/op_list/binary.def"
  }
  return "binary";
}

const char* kernel_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "reduce.Sum";
    case ReduceOp::Prod:
      return "reduce.Prod";
    case ReduceOp::Max:
      return "reduce.Max";
    case ReduceOp::Min:
      return "reduce.Min";
    case ReduceOp::All:
      return "reduce.All";
    case ReduceOp::Any:
      return "reduce.Any";
  }
  return "reduce";
}

namespace {

const char* distribution_name(KernelBackend::Distribution d) {
  switch (d) {
    case KernelBackend::Distribution::Uniform:
      return "random.Uniform";
    case KernelBackend::Distribution::Normal:
      return "random.Normal";
    case KernelBackend::Distribution::Bernoulli:
      return "random.Bernoulli";
    case KernelBackend::Distribution::RandInt:
      return "random.RandInt";
  }
  return "random";
}

}  // namespace

void ProfilingBackend::copy(const Tensor& dst, const Tensor& src) {
  RecordFunction rec("copy", EventKind::Kernel);
  inner_.copy(dst, src);
}

void ProfilingBackend::fill(const Tensor& dst, const Scalar& value) {
  RecordFunction rec("fill", EventKind::Kernel);
  inner_.fill(dst, value);
}

void ProfilingBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  RecordFunction rec(kernel_name(op), EventKind::Kernel);
  inner_.unary(op, out, in, p);
}

void ProfilingBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                              const Scalar& alpha) {
  RecordFunction rec(kernel_name(op), EventKind::Kernel);
  inner_.binary(op, out, a, b, alpha);
}

void ProfilingBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a,
                             const Tensor& b) {
  RecordFunction rec("where", EventKind::Kernel);
  inner_.where(out, cond, a, b);
}

void ProfilingBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  RecordFunction rec(kernel_name(op), EventKind::Kernel);
  inner_.reduce(op, out, in, dims);
}

void ProfilingBackend::arg_reduce(bool is_max, const Tensor& out_index, const Tensor& out_value,
                                  const Tensor& in, int64_t dim) {
  RecordFunction rec(is_max ? "arg_reduce.Max" : "arg_reduce.Min", EventKind::Kernel);
  inner_.arg_reduce(is_max, out_index, out_value, in, dim);
}

void ProfilingBackend::cumsum(const Tensor& out, const Tensor& in, int64_t dim) {
  RecordFunction rec("cumsum", EventKind::Kernel);
  inner_.cumsum(out, in, dim);
}

void ProfilingBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in,
                            int64_t dim, bool descending) {
  RecordFunction rec("sort", EventKind::Kernel);
  inner_.sort(values, indices, in, dim, descending);
}

void ProfilingBackend::gemm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
                            const Scalar& alpha) {
  RecordFunction rec("gemm", EventKind::Kernel);
  inner_.gemm(c, a, b, beta, alpha);
}

void ProfilingBackend::random(Distribution d, const Tensor& out, uint64_t seed, uint64_t offset,
                              double a, double b) {
  RecordFunction rec(distribution_name(d), EventKind::Kernel);
  inner_.random(d, out, seed, offset, a, b);
}

void ProfilingBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim,
                                    const Tensor& index) {
  RecordFunction rec("index_select", EventKind::Kernel);
  inner_.index_select(out, in, dim, index);
}

void ProfilingBackend::gather(const Tensor& out, const Tensor& in, int64_t dim,
                              const Tensor& index) {
  RecordFunction rec("gather", EventKind::Kernel);
  inner_.gather(out, in, dim, index);
}

void ProfilingBackend::scatter(const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& src, bool accumulate) {
  RecordFunction rec(accumulate ? "scatter_add" : "scatter", EventKind::Kernel);
  inner_.scatter(self, dim, index, src, accumulate);
}

void ProfilingBackend::im2col(const Tensor& cols, const Tensor& image, const WindowGeometry& g) {
  RecordFunction rec("im2col", EventKind::Kernel);
  inner_.im2col(cols, image, g);
}

void ProfilingBackend::col2im(const Tensor& image, const Tensor& cols, const WindowGeometry& g) {
  RecordFunction rec("col2im", EventKind::Kernel);
  inner_.col2im(image, cols, g);
}

bool ProfilingBackend::conv2d(const Tensor& out, const Tensor& image, const Tensor& weight,
                              const Tensor& bias, const WindowGeometry& g, int64_t groups) {
  RecordFunction rec("conv2d", EventKind::Kernel);
  return inner_.conv2d(out, image, weight, bias, g, groups);
}

bool ProfilingBackend::conv2d_backward(const Tensor& grad_image, const Tensor& grad_weight,
                                       const Tensor& grad_bias, const Tensor& grad_out,
                                       const Tensor& image, const Tensor& weight,
                                       const WindowGeometry& g, int64_t groups) {
  RecordFunction rec("conv2d_backward", EventKind::Kernel);
  return inner_.conv2d_backward(grad_image, grad_weight, grad_bias, grad_out, image, weight, g,
                                groups);
}

void ProfilingBackend::max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& image,
                                  const WindowGeometry& g) {
  RecordFunction rec("max_pool2d", EventKind::Kernel);
  inner_.max_pool2d(values, indices, image, g);
}

void ProfilingBackend::max_pool2d_backward(const Tensor& grad_image, const Tensor& grad_out,
                                           const Tensor& indices) {
  RecordFunction rec("max_pool2d_backward", EventKind::Kernel);
  inner_.max_pool2d_backward(grad_image, grad_out, indices);
}

void ProfilingBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  RecordFunction rec(log ? "log_softmax" : "softmax", EventKind::Kernel);
  inner_.softmax(out, in, dim, log);
}

void ProfilingBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out,
                                        const Tensor& out, int64_t dim, bool log) {
  RecordFunction rec(log ? "log_softmax_backward" : "softmax_backward", EventKind::Kernel);
  inner_.softmax_backward(grad_in, grad_out, out, dim, log);
}

void ProfilingBackend::moments(const Tensor& mean, const Tensor& var, const Tensor& in, int64_t n,
                               int64_t c, int64_t s) {
  RecordFunction rec("moments", EventKind::Kernel);
  inner_.moments(mean, var, in, n, c, s);
}

void ProfilingBackend::channel_affine(const Tensor& out, const Tensor& in, const Tensor& center,
                                      const Tensor& scale, const Tensor& shift, int64_t n,
                                      int64_t c, int64_t s) {
  RecordFunction rec("channel_affine", EventKind::Kernel);
  inner_.channel_affine(out, in, center, scale, shift, n, c, s);
}

void ProfilingBackend::group_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                           const Tensor& grad_bias, const Tensor& grad_out,
                                           const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                           const Tensor& weight, int64_t n, int64_t c, int64_t g,
                                           int64_t s) {
  RecordFunction rec("group_norm_backward", EventKind::Kernel);
  inner_.group_norm_backward(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, n,
                             c, g, s);
}

void ProfilingBackend::batch_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                           const Tensor& grad_bias, const Tensor& grad_out,
                                           const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                           const Tensor& weight, int64_t n, int64_t c, int64_t s,
                                           bool training) {
  RecordFunction rec("batch_norm_backward", EventKind::Kernel);
  inner_.batch_norm_backward(grad_in, grad_weight, grad_bias, grad_out, in, mean, rstd, weight, n,
                             c, s, training);
}

void ProfilingBackend::adam_step(const std::vector<AdamSlot>& slots, const AdamHyper& h) {
  RecordFunction rec("adam_step", EventKind::Kernel);
  inner_.adam_step(slots, h);
}

}  // namespace nabla
