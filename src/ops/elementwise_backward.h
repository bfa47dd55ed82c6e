#pragma once
// Graph recording for the elementwise ops (forward in elementwise.cpp, derivatives in
// elementwise_backward.cpp: one table, PyTorch's node names).
#include "nabla/backend/backend.h"

namespace nabla::ops {

/// Records out = op(a, b) when a or b requires grad. `other_scalar` / `self_scalar` mark
/// an operand that was a Scalar (PyTorch's *Backward1 / *Backward2 nodes).
void record_binary(BinaryOp op, const Tensor& a, const Tensor& b, const Scalar& alpha,
                   const Tensor& out, bool other_scalar, bool self_scalar = false);
/// Records out = op(x; p) when x requires grad.
void record_unary(UnaryOp op, UnaryParams p, const Tensor& x, const Tensor& out);
/// Records out = where(cond, a, b).
void record_where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out);

/// Sums `g` down to `shape` (the inverse of broadcasting), for gradients of broadcast inputs.
Tensor sum_to(const Tensor& g, IntArrayRef shape);

}  // namespace nabla::ops
