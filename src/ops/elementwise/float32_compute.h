#pragma once
// Note [16-bit compute]: Half and BFloat16 are storage dtypes for the kernels, which have
// no 16-bit paths. An op given a 16-bit float computes in float32 and rounds its result to
// the 16-bit dtype once, as LibTorch's CPU kernels do with their float "opmath" type. Three
// ways, one rule:
//   - the elementwise unary and binary ops, where, clamp, the sum/prod/max/min/mean
//     reductions and the activations (src/ops/nn/activation.cpp, whose composite forms
//     are computed whole in float32) widen inside their kernels' callers, and their
//     backward formulas read the saved tensors and the incoming gradient widened too;
//   - every other op declared by schema rows goes through float32 at its public function
//     (src/ops/registry/through_float32.h): the families without 16-bit kernels as a whole
//     (products, convolutions, norms, losses, pooling, padding, resampling, dropout,
//     embeddings: schema_functions.cpp) and a list of the others (sorting, scans, indexing,
//     data movement, softmax, the moments, norms, logsumexp): the arguments' float32
//     copies are differentiable conversions, the results are rounded once, and a write
//     into an argument's copy (batch_norm's running statistics) goes back to it;
//   - the hand-written ops (advanced indexing, index_put_, masked_fill_, scatter_,
//     addmm_, attention, ctc_loss, the factories) do the same by hand; an in-place form
//     computes out of place and writes the result back (ops::inplace_from).
// Scalars meet a 16-bit tensor rounded to its dtype, as in LibTorch. The engine rounds
// each input's gradient to that input's dtype once. tests/conformance/reduced_checks.cpp
// runs the whole op table in both 16-bit dtypes against float32.
#include <utility>

#include "ops/op_utils.h"

namespace nabla::ops {

/// The dtype a kernel computes a `t` operand in: float32 for the 16-bit floats, else t.
inline ScalarType kernel_dtype(ScalarType t) { return isReducedFloatingType(t) ? kFloat : t; }

/// `t` as kernels compute it: a 16-bit float's float32 copy (exact, and recorded as a
/// differentiable conversion), else `t` itself; an undefined tensor stays undefined.
inline Tensor widen(const Tensor& t) {
  return t.defined() && isReducedFloatingType(t.scalar_type()) ? t.to(kFloat) : t;
}
/// The same for a temporary: moved through when it needs no copy (no reference count
/// traffic on the common path).
inline Tensor widen(Tensor&& t) {
  if (t.defined() && isReducedFloatingType(t.scalar_type())) return t.to(kFloat);
  return std::move(t);
}
/// `t` as kernels compute it, without a copy when it is not a 16-bit float: a reference to
/// `t`, or to its float32 copy kept in `storage`.
inline const Tensor& widen_ref(const Tensor& t, Tensor& storage) {
  if (!t.defined() || !isReducedFloatingType(t.scalar_type())) return t;
  storage = t.to(kFloat);
  return storage;
}

}  // namespace nabla::ops
