#pragma once
// Graph recording for the linear algebra ops (forwards in linalg.cpp, derivatives in
// linalg_backward.cpp, PyTorch's node names). Each record_* does nothing unless grad mode
// is on and an operand requires grad, so the forwards call them unconditionally.
#include "nabla/core/tensor.h"

namespace nabla::ops {

/// out = a @ b for matrices (MmBackward0), batches of matrices (BmmBackward0), matrix @
/// vector (MvBackward0) and vector . vector (DotBackward0).
void record_mm(const Tensor& a, const Tensor& b, const Tensor& out);
void record_bmm(const Tensor& a, const Tensor& b, const Tensor& out);
void record_mv(const Tensor& a, const Tensor& v, const Tensor& out);
void record_dot(const Tensor& a, const Tensor& b, const Tensor& out);
/// matmul's general case: out [batch..., n, m] = a @ b with broadcast batch dims, a
/// vector a taken as [1, k] and a vector b as [k, 1] (BmmBackward0, as the bmm LibTorch
/// runs there; gradients of broadcast operands are reduced with sum_to).
void record_batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out);
/// out = beta * self + alpha * (m1 @ m2), self broadcast to out (AddmmBackward0).
void record_addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha, const Tensor& out);

/// matmul's final reshapes, recorded under LibTorch's names: `t` (contiguous, the result
/// of a product) seen with `shape` as UnsafeViewBackward0, or with dim 0 squeezed as
/// SqueezeBackward3. Without grad, a plain view.
Tensor unsafe_view(const Tensor& t, IntArrayRef shape);
Tensor squeeze_first(const Tensor& t);

}  // namespace nabla::ops
