#pragma once
// The backend contract: every kernel a device must provide, in one small interface
// (seed 004's "Mat" layer). Ops validate arguments, choose dtypes, allocate outputs and
// broadcast inputs (expand, a free view); kernels only compute. See
// docs/backend.md for how to add a device.
//
// Conventions for every entry:
//  - `out` is allocated by the caller with its final sizes and dtype; kernels assign
//    (never accumulate into) it unless the entry says so.
//  - Elementwise inputs have the computation dtype and any shape that broadcasts to
//    `out`'s (the kernel reads missing and size-1 dims with stride 0); any strides.
#include <cstdint>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {

/// The unary kernels, one per op of core/op_list/unary.def (parameters in UnaryParams).
enum class UnaryOp : uint8_t {
#define NABLA_UNARY_OP(name, Kernel, ...) Kernel,
#define NABLA_UNARY_PREDICATE(name, Kernel) Kernel,
#define NABLA_UNARY_OP_ATTRS(name, Kernel, ...) Kernel,
#include "nabla/core/op_list/unary.def"
};

/// One parameter of KernelBackend::adam_step. All tensors contiguous, of one floating
/// dtype and the parameter's size; max_exp_avg_sq is read only with AdamHyper::amsgrad.
/// Per element, with g = grad + weight_decay * param:
///   param *= param_scale (AdamW's decoupled decay; 1 for Adam)
///   exp_avg = exp_avg * beta1 + (1 - beta1) * g
///   exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
///   amsgrad: max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq), used as v below
///   param += -step_size * exp_avg / (sqrt(v) / bias2_sqrt + eps)
struct AdamSlot {
  Tensor param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq;
  double step_size = 0;   // lr / (1 - beta1^step)
  double bias2_sqrt = 1;  // sqrt(1 - beta2^step)
};
struct AdamHyper {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, param_scale = 1;
  bool amsgrad = false;
};

struct UnaryParams {
  double a = 0;
  double b = 0;
};

/// The binary kernels, one per op of core/op_list/binary.def. Add and Sub compute
/// a + alpha * b and a - alpha * b; the *Backward kernels are fused first-order backwards.
enum class BinaryOp : uint8_t {
#define NABLA_BINARY_OP(name, Kernel, ...) Kernel,
#define NABLA_BINARY_KERNEL(name, Kernel, dtype) Kernel,
#include "nabla/core/op_list/binary.def"
};

enum class ReduceOp : uint8_t { Sum, Prod, Max, Min, All, Any };

/// The sliding-window geometry of im2col / col2im (convolution and pooling): a kernel
/// kh x kw with stride, zero padding and dilation over an h x w image, giving oh x ow
/// window positions.
struct WindowGeometry {
  int64_t h, w;    // image
  int64_t kh, kw;  // kernel
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t oh, ow;  // positions: (h + 2 ph - dh (kh - 1) - 1) / sh + 1, likewise ow
};

class KernelBackend {
 public:
  virtual ~KernelBackend() = default;
  virtual DeviceType device_type() const = 0;

  /// dst[i] = convert(src[i]); same sizes, any dtypes.
  virtual void copy(const Tensor& dst, const Tensor& src) = 0;
  virtual void fill(const Tensor& dst, const Scalar& value) = 0;
  /// out = op(in). `in` has out's dtype, except for the bool-output ops.
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) = 0;
  /// out = op(a, b). a and b share a dtype (out's, or bool for the comparison ops).
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                      const Scalar& alpha) = 0;
  /// out = cond ? a : b, cond bool.
  virtual void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) = 0;

  /// out = op over the dims `dims` of `in` (out has `in`'s sizes with those dims set to 1
  /// — keepdim form — and the dtype chosen by the op; `in` has out's dtype, any strides).
  /// An empty reduction gives the identity (0, 1, true, false); Max/Min over an empty
  /// range are rejected by the op. Max/Min propagate NaN.
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) = 0;
  /// Index (int64) of the max (or min) along `dim`; out has in's sizes with dim set to 1.
  /// Ties resolve to the first index; NaN wins, as in LibTorch.
  virtual void arg_reduce(bool is_max, const Tensor& out_index, const Tensor& out_value,
                          const Tensor& in, int64_t dim) = 0;
  /// out = inclusive prefix sum of `in` along `dim`; same sizes and dtype (chosen by the
  /// op), any strides for `in`.
  virtual void cumsum(const Tensor& out, const Tensor& in, int64_t dim) = 0;
  /// The first values.size(dim) elements of `in` sorted along `dim` (all of them for sort,
  /// k of them for topk) and their int64 positions in `in`. Equal elements keep their input
  /// order (stable); NaN sorts above every number.
  virtual void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                    bool descending) = 0;

  /// C = alpha * op(A) @ op(B) + beta * C for 2-d float/double/int tensors (any strides).
  /// Also batched: c [..., m, n], a [..., m, k], b [..., k, n] with the same leading
  /// (batch) sizes, any batch strides (0 for a broadcast operand). beta == 0 never reads
  /// C; k == 0 gives beta * C.
  virtual void gemm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
                    const Scalar& alpha) = 0;

  /// Counter-based random fills: element i of `out` (row-major) gets the value drawn
  /// from stream (seed, offset + i), so results do not depend on the thread count.
  enum class Distribution : uint8_t { Uniform, Normal, Bernoulli, RandInt };
  virtual void random(Distribution d, const Tensor& out, uint64_t seed, uint64_t offset, double a,
                      double b) = 0;

  /// out = in.index_select(dim, index); index int64 1-d, checked in range by the op.
  virtual void index_select(const Tensor& out, const Tensor& in, int64_t dim,
                            const Tensor& index) = 0;
  /// out[..i..] = in[..index[..i..]..] along dim (gather).
  virtual void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = 0;
  /// self[..index[..i..]..] = src[..i..] (or += when accumulate) along dim.
  virtual void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       bool accumulate) = 0;

  // ---- Sliding windows (convolution, pooling) -----------------------------------------
  /// cols [B, C * kh * kw, oh * ow] from image [B, C, h, w] (float or double; image
  /// contiguous; cols any strides for its first two dims, its last dim contiguous — so a
  /// [C kh kw, B, L] buffer viewed with permute(1, 0, 2) works):
  /// cols[b, (c, i, j), (y, x)] = image[b, c, y sh - ph + i dh, x sw - pw + j dw], 0 outside.
  virtual void im2col(const Tensor& cols, const Tensor& image, const WindowGeometry& g) = 0;
  /// The adjoint: image [B, C, h, w] (contiguous) = the sum of every cols entry (strides
  /// as for im2col) into its image position (assigns; entries in the padding are dropped).
  virtual void col2im(const Tensor& image, const Tensor& cols, const WindowGeometry& g) = 0;
  /// Direct 2-d convolution out [B, O, oh, ow] = conv(image [B, C, h, w], weight
  /// [O, C / groups, kh, kw]) + bias [O] (bias may be undefined), all contiguous float32,
  /// by a kernel library when the backend has one; false (nothing written) when it has
  /// not, and the op convolves by im2col + gemm instead.
  virtual bool conv2d(const Tensor& out, const Tensor& image, const Tensor& weight,
                      const Tensor& bias, const WindowGeometry& g, int64_t groups) {
    (void)out, (void)image, (void)weight, (void)bias, (void)g, (void)groups;
    return false;
  }
  /// The gradients of conv2d for grad_out (contiguous): grad_image, grad_weight and
  /// grad_bias (each contiguous, or undefined when not wanted). False as conv2d.
  virtual bool conv2d_backward(const Tensor& grad_image, const Tensor& grad_weight,
                               const Tensor& grad_bias, const Tensor& grad_out, const Tensor& image,
                               const Tensor& weight, const WindowGeometry& g, int64_t groups) {
    (void)grad_image, (void)grad_weight, (void)grad_bias, (void)grad_out, (void)image, (void)weight,
        (void)g, (void)groups;
    return false;
  }
  /// Max pooling of image [B, C, h, w] (contiguous; float, double, int64 or uint8) over
  /// g's windows (oh, ow given by the op, ceil_mode included; positions outside the image
  /// are skipped): values [B, C, oh, ow] and indices (int64, flat position in the h x w
  /// plane of the first maximum of each window; NaN wins).
  virtual void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& image,
                          const WindowGeometry& g) = 0;
  /// Backward of max pooling: grad_image [..., h, w] (contiguous, float or double) is
  /// assigned zeros plus, for each output position j of plane p, grad_out[p, j] added at
  /// indices[p, j] (grad_out and indices contiguous [..., oh, ow], the same leading dims;
  /// indices as max_pool2d wrote them).
  virtual void max_pool2d_backward(const Tensor& grad_image, const Tensor& grad_out,
                                   const Tensor& indices) = 0;

  // ---- Normalization (softmax, batch/layer/group norm) --------------------------------
  /// out = softmax (log_softmax when `log`) of `in` along `dim`, max-subtracted so any
  /// finite logits give finite results. in and out contiguous, same sizes, float or double.
  virtual void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) = 0;
  /// First-order backward of softmax along `dim` from its output y and the output
  /// gradient g: grad_in = y * (g - sum(g * y)), or for log_softmax g - exp(y) * sum(g).
  /// All contiguous, same sizes, float or double.
  virtual void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                                int64_t dim, bool log) = 0;
  /// Per-channel statistics of `in` viewed as [N, C, S] (contiguous; float or double):
  /// mean[c] and the biased variance var[c] over its N * S elements (two passes, double
  /// accumulation). mean and var are contiguous [C] of in's dtype. N * S == 0 gives NaN.
  virtual void moments(const Tensor& mean, const Tensor& var, const Tensor& in, int64_t n,
                       int64_t c, int64_t s) = 0;
  /// out[n, c, s] = (in[n, c, s] - center[c]) * scale[c] + shift[c] for in and out viewed
  /// as [N, C, S] (contiguous, same dtype, may be the same tensor; center, scale and shift
  /// contiguous [C]). Centering first keeps precision when |mean| >> std.
  virtual void channel_affine(const Tensor& out, const Tensor& in, const Tensor& center,
                              const Tensor& scale, const Tensor& shift, int64_t n, int64_t c,
                              int64_t s) = 0;
  /// Backward of a normalization with statistics per (sample, group): in, grad_out and
  /// grad_in viewed as [N, C, S] (contiguous, float or double), the C channels in G groups
  /// of C / G, each group's statistics over its (C / G) * S elements: mean and rstd
  /// contiguous [N, G]; weight contiguous [C] or undefined (all ones). Assigns each
  /// output that is defined:
  ///   grad_in = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)), gh = grad_out * weight[c],
  ///   grad_weight[c] = sum over N and S of grad_out * xhat, grad_bias[c] = sum of grad_out,
  /// with xhat = (in - mean) * rstd. Layer norm is G = 1, S = 1 (C = the normalized size).
  virtual void group_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                   const Tensor& grad_bias, const Tensor& grad_out,
                                   const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                   const Tensor& weight, int64_t n, int64_t c, int64_t g,
                                   int64_t s) = 0;
  /// Backward of batch norm (statistics per channel over N and S): in, grad_out and
  /// grad_in viewed as [N, C, S] (contiguous, float or double); mean and rstd contiguous
  /// [C] (the batch's in training, the running ones otherwise); weight [C] or undefined.
  /// Assigns each output that is defined: grad_weight[c] = sum of grad_out * xhat,
  /// grad_bias[c] = sum of grad_out, and grad_in = weight[c] * rstd * (grad_out -
  /// mean(grad_out) - xhat * mean(grad_out * xhat)) in training (means over N and S),
  /// weight[c] * rstd * grad_out otherwise; xhat = (in - mean) * rstd.
  virtual void batch_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                                   const Tensor& grad_bias, const Tensor& grad_out,
                                   const Tensor& in, const Tensor& mean, const Tensor& rstd,
                                   const Tensor& weight, int64_t n, int64_t c, int64_t s,
                                   bool training) = 0;
  /// Adam's (and AdamW's) update of every slot, one pass over each parameter's elements,
  /// in LibTorch 1.13's order of operations (see AdamSlot, AdamHyper).
  virtual void adam_step(const std::vector<AdamSlot>& slots, const AdamHyper& h) = 0;
};

/// The backend of a device; a nabla::Error for a device this build does not have.
KernelBackend& backend_for(Device device);
/// Refuses Half/BFloat16 tensors: nabla stores and converts them but has no kernels in
/// them (`op` names the caller).
[[noreturn]] void throw_reduced_precision(ScalarType t);
inline KernelBackend& backend_for(const Tensor& t) {
  if (isReducedFloatingType(t.scalar_type())) [[unlikely]]
    throw_reduced_precision(t.scalar_type());
  return backend_for(t.device());
}

}  // namespace nabla
