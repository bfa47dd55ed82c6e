// Linear algebra ops: matmul and its special cases (dot, mv, mm, bmm), outer, addmm and
// linear, with their backward nodes and registry entries. Every product ends in the
// backend's gemm, which takes strided and batched operands directly, so these ops only
// check arguments, shape views and allocate the output once; each product records its
// node right after its gemm.
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/composite.h"
#include "ops/grad_sinks.h"
#include "ops/op_utils.h"
#include "ops/registry/registry_impl.h"
#include "ops/shape/views_backward.h"

namespace nabla {

using ops::empty_tensor;

namespace {

// ---- Backward ----------------------------------------------------------------------------
// Formulas are written with differentiable ops, so create_graph gives higher orders.
// Transposes are views and the backend's gemm takes strided operands, so each gradient
// is one product into a fresh output, no copies.

/// The operands of a product, each saved only when the other one needs a gradient.
struct ProductOperands {
  SavedVariable self, other;
  auto saved() { return std::tie(self, other); }
};

// A gradient whose edge leads to a leaf with a .grad is added there instead, when the
// engine allows (Note [Gradient sinks]): a weight's product then costs no extra pass.
variable_list mm_backward(OpNode<ProductOperands>& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0)) {  // [n, m] @ [m, k]
    Tensor other_t = n.get(n.state.other).t();
    if (!ops::add_product_to_leaf_grad(n.next_edge(0), g[0], other_t)) ga = g[0].mm(other_t);
  }
  if (n.needs_input_grad(1)) {  // [k, n] @ [n, m]
    Tensor self_t = n.get(n.state.self).t();
    if (!ops::add_product_to_leaf_grad(n.next_edge(1), self_t, g[0])) gb = self_t.mm(g[0]);
  }
  return {ga, gb};
}
constexpr NodeType<ProductOperands> kMmBackward{"MmBackward0", mm_backward};

variable_list bmm_backward(OpNode<ProductOperands>& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0))  // [B, n, m] @ [B, m, k]
    ga = g[0].bmm(n.get(n.state.other).transpose(1, 2));
  if (n.needs_input_grad(1))  // [B, k, n] @ [B, n, m]
    gb = n.get(n.state.self).transpose(1, 2).bmm(g[0]);
  return {ga, gb};
}
constexpr NodeType<ProductOperands> kBmmBackward{"BmmBackward0", bmm_backward};

variable_list mv_backward(OpNode<ProductOperands>& n, const variable_list& g) {
  Tensor ga, gv;
  if (n.needs_input_grad(0)) ga = g[0].outer(n.get(n.state.other));  // [n] x [k]
  if (n.needs_input_grad(1)) gv = n.get(n.state.self).t().mv(g[0]);  // [k, n] @ [n]
  return {ga, gv};
}
constexpr NodeType<ProductOperands> kMvBackward{"MvBackward0", mv_backward};

variable_list dot_backward(OpNode<ProductOperands>& n, const variable_list& g) {
  Tensor ga, gb;
  if (n.needs_input_grad(0)) ga = g[0] * n.get(n.state.other);
  if (n.needs_input_grad(1)) gb = g[0] * n.get(n.state.self);
  return {ga, gb};
}
constexpr NodeType<ProductOperands> kDotBackward{"DotBackward0", dot_backward};

template <class State>
std::shared_ptr<OpNode<State>> record_product(const NodeType<State>& type, const Tensor& a,
                                              const Tensor& b, const Tensor& out) {
  auto node = autograd::record_node(type, {&a, &b});
  if (!node) return node;
  if (node->needs_input_grad(1)) node->state.self = autograd::save(a);
  if (node->needs_input_grad(0)) node->state.other = autograd::save(b);
  autograd::set_history(out, node);
  return node;
}

/// matmul's general case (BmmBackward0, as the bmm LibTorch runs there): the operands
/// and their sizes, which broadcasting and vector operands make differ from g's.
struct BatchedOperands {
  SavedVariable self, other;
  DimVector self_sizes, other_sizes;
  auto saved() { return std::tie(self, other); }
};

// g [batch..., n, m]; a vector operand was taken as [1, k] (self) or [k, 1] (other). Each
// gradient is the product at the broadcast batch shape, summed down to the operand's.
variable_list batched_matmul_backward(OpNode<BatchedOperands>& n, const variable_list& g) {
  const BatchedOperands& s = n.state;
  Tensor ga, gb;
  if (n.needs_input_grad(0)) {
    Tensor b = n.get(s.other);
    Tensor b3 = b.dim() == 1 ? b.unsqueeze(-1) : b;
    DimVector a3_shape(s.self_sizes);
    if (a3_shape.size() == 1) a3_shape.insert(a3_shape.begin(), 1);
    ga = ops::sum_to(g[0].matmul(b3.transpose(-1, -2)), a3_shape).reshape(s.self_sizes);
  }
  if (n.needs_input_grad(1)) {
    Tensor a = n.get(s.self);
    Tensor a3 = a.dim() == 1 ? a.unsqueeze(0) : a;
    DimVector b3_shape(s.other_sizes);
    if (b3_shape.size() == 1) b3_shape.push_back(1);
    gb = ops::sum_to(a3.transpose(-1, -2).matmul(g[0]), b3_shape).reshape(s.other_sizes);
  }
  return {ga, gb};
}
constexpr NodeType<BatchedOperands> kBatchedMatmulBackward{"BmmBackward0", batched_matmul_backward};

/// addmm: mat1 and mat2 (each saved only when the other needs a gradient), the factors
/// and self's sizes (self is at most 2-D and broadcast to the result).
struct AddmmState {
  SavedVariable mat1, mat2;
  Scalar beta, alpha;
  int64_t self_sizes[2] = {0, 0};
  int64_t self_dim = 0;
  bool mat2_transposed = false;  // mat2 is a transposed view (linear's weight.t())
  auto saved() { return std::tie(mat1, mat2); }
};

using ops::scaled;  // alpha * t, no multiply when alpha == 1 (ops/composite.h)

// grad_self = beta g summed to self's shape; grad_mat1 = alpha g @ mat2^T;
// grad_mat2 = alpha mat1^T @ g.
variable_list addmm_backward(OpNode<AddmmState>& n, const variable_list& g) {
  const AddmmState& s = n.state;
  Tensor gs, g1, g2;
  if (n.needs_input_grad(0))
    gs = ops::sum_to(scaled(g[0], s.beta),
                     IntArrayRef(s.self_sizes, static_cast<size_t>(s.self_dim)));
  // Added into a leaf's .grad when the engine allows (Note [Gradient sinks]; alpha 1 only).
  const bool unscaled = s.alpha.toDouble() == 1;
  if (n.needs_input_grad(1)) {  // [n,m] @ [m,k]
    Tensor mat2_t = n.get(s.mat2).t();
    if (!unscaled || !ops::add_product_to_leaf_grad(n.next_edge(1), g[0], mat2_t))
      g1 = scaled(g[0].mm(mat2_t), s.alpha);
  }
  if (n.needs_input_grad(2)) {
    // [k,n] @ [n,m]; when mat2 is a transposed view the same product is formed as
    // (g^T @ mat1)^T, so the weight's gradient comes out contiguous (no copy in
    // AccumulateGrad) and the gemm runs in the orientation LibTorch uses.
    Tensor mat1 = n.get(s.mat1);
    if (!unscaled || !ops::add_product_to_leaf_grad(n.next_edge(2), mat1.t(), g[0]))
      g2 = scaled(s.mat2_transposed ? g[0].t().mm(mat1).t() : mat1.t().mm(g[0]), s.alpha);
  }
  return {gs, g1, g2};
}
constexpr NodeType<AddmmState> kAddmmBackward{"AddmmBackward0", addmm_backward};

void record_addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha, const Tensor& out) {
  auto node = autograd::record_node(kAddmmBackward, {&self, &m1, &m2});
  if (!node) return;
  AddmmState& s = node->state;
  s.beta = beta;
  s.alpha = alpha;
  s.self_dim = self.dim();
  for (int64_t d = 0; d < self.dim(); ++d) s.self_sizes[d] = self.size(d);
  s.mat2_transposed = m2.dim() == 2 && m2.size(1) > 1 && m2.stride(0) == 1;
  if (node->needs_input_grad(2)) s.mat1 = autograd::save(m1);
  if (node->needs_input_grad(1)) s.mat2 = autograd::save(m2);
  autograd::set_history(out, node);
}

// matmul's final squeeze: SizesState and reshape_backward (shape/views_backward.h).
constexpr NodeType<ops::SizesState> kSqueezeBackward3Sizes{"SqueezeBackward3",
                                                           ops::reshape_backward};

Tensor squeeze_first(const Tensor& t) {
  return ops::reshape_result(kSqueezeBackward3Sizes, t, t.sizes().slice(1, t.dim() - 1));
}

// ---- Forward ------------------------------------------------------------------------------

// Checks shared by every product: defined, one device, one non-bool dtype.
void check_operands(const Tensor& a, const Tensor& b, const char* op, const char* name_a,
                    const char* name_b) {
  ops::check_defined(a, op);
  ops::check_defined(b, op);
  ops::check_same_device(a, b, op);
  NABLA_CHECK(a.scalar_type() == b.scalar_type(), op, ": expected ", name_a, " and ", name_b,
              " to have the same dtype, but got: ", a.scalar_type(), " != ", b.scalar_type());
  NABLA_CHECK(a.scalar_type() != kBool, op, ": not implemented for 'Bool' tensors (got ", name_a,
              " of sizes ", a.sizes(), " and ", name_b, " of sizes ", b.sizes(), ")");
}

void check_mm_shapes(const Tensor& a, const Tensor& b, const char* op) {
  NABLA_CHECK(a.dim() == 2, op, ": mat1 must be a matrix, got ", a.dim(), "-D tensor of sizes ",
              a.sizes());
  NABLA_CHECK(b.dim() == 2, op, ": mat2 must be a matrix, got ", b.dim(), "-D tensor of sizes ",
              b.sizes());
  NABLA_CHECK(a.size(1) == b.size(0), op, ": mat1 and mat2 shapes cannot be multiplied (",
              a.size(0), "x", a.size(1), " and ", b.size(0), "x", b.size(1), ")");
}

Tensor mm_compute(const Tensor& a, const Tensor& b, const char* op) {
  check_operands(a, b, op, "m1", "m2");
  check_mm_shapes(a, b, op);
  Tensor out = empty_tensor({a.size(0), b.size(1)}, a.scalar_type(), a.device());
  backend_for(a).gemm(out, a, b, 0, 1);
  record_product(kMmBackward, a, b, out);
  return out;
}

Tensor mv_compute(const Tensor& a, const Tensor& v, const char* op) {
  check_operands(a, v, op, "matrix", "vector");
  NABLA_CHECK(a.dim() == 2 && v.dim() == 1, op,
              ": expected a 2-D matrix and a 1-D vector, but got ", a.dim(), "-D and ", v.dim(),
              "-D tensors (sizes ", a.sizes(), " and ", v.sizes(), ")");
  NABLA_CHECK(a.size(1) == v.size(0), op, ": size mismatch, got matrix of shape ", a.size(0), "x",
              a.size(1), " and vector of size ", v.size(0));
  Tensor out = empty_tensor({a.size(0)}, a.scalar_type(), a.device());
  // out [n, 1] = a [n, k] @ v [k, 1]
  backend_for(a).gemm(ops::make_view(out, {a.size(0), 1}, {1, 1}, 0), a,
                      ops::make_view(v, {v.size(0), 1}, {v.stride(0), 1}, v.storage_offset()), 0,
                      1);
  record_product(kMvBackward, a, v, out);
  return out;
}

Tensor dot_compute(const Tensor& a, const Tensor& b, const char* op) {
  ops::check_defined(a, op);
  ops::check_defined(b, op);
  NABLA_CHECK(a.dim() == 1 && b.dim() == 1, op, ": 1D tensors expected, but got ", a.dim(),
              "D and ", b.dim(), "D tensors");
  NABLA_CHECK(a.scalar_type() == b.scalar_type(), op,
              ": expected both vectors to have same dtype, but found ", a.scalar_type(), " and ",
              b.scalar_type());
  check_operands(a, b, op, "self", "other");
  NABLA_CHECK(a.size(0) == b.size(0), op, ": inconsistent tensor size, expected tensor [",
              a.size(0), "] and src [", b.size(0),
              "] to have the same number of elements, but got ", a.size(0), " and ", b.size(0),
              " elements respectively");
  Tensor out = empty_tensor({}, a.scalar_type(), a.device());
  // out [1, 1] = a [1, k] @ b [k, 1]
  backend_for(a).gemm(ops::make_view(out, {1, 1}, {1, 1}, 0),
                      ops::make_view(a, {1, a.size(0)}, {1, a.stride(0)}, a.storage_offset()),
                      ops::make_view(b, {b.size(0), 1}, {b.stride(0), 1}, b.storage_offset()), 0,
                      1);
  record_product(kDotBackward, a, b, out);
  return out;
}

// True when all dims but the last can be merged into one without a copy.
bool leading_dims_foldable(const Tensor& t) {
  int64_t expected = -1;
  for (int64_t i = t.dim() - 2; i >= 0; --i) {
    if (t.size(i) == 1) continue;
    if (expected != -1 && t.stride(i) != expected) return false;
    expected = t.stride(i) * t.size(i);
  }
  return true;
}

// The general case: broadcast batch dims, one batched gemm, no copies of the inputs.
Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  const bool a_vec = a.dim() == 1, b_vec = b.dim() == 1;
  // Raw views: the product is recorded against a and b themselves.
  Tensor a3 = a_vec ? ops::make_view(a, {1, a.size(0)}, {1, a.stride(0)}, a.storage_offset())
                    : a;  // [..., n, k]
  Tensor b3 = b_vec ? ops::make_view(b, {b.size(0), 1}, {b.stride(0), 1}, b.storage_offset())
                    : b;  // [..., k, m]
  const int64_t n = a3.size(-2), k = a3.size(-1), m = b3.size(-1);
  IntArrayRef ab = a3.sizes().slice(0, a3.dim() - 2);
  IntArrayRef bb = b3.sizes().slice(0, b3.dim() - 2);
  DimVector batch = ops::broadcast_shapes(ab, bb, "matmul");
  DimVector a_shape(batch), b_shape(batch), out_shape(batch), result_shape(batch);
  a_shape.push_back(n);
  a_shape.push_back(k);
  b_shape.push_back(k);
  b_shape.push_back(m);
  out_shape.push_back(n);
  out_shape.push_back(m);
  if (!a_vec) result_shape.push_back(n);
  if (!b_vec) result_shape.push_back(m);
  Tensor out = empty_tensor(out_shape, a.scalar_type(), a.device());
  backend_for(a).gemm(out, ops::expand_to(a3, a_shape), ops::expand_to(b3, b_shape), 0, 1);
  if (auto node = record_product(kBatchedMatmulBackward, a, b, out)) {
    node->state.self_sizes.assign(a.sizes().begin(), a.sizes().end());
    node->state.other_sizes.assign(b.sizes().begin(), b.sizes().end());
  }
  return ops::unsafe_view(out, result_shape);  // LibTorch's graph ends in UnsafeViewBackward0
}

Tensor matmul_compute(const Tensor& a, const Tensor& b) {
  const char* op = "matmul";
  ops::check_defined(a, op);
  ops::check_defined(b, op);
  const int64_t da = a.dim(), db = b.dim();
  NABLA_CHECK(da >= 1 && db >= 1, op,
              ": both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
              "D");
  if (da == 1 && db == 1) return dot_compute(a, b, op);
  check_operands(a, b, op, "m1", "m2");
  if (da == 2 && db == 1) return mv_compute(a, b, op);
  if (da == 1 && db == 2) return squeeze_first(mm_compute(a.unsqueeze(0), b, op));
  if (da == 2 && db == 2) return mm_compute(a, b, op);

  const int64_t k = a.size(-1), kb = db == 1 ? b.size(0) : b.size(-2);
  NABLA_CHECK(k == kb, op, ": the last dim of the first argument (", k, ") must match the ",
              db == 1 ? "size" : "second-to-last dim", " of the second (", kb, "); shapes ",
              a.sizes(), " and ", b.sizes(), " cannot be multiplied");
  if (da >= 3 && db <= 2 && leading_dims_foldable(a)) {
    // [..., n, k] @ [k, m] is one [(...) n, k] @ [k, m] product.
    IntArrayRef lead_dims = a.sizes().slice(0, da - 1);
    DimVector lead(lead_dims.begin(), lead_dims.end());
    int64_t rows = 1;
    for (int64_t s : lead) rows *= s;
    Tensor a2 = a.reshape({rows, k});
    if (db == 1) return ops::unsafe_view(mv_compute(a2, b, op), lead);
    lead.push_back(b.size(1));
    return ops::unsafe_view(mm_compute(a2, b, op), lead);
  }
  if (da == 2 && db >= 3 && a.requires_grad()) {
    // As LibTorch: [n, k] @ [..., k, m] = ([..., m, k] folded @ [k, n])^T, so that a's
    // gradient is one mm rather than a broadcast [..., n, k] summed over the batch. The
    // result is copied back to row-major order (its node: CloneBackward0).
    Tensor bt = b.mT();
    IntArrayRef lead_dims = bt.sizes().slice(0, db - 1);
    DimVector lead(lead_dims.begin(), lead_dims.end());
    lead.push_back(a.size(0));
    Tensor folded = mm_compute(bt.reshape({-1, k}), a.t(), op);
    return ops::unsafe_view(folded, lead).mT().contiguous();
  }
  return batched_matmul(a, b);
}

Tensor addmm_compute(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                     const Scalar& alpha, const char* op) {
  ops::check_defined(self, op);
  check_operands(m1, m2, op, "m1", "m2");
  check_mm_shapes(m1, m2, op);
  NABLA_CHECK(self.scalar_type() == m1.scalar_type(), op,
              ": self and mat2 must have the same dtype, but got ", self.scalar_type(), " and ",
              m1.scalar_type());
  ops::check_same_device(self, m1, op);
  const DimVector shape{m1.size(0), m2.size(1)};
  NABLA_CHECK(self.dim() <= 2 && ops::broadcast_shapes(self.sizes(), shape, op) == shape, op,
              ": self of shape ", self.sizes(), " cannot be broadcast to the result shape ",
              IntArrayRef(shape));
  Tensor out = empty_tensor(shape, m1.scalar_type(), m1.device());
  // beta == 0 must not read self (NaN there is ignored, as in LibTorch).
  if (beta.toDouble() != 0) backend_for(out).copy(out, ops::expand_to(self, shape));
  backend_for(out).gemm(out, m1, m2, beta, alpha);
  record_addmm(self, m1, m2, beta, alpha, out);
  return out;
}

}  // namespace

// ---- The ops of core/op_list/linalg.def (their methods and public functions come from
// the rows) ----------------------------------------------------------------------------------

Tensor ops::matmul_impl(const Tensor& self, const Tensor& other) {
  return matmul_compute(self, other);
}
Tensor ops::mm_impl(const Tensor& self, const Tensor& mat2) { return mm_compute(self, mat2, "mm"); }
Tensor ops::mv_impl(const Tensor& self, const Tensor& vec) { return mv_compute(self, vec, "mv"); }
Tensor ops::dot_impl(const Tensor& self, const Tensor& tensor) {
  return dot_compute(self, tensor, "dot");
}

Tensor ops::bmm_impl(const Tensor& self, const Tensor& mat2) {
  const char* op = "bmm";
  check_operands(self, mat2, op, "batch1", "batch2");
  NABLA_CHECK(self.dim() == 3, op, ": batch1 must be a 3D tensor, got ", self.dim(),
              "-D tensor of sizes ", self.sizes());
  NABLA_CHECK(mat2.dim() == 3, op, ": batch2 must be a 3D tensor, got ", mat2.dim(),
              "-D tensor of sizes ", mat2.sizes());
  NABLA_CHECK(mat2.size(0) == self.size(0) && mat2.size(1) == self.size(2), op,
              ": Expected size for first two dimensions of batch2 tensor to be: [", self.size(0),
              ", ", self.size(2), "] but got: [", mat2.size(0), ", ", mat2.size(1),
              "] (batch1 sizes ", self.sizes(), ", batch2 sizes ", mat2.sizes(), ")");
  Tensor out =
      empty_tensor({self.size(0), self.size(1), mat2.size(2)}, self.scalar_type(), self.device());
  backend_for(self).gemm(out, self, mat2, 0, 1);
  record_product(kBmmBackward, self, mat2, out);
  return out;
}

Tensor ops::outer_impl(const Tensor& self, const Tensor& vec2) {
  ops::check_defined(self, "outer");
  ops::check_defined(vec2, "outer");
  NABLA_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(),
              "-D (sizes ", self.sizes(), ")");
  NABLA_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(),
              "-D (sizes ", vec2.sizes(), ")");
  // out [n, m] = self [n, 1] * vec2 [m], with mul's type promotion, as LibTorch.
  return self.unsqueeze(1).mul(vec2);
}

Tensor ops::addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                       const Scalar& beta, const Scalar& alpha) {
  return addmm_compute(self, mat1, mat2, beta, alpha, "addmm");
}

const Tensor& Tensor::addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                             const Scalar& alpha) const {
  const char* op = "addmm_";
  ops::check_defined(*this, op);
  check_operands(mat1, mat2, op, "m1", "m2");
  check_mm_shapes(mat1, mat2, op);
  NABLA_CHECK(scalar_type() == mat1.scalar_type(), op,
              ": self and mat2 must have the same dtype, but got ", scalar_type(), " and ",
              mat1.scalar_type());
  ops::check_same_device(*this, mat1, op);
  NABLA_CHECK(dim() == 2 && size(0) == mat1.size(0) && size(1) == mat2.size(1), op,
              ": Bad in-place call: input tensor size ", sizes(), " and output tensor size [",
              mat1.size(0), ", ", mat2.size(1), "] should match");
  // With autograd: the out-of-place product records AddmmBackward0, then self takes its
  // value and history.
  if (autograd::any_requires_grad(*this, mat1, mat2))
    return ops::assign_with_history(*this, addmm_compute(*this, mat1, mat2, beta, alpha, op), op);
  if (isReducedFloatingType(scalar_type()))  // through float32 (Note [16-bit compute])
    return ops::inplace_from(
        *this, op, [&](const Tensor& self) { return nabla::addmm(self, mat1, mat2, beta, alpha); });
  // The kernel writes a strided self directly, or through a temporary when it aliases
  // mat1/mat2 or BLAS cannot address it.
  backend_for(*this).gemm(*this, mat1, mat2, beta, alpha);
  ops::bump_version(*this);
  return *this;
}

Tensor ops::linear_impl(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const char* op = "linear";
  ops::check_defined(input, "linear (input)");
  ops::check_defined(weight, "linear (weight)");
  NABLA_CHECK(weight.dim() == 1 || weight.dim() == 2, op, ": weight must be 1-D or 2-D, got sizes ",
              weight.sizes());
  NABLA_CHECK(input.dim() >= 1, op, ": input must be at least 1-D, got a 0-D tensor");
  // As LibTorch (so the graph's nodes are its nodes): a 2-D input, or a contiguous 3-D one
  // viewed as 2-D, is one addmm with the bias; anything else is matmul, then add_ of the bias.
  if (bias.defined() && weight.dim() == 2 &&
      (input.dim() == 2 || (input.dim() == 3 && input.is_contiguous()))) {
    Tensor x2 =
        input.dim() == 2 ? input : input.view({input.size(0) * input.size(1), input.size(2)});
    // y [rows, out] = bias + x2 [rows, in] @ weight^T [in, out]
    Tensor y = addmm_compute(bias, x2, weight.t(), 1, 1, op);
    return input.dim() == 2 ? y : y.view({input.size(0), input.size(1), weight.size(0)});
  }
  Tensor y = matmul_compute(input, weight.t());
  if (!bias.defined()) return y;
  NABLA_CHECK(ops::broadcast_shapes(y.sizes(), bias.sizes(), op) == y.sizes(), op,
              ": bias of shape ", bias.sizes(), " cannot be added to the output of shape ",
              y.sizes());
  return y.add_(bias);
}

}  // namespace nabla
