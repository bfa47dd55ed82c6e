#include "backend/profiling_backend.h"

#include "nabla/autograd/profiler.h"

namespace nabla {

using autograd::profiler::EventKind;
using autograd::profiler::RecordFunction;

// The switches list every enumerator without a default, so -Wswitch flags a new op.
const char* kernel_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return "unary.Neg";
    case UnaryOp::Abs:
      return "unary.Abs";
    case UnaryOp::Sqrt:
      return "unary.Sqrt";
    case UnaryOp::Rsqrt:
      return "unary.Rsqrt";
    case UnaryOp::Exp:
      return "unary.Exp";
    case UnaryOp::Exp2:
      return "unary.Exp2";
    case UnaryOp::Log:
      return "unary.Log";
    case UnaryOp::Log2:
      return "unary.Log2";
    case UnaryOp::Log10:
      return "unary.Log10";
    case UnaryOp::Log1p:
      return "unary.Log1p";
    case UnaryOp::Expm1:
      return "unary.Expm1";
    case UnaryOp::Sin:
      return "unary.Sin";
    case UnaryOp::Cos:
      return "unary.Cos";
    case UnaryOp::Tan:
      return "unary.Tan";
    case UnaryOp::Asin:
      return "unary.Asin";
    case UnaryOp::Acos:
      return "unary.Acos";
    case UnaryOp::Atan:
      return "unary.Atan";
    case UnaryOp::Sinh:
      return "unary.Sinh";
    case UnaryOp::Cosh:
      return "unary.Cosh";
    case UnaryOp::Tanh:
      return "unary.Tanh";
    case UnaryOp::Sigmoid:
      return "unary.Sigmoid";
    case UnaryOp::Relu:
      return "unary.Relu";
    case UnaryOp::Erf:
      return "unary.Erf";
    case UnaryOp::Floor:
      return "unary.Floor";
    case UnaryOp::Ceil:
      return "unary.Ceil";
    case UnaryOp::Round:
      return "unary.Round";
    case UnaryOp::Trunc:
      return "unary.Trunc";
    case UnaryOp::Frac:
      return "unary.Frac";
    case UnaryOp::Sign:
      return "unary.Sign";
    case UnaryOp::Reciprocal:
      return "unary.Reciprocal";
    case UnaryOp::Square:
      return "unary.Square";
    case UnaryOp::BitwiseNot:
      return "unary.BitwiseNot";
    case UnaryOp::PowScalar:
      return "unary.PowScalar";
    case UnaryOp::Clamp:
      return "unary.Clamp";
    case UnaryOp::LeakyRelu:
      return "unary.LeakyRelu";
    case UnaryOp::Elu:
      return "unary.Elu";
    case UnaryOp::Softplus:
      return "unary.Softplus";
    case UnaryOp::Gelu:
      return "unary.Gelu";
    case UnaryOp::Silu:
      return "unary.Silu";
    case UnaryOp::LogicalNot:
      return "unary.LogicalNot";
    case UnaryOp::IsNan:
      return "unary.IsNan";
    case UnaryOp::IsInf:
      return "unary.IsInf";
    case UnaryOp::IsFinite:
      return "unary.IsFinite";
  }
  return "unary";
}

const char* kernel_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "binary.Add";
    case BinaryOp::Sub:
      return "binary.Sub";
    case BinaryOp::Mul:
      return "binary.Mul";
    case BinaryOp::Div:
      return "binary.Div";
    case BinaryOp::Remainder:
      return "binary.Remainder";
    case BinaryOp::Fmod:
      return "binary.Fmod";
    case BinaryOp::Pow:
      return "binary.Pow";
    case BinaryOp::Atan2:
      return "binary.Atan2";
    case BinaryOp::Maximum:
      return "binary.Maximum";
    case BinaryOp::Minimum:
      return "binary.Minimum";
    case BinaryOp::BitwiseAnd:
      return "binary.BitwiseAnd";
    case BinaryOp::BitwiseOr:
      return "binary.BitwiseOr";
    case BinaryOp::BitwiseXor:
      return "binary.BitwiseXor";
    case BinaryOp::TanhBackward:
      return "binary.TanhBackward";
    case BinaryOp::SigmoidBackward:
      return "binary.SigmoidBackward";
    case BinaryOp::ReluBackward:
      return "binary.ReluBackward";
    case BinaryOp::LeakyReluBackward:
      return "binary.LeakyReluBackward";
    case BinaryOp::Eq:
      return "binary.Eq";
    case BinaryOp::Ne:
      return "binary.Ne";
    case BinaryOp::Lt:
      return "binary.Lt";
    case BinaryOp::Le:
      return "binary.Le";
    case BinaryOp::Gt:
      return "binary.Gt";
    case BinaryOp::Ge:
      return "binary.Ge";
    case BinaryOp::LogicalAnd:
      return "binary.LogicalAnd";
    case BinaryOp::LogicalOr:
      return "binary.LogicalOr";
    case BinaryOp::LogicalXor:
      return "binary.LogicalXor";
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
