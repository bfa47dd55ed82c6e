#pragma once
// Note [16-bit compute]: Half and BFloat16 are storage dtypes for the kernels, which have
// no 16-bit paths. An op given a 16-bit float computes in float32 and rounds its result to
// the 16-bit dtype once, as LibTorch's CPU kernels do with their float "opmath" type: the
// elementwise unary and binary ops, where, clamp, the sum/prod/max/min/mean reductions and
// the activations (src/ops/nn/activation.cpp, whose composite forms are computed whole in
// float32 and rounded at the end). Scalars meet a 16-bit tensor rounded to its dtype, as
// in LibTorch. Backward formulas read their saved tensors and the incoming gradient
// widened to float32; the engine rounds each input's gradient to that input's dtype once.
#include "ops/op_utils.h"

namespace nabla::ops {

/// The dtype a kernel computes a `t` operand in: float32 for the 16-bit floats, else t.
inline ScalarType kernel_dtype(ScalarType t) { return isReducedFloatingType(t) ? kFloat : t; }

/// `t` as kernels compute it: a 16-bit float's float32 copy (exact, and recorded as a
/// differentiable conversion), else `t` itself; an undefined tensor stays undefined.
inline Tensor widen(const Tensor& t) {
  return t.defined() && isReducedFloatingType(t.scalar_type()) ? t.to(kFloat) : t;
}

}  // namespace nabla::ops
