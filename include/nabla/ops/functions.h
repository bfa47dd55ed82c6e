#pragma once
// Free-function forms of the tensor ops (torch::add(a, b), torch::matmul(a, b), ...).
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {

// Elementwise: the binary ops of core/op_list/binary.def (add, sub, mul, div, pow,
// remainder, fmod, atan2, maximum, minimum, the comparisons, logical and bitwise ops),
// with their `_out` and in-place forms.
#define NABLA_OP NABLA_OP_DECLARE
#define NABLA_METHOD_OP NABLA_OP_DECLARE
#include "nabla/core/op_list/binary.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
// The elementwise unary ops of core/op_list/unary.def.
#define NABLA_UNARY_OP(name, ...) Tensor name(const Tensor& x);
#define NABLA_UNARY_PREDICATE(name, Kernel) Tensor name(const Tensor& x);
#include "nabla/core/op_list/unary.def"
bool equal(const Tensor& a, const Tensor& b);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);

// Reductions: sum, mean, prod, max, min, amax, amin, argmax, argmin, var, std, var_mean,
// std_mean, norm, logsumexp, all, any, cumsum, sort, argsort, topk, kthvalue (rows:
// nabla/core/op_list/reduction.def).
#define NABLA_OP NABLA_OP_DECLARE
#define NABLA_METHOD_OP NABLA_OP_DECLARE
#include "nabla/core/op_list/reduction.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
/// Elementwise (as maximum / minimum).
inline Tensor max(const Tensor& a, const Tensor& b) { return a.maximum(b); }
inline Tensor min(const Tensor& a, const Tensor& b) { return a.minimum(b); }
// var(x, 0) / std(x, 0) reduce dim 0, as LibTorch's C++-only int overloads (int -> bool
// would otherwise win); a braced list ({1}) likewise reduces dims.
inline Tensor var(const Tensor& x, int dim) {
  return var(x, IntArrayRef{static_cast<int64_t>(dim)});
}
inline Tensor std(const Tensor& x, int dim) {
  return std(x, IntArrayRef{static_cast<int64_t>(dim)});
}
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& x, int dim) {
  return var_mean(x, IntArrayRef{static_cast<int64_t>(dim)});
}
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& x, int dim) {
  return std_mean(x, IntArrayRef{static_cast<int64_t>(dim)});
}
inline Tensor var(const Tensor& x, std::initializer_list<int64_t> dim, bool unbiased = true,
                  bool keepdim = false) {
  return var(x, IntArrayRef(dim), unbiased, keepdim);
}
inline Tensor std(const Tensor& x, std::initializer_list<int64_t> dim, bool unbiased = true,
                  bool keepdim = false) {
  return std(x, IntArrayRef(dim), unbiased, keepdim);
}

// Linear algebra
// matmul, mm, bmm, mv, dot, outer, addmm, linear (rows: nabla/core/op_list/linalg.def).
#define NABLA_OP NABLA_OP_DECLARE
#define NABLA_METHOD_OP NABLA_OP_DECLARE
#include "nabla/core/op_list/linalg.def"
// diag, tile, index_copy/add/fill, take, take_along_dim, flip, roll, rot90, inner, kron,
// cross, repeat_interleave, the add-products, ... (rows: nabla/core/op_list/shape.def);
// the views, splits and joins: reshape, transpose, select, split, chunk, cat, stack, ...
// (rows: nabla/core/op_list/views.def).
#include "nabla/core/op_list/shape.def"
#include "nabla/core/op_list/views.def"
// hypot, logaddexp, xlogy, copysign, sinc, logit, float_power, floor_divide, fmax, fmin,
// heaviside, nan_to_num, the special functions, asinh/acosh/atanh, addcmul/addcdiv/lerp,
// isclose, clamp, where (rows: nabla/core/op_list/math.def), with their in-place forms.
#include "nabla/core/op_list/math.def"
// index_select, gather, scatter, scatter_add, masked_select, masked_fill, nonzero (rows:
// nabla/core/op_list/indexing.def).
#include "nabla/core/op_list/indexing.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP

// Shape and index (not rows yet: an alias, and indices as a list of optional tensors)
Tensor concat(TensorList tensors, int64_t dim = 0);
/// LibTorch's private reshape-as-view op: the view of x with `size` and `stride` (as
/// as_strided at x's offset; its gradient flows back the same way).
Tensor _reshape_alias(const Tensor& x, IntArrayRef size, IntArrayRef stride);
/// x seen whole through a new view (x.alias()).
Tensor alias(const Tensor& x);
/// Advanced indexing as functions (x.index(indices), x.index_put_(indices, values)).
Tensor index(const Tensor& x, const std::vector<optional<Tensor>>& indices);
const Tensor& index_put_(const Tensor& x, const std::vector<optional<Tensor>>& indices,
                         const Tensor& values, bool accumulate = false);
Tensor index_put(const Tensor& x, const std::vector<optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate = false);

// ---- More of LibTorch's free functions: aliases and composites (the Tensor methods of
// the same names hold the implementations; tensor.h lists what each does) -------------
inline Tensor arccos(const Tensor& x) { return x.acos(); }
inline Tensor arcsin(const Tensor& x) { return x.asin(); }
inline Tensor arctan(const Tensor& x) { return x.atan(); }
inline Tensor arctan2(const Tensor& a, const Tensor& b) { return a.atan2(b); }
inline Tensor fix(const Tensor& x) { return x.trunc(); }
inline Tensor sgn(const Tensor& x) { return x.sign(); }
inline Tensor greater(const Tensor& a, const Tensor& b) { return a.gt(b); }
inline Tensor greater(const Tensor& a, const Scalar& b) { return a.gt(b); }
inline Tensor greater_equal(const Tensor& a, const Tensor& b) { return a.ge(b); }
inline Tensor greater_equal(const Tensor& a, const Scalar& b) { return a.ge(b); }
inline Tensor less(const Tensor& a, const Tensor& b) { return a.lt(b); }
inline Tensor less(const Tensor& a, const Scalar& b) { return a.lt(b); }
inline Tensor less_equal(const Tensor& a, const Tensor& b) { return a.le(b); }
inline Tensor less_equal(const Tensor& a, const Scalar& b) { return a.le(b); }
inline Tensor not_equal(const Tensor& a, const Tensor& b) { return a.ne(b); }
inline Tensor not_equal(const Tensor& a, const Scalar& b) { return a.ne(b); }
inline Tensor multiply(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor multiply(const Tensor& a, const Scalar& b) { return a.mul(b); }
inline Tensor divide(const Tensor& a, const Tensor& b) { return a.div(b); }
inline Tensor divide(const Tensor& a, const Scalar& b) { return a.div(b); }
inline Tensor true_divide(const Tensor& a, const Tensor& b) { return a.div(b); }
inline Tensor true_divide(const Tensor& a, const Scalar& b) { return a.div(b); }
inline Tensor subtract(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) {
  return a.sub(b, alpha);
}
inline Tensor subtract(const Tensor& a, const Scalar& b, const Scalar& alpha = 1) {
  return a.sub(b, alpha);
}
inline Tensor ger(const Tensor& a, const Tensor& b) { return a.outer(b); }
inline Tensor vdot(const Tensor& a, const Tensor& b) { return a.dot(b); }
inline Tensor swapaxes(const Tensor& x, int64_t a, int64_t b) { return x.transpose(a, b); }
inline Tensor swapdims(const Tensor& x, int64_t a, int64_t b) { return x.transpose(a, b); }
inline Tensor moveaxis(const Tensor& x, int64_t s, int64_t d) { return x.movedim(s, d); }
inline Tensor moveaxis(const Tensor& x, IntArrayRef s, IntArrayRef d) { return x.movedim(s, d); }
inline Tensor argwhere(const Tensor& x) { return x.nonzero(); }
inline Tensor clip(const Tensor& x, optional<Scalar> min = nullopt,
                   optional<Scalar> max = nullopt) {
  return x.clamp(min, max);
}
inline Tensor arcsinh(const Tensor& x) { return x.asinh(); }
inline Tensor arccosh(const Tensor& x) { return x.acosh(); }
inline Tensor arctanh(const Tensor& x) { return x.atanh(); }
inline Tensor bernoulli(const Tensor& x, double p, optional<Generator> generator = nullopt) {
  return x.bernoulli(p, std::move(generator));
}

/// The few at::native spellings ported programs and LibTorch's tests call directly.
namespace native {
inline bool is_nonzero(const Tensor& t) { return t.is_nonzero(); }
}  // namespace native

}  // namespace nabla
