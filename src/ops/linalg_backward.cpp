// Derivatives of the linear algebra ops, written with differentiable nabla ops so that
// create_graph gives higher orders. Transposes are views and the backend's gemm takes
// strided operands, so each gradient is one product into a fresh output, no copies.
#include "ops/linalg_backward.h"

#include "autograd/formula.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"
#include "ops/reduce_utils.h"

namespace nabla::ops {

using autograd::Formula;
using autograd::FormulaNode;
using autograd::variable_list;

namespace {

// Saved by every product below: [0] = a (only when b needs a gradient), [1] = b (only
// when a needs one); shape0 / shape1 = the sizes of a and b where a formula needs them.
void save_operands(FormulaNode& n, const Tensor& a, const Tensor& b) {
  n.save(n.needs_input_grad(1) ? a : Tensor());
  n.save(n.needs_input_grad(0) ? b : Tensor());
}

// alpha * t, skipping the multiply (and its allocation) in the common alpha == 1.
Tensor scaled(const Tensor& t, const Scalar& alpha) {
  return alpha.toDouble() == 1 ? t : t * alpha;
}

variable_list mm_bw(FormulaNode& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0)) ga = g[0].mm(n.saved(1).t());  // [n, m] @ [m, k]
  if (n.needs_input_grad(1)) gb = n.saved(0).t().mm(g[0]);  // [k, n] @ [n, m]
  return {ga, gb};
}

variable_list bmm_bw(FormulaNode& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0)) ga = g[0].bmm(n.saved(1).transpose(1, 2));  // [B,n,m] @ [B,m,k]
  if (n.needs_input_grad(1)) gb = n.saved(0).transpose(1, 2).bmm(g[0]);  // [B,k,n] @ [B,n,m]
  return {ga, gb};
}

variable_list mv_bw(FormulaNode& n, const variable_list& g) {
  Tensor ga, gv;
  if (n.needs_input_grad(0)) ga = g[0].outer(n.saved(1));   // [n] x [k]
  if (n.needs_input_grad(1)) gv = n.saved(0).t().mv(g[0]);  // [k, n] @ [n]
  return {ga, gv};
}

variable_list dot_bw(FormulaNode& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0)) ga = g[0] * n.saved(1);
  if (n.needs_input_grad(1)) gb = g[0] * n.saved(0);
  return {ga, gb};
}

// g [batch..., n, m]; a vector operand was taken as [1, k] (a) or [k, 1] (b). Each
// gradient is the product at the broadcast batch shape, summed down to the operand's.
variable_list batched_matmul_bw(FormulaNode& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0)) {
    Tensor b = n.saved(1);
    Tensor b3 = b.dim() == 1 ? b.unsqueeze(-1) : b;
    DimVector a3_shape(n.shape0);
    if (a3_shape.size() == 1) a3_shape.insert(a3_shape.begin(), 1);
    ga = sum_to(g[0].matmul(b3.transpose(-1, -2)), a3_shape).reshape(n.shape0);
  }
  if (n.needs_input_grad(1)) {
    Tensor a = n.saved(0);
    Tensor a3 = a.dim() == 1 ? a.unsqueeze(0) : a;
    DimVector b3_shape(n.shape1);
    if (b3_shape.size() == 1) b3_shape.push_back(1);
    gb = sum_to(a3.transpose(-1, -2).matmul(g[0]), b3_shape).reshape(n.shape1);
  }
  return {ga, gb};
}

// Saved: [0] = m1, [1] = m2 (as save_operands, shifted by self); shape0 = self's sizes,
// a = beta, flag = m2 was a transposed view.
variable_list addmm_bw(FormulaNode& n, const variable_list& g) {
  Tensor gs, g1, g2;
  if (n.needs_input_grad(0)) gs = sum_to(n.a == 1 ? g[0] : g[0] * n.a, n.shape0);
  if (n.needs_input_grad(1)) g1 = scaled(g[0].mm(n.saved(1).t()), n.alpha);  // [n,m] @ [m,k]
  if (n.needs_input_grad(2)) {
    // [k,n] @ [n,m]; when mat2 is a transposed view (linear's weight.t()) the same product
    // is formed as (g^T @ mat1)^T, so the weight's gradient comes out contiguous (no copy
    // in AccumulateGrad) and the gemm runs in the orientation LibTorch uses.
    g2 = scaled(n.flag ? g[0].t().mm(n.saved(0)).t() : n.saved(0).t().mm(g[0]), n.alpha);
  }
  return {gs, g1, g2};
}

// Reshapes back: shape0 = the input's sizes.
variable_list reshape_bw(FormulaNode& n, const variable_list& g) {
  return {g[0].reshape(n.shape0)};
}

const Formula kMm{"MmBackward0", mm_bw}, kBmm{"BmmBackward0", bmm_bw};
const Formula kMv{"MvBackward0", mv_bw}, kDot{"DotBackward0", dot_bw};
const Formula kBatched{"BmmBackward0", batched_matmul_bw};
const Formula kAddmm{"AddmmBackward0", addmm_bw};
const Formula kUnsafeView{"UnsafeViewBackward0", reshape_bw};
const Formula kSqueeze3{"SqueezeBackward3", reshape_bw};

void record_product(const Formula& f, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (!autograd::any_requires_grad(a, b)) return;
  auto node = autograd::make_node(f, {&a, &b});
  save_operands(*node, a, b);
  autograd::set_history(out, node);
}

Tensor record_reshape(const Formula& f, const Tensor& t, IntArrayRef shape) {
  Tensor out = contiguous_view(t, shape);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node(f, {&t});
    node->shape0.assign(t.sizes().begin(), t.sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

void record_mm(const Tensor& a, const Tensor& b, const Tensor& out) {
  record_product(kMm, a, b, out);
}
void record_bmm(const Tensor& a, const Tensor& b, const Tensor& out) {
  record_product(kBmm, a, b, out);
}
void record_mv(const Tensor& a, const Tensor& v, const Tensor& out) {
  record_product(kMv, a, v, out);
}
void record_dot(const Tensor& a, const Tensor& b, const Tensor& out) {
  record_product(kDot, a, b, out);
}

void record_batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  if (!autograd::any_requires_grad(a, b)) return;
  auto node = autograd::make_node(kBatched, {&a, &b});
  node->shape0.assign(a.sizes().begin(), a.sizes().end());
  node->shape1.assign(b.sizes().begin(), b.sizes().end());
  save_operands(*node, a, b);
  autograd::set_history(out, node);
}

void record_addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha, const Tensor& out) {
  if (!autograd::any_requires_grad(self, m1, m2)) return;
  auto node = autograd::make_node(kAddmm, {&self, &m1, &m2});
  node->shape0.assign(self.sizes().begin(), self.sizes().end());
  node->a = beta.toDouble();
  node->alpha = alpha;
  node->flag = m2.dim() == 2 && m2.size(1) > 1 && m2.stride(0) == 1;  // m2 is a transposed view
  node->save(node->needs_input_grad(2) ? m1 : Tensor());
  node->save(node->needs_input_grad(1) ? m2 : Tensor());
  autograd::set_history(out, node);
}

Tensor unsafe_view(const Tensor& t, IntArrayRef shape) {
  return record_reshape(kUnsafeView, t, shape);
}

Tensor squeeze_first(const Tensor& t) {
  return record_reshape(kSqueeze3, t, t.sizes().slice(1, t.dim() - 1));
}

}  // namespace nabla::ops
