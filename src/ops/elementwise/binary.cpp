// The elementwise binary ops and where, driven by their declarations in
// core/op_list/binary.def: dtype rules, forward through the backend's binary kernel
// (broadcasting by stride 0, no expand views), in-place forms, operators, backward nodes
// (typed state + formula) and registry entries.
#include <cmath>
#include <limits>
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/elementwise/float32_compute.h"
#include "ops/op_utils.h"

namespace nabla {

using ops::broadcast_shapes;
using ops::cast;
using ops::empty_tensor;

namespace {

// ---- Dtype rules (the `dtype` column) -----------------------------------------------------

enum class BinaryDtype { Promote, Floating, NoBool, Integral, BoolOut };

BinaryDtype dtype_rule(BinaryOp op) {
  switch (op) {
#define NABLA_BINARY_OP(name, Kernel, dtype, ...) \
  case BinaryOp::Kernel:                          \
    return BinaryDtype::dtype;
#define NABLA_BINARY_KERNEL(name, Kernel, dtype) NABLA_BINARY_OP(name, Kernel, dtype)
#include "nabla/core/op_list/binary.def"
  }
  return BinaryDtype::Promote;
}

// dtype the kernel computes in, and dtype of the result, for op over `common`.
std::pair<ScalarType, ScalarType> binary_dtypes(BinaryOp op, ScalarType common, const char* name) {
  switch (dtype_rule(op)) {
    case BinaryDtype::BoolOut:
      return {common, kBool};
    case BinaryDtype::Floating:
      if (!isFloatingType(common)) common = get_default_dtype();
      break;
    case BinaryDtype::Integral:
      NABLA_CHECK(!isFloatingType(common), name,
                  ": bitwise operations are only defined for integral and bool tensors, got ",
                  common);
      break;
    case BinaryDtype::NoBool:
      NABLA_CHECK(common != kBool, name, ": not supported for bool tensors");
      break;
    case BinaryDtype::Promote:
      NABLA_CHECK(
          op != BinaryOp::Sub || common != kBool, name,
          ": subtraction, the `-` operator, with two bool tensors is not supported. Use the "
          "`^` or `logical_xor()` operator instead.");
      break;
  }
  return {common, common};
}

void check_integer_divisor(BinaryOp op, const Tensor& b, ScalarType compute, const char* name) {
  if ((op != BinaryOp::Remainder && op != BinaryOp::Fmod) || isFloatingType(compute)) return;
  Tensor bz = empty_tensor(b.sizes(), kBool, b.device());
  backend_for(b).binary(BinaryOp::Eq, bz, cast(b, compute),
                        ops::scalar_tensor(0, compute, b.device()), 1);
  NABLA_CHECK(!bz.any().item<bool>(), name, ": ZeroDivisionError (integer remainder by zero)");
}

// ---- Backward state (the `State` and `save_*` columns) -----------------------------------

/// An input's shape when broadcasting changed it (its gradient is summed back to it).
struct ReduceTo {
  std::vector<int64_t> shape;
  bool needed = false;
  void set(const Tensor& input, const Tensor& out) {
    needed = input.sizes() != out.sizes();
    if (needed) shape.assign(input.sizes().begin(), input.sizes().end());
  }
  Tensor operator()(const Tensor& g) const {
    return needed && g.defined() ? ops::sum_to(g, shape) : g;
  }
};

struct Alpha {
  Scalar alpha;
  ReduceTo self_to, other_to;
};
struct Operands {
  SavedVariable self, other;
  ReduceTo self_to, other_to;
  auto saved() { return std::tie(self, other); }
};
struct OperandsResult {
  SavedVariable self, other, result;
  ReduceTo self_to, other_to;
  auto saved() { return std::tie(self, other, result); }
};

enum class Save { No, Yes, IfSelfGrad, IfOtherGrad };
bool wanted(Save rule, bool self_grad, bool other_grad) {
  return rule == Save::Yes || (rule == Save::IfSelfGrad && self_grad) ||
         (rule == Save::IfOtherGrad && other_grad);
}

template <class S>
Scalar alpha_of(OpNode<S>& n) {
  if constexpr (requires { n.state.alpha; })
    return n.state.alpha;
  else
    return 1;
}

/// Records out = op(a, b) as a node of `type`, saving what `rules` ask for.
template <class S>
void record(const NodeType<S>& type, const Save (&rules)[3], const Tensor& a, const Tensor& b,
            const Scalar& alpha, const Tensor& out) {
  auto node = autograd::record_node(type, {&a, &b});
  if (!node) return;
  bool ga = autograd::requires_grad(a), gb = autograd::requires_grad(b);
  auto& st = node->state;
  st.self_to.set(a, out);
  st.other_to.set(b, out);
  if constexpr (requires { st.alpha; }) st.alpha = alpha;
  if constexpr (requires { st.self; })
    if (wanted(rules[0], ga, gb)) st.self = autograd::save(a);
  if constexpr (requires { st.other; })
    if (wanted(rules[1], ga, gb)) st.other = autograd::save(b);
  autograd::set_history(out, node);  // before saving out, so the saved output knows its node
  if constexpr (requires { st.result; })
    if (wanted(rules[2], ga, gb)) st.result = autograd::save_output(out);
}

// ---- Helpers the derivatives use ----------------------------------------------------------

Tensor pow_self_grad(const Tensor& grad, const Tensor& a, const Tensor& b) {
  return (grad * b * a.pow(b - 1)).where(b != 0, zeros_like(a));
}
// d/db a^b = a^b log a; taken as 0 where a == 0 and b >= 0 (as PyTorch).
Tensor pow_other_grad(const Tensor& grad, const Tensor& a, const Tensor& b, const Tensor& out) {
  Tensor mask = (a == 0).logical_and(b >= 0);
  return (grad * out * a.log()).where(mask.logical_not(), zeros_like(out));
}
// The gradient goes to the larger (smaller) input, split evenly on ties (PyTorch 1.13).
Tensor minmax_grad(const Tensor& grad, const Tensor& a, const Tensor& b, bool is_max, int which) {
  Tensor wins_a = is_max ? a > b : a < b;
  Tensor zero = zeros_like(grad);
  Tensor full = which == 0 ? grad.where(wins_a, zero) : zero.where(wins_a, grad);
  return (grad / 2).where(a == b, full);
}

// ---- One node type per op (three names: tensor-tensor, Scalar other, Scalar self) ---------

#define NABLA_BINARY_OP(name, Kernel, dtype, node, node_scalar, node_rscalar, State, save_self,  \
                        save_other, save_result, grad_self, grad_other)                          \
  variable_list name##_backward(OpNode<State>& n, const variable_list& g) {                      \
    /* 16-bit floats: computed in float32, rounded once by the engine (Note [16-bit compute]) */ \
    Tensor grad_storage;                                                                         \
    [[maybe_unused]] const Tensor& grad = ops::widen_ref(g[0], grad_storage);                    \
    [[maybe_unused]] Tensor self = ops::widen(NABLA_SAVED_OR_UNDEFINED(n, self));                \
    [[maybe_unused]] Tensor other = ops::widen(NABLA_SAVED_OR_UNDEFINED(n, other));              \
    [[maybe_unused]] Tensor result = ops::widen(NABLA_SAVED_OR_UNDEFINED(n, result));            \
    [[maybe_unused]] Scalar alpha = alpha_of(n);                                                 \
    Tensor gs, go;                                                                               \
    if (n.needs_input_grad(0)) gs = n.state.self_to(grad_self);                                  \
    if (n.needs_input_grad(1)) go = n.state.other_to(grad_other);                                \
    return autograd::gradients(std::move(gs), std::move(go));                                    \
  }                                                                                              \
  constexpr NodeType<State> k_##name##_nodes[3] = {                                              \
      {node, name##_backward}, {node_scalar, name##_backward}, {node_rscalar, name##_backward}}; \
  constexpr Save k_##name##_saves[3] = {Save::save_self, Save::save_other, Save::save_result};   \
  void record_##name(int variant, const Tensor& a, const Tensor& b, const Scalar& alpha,         \
                     const Tensor& out) {                                                        \
    record(k_##name##_nodes[variant], k_##name##_saves, a, b, alpha, out);                       \
  }
#include "nabla/core/op_list/binary.def"

/// Records out = op(a, b) when op has a derivative. `variant`: 0 for tensor (op) tensor, 1
/// when b was a Scalar, 2 when a was (LibTorch's node names differ).
void record_binary(BinaryOp op, int variant, const Tensor& a, const Tensor& b, const Scalar& alpha,
                   const Tensor& out) {
  if (!autograd::any_requires_grad(a, b)) return;
  switch (op) {
#define NABLA_BINARY_OP(name, Kernel, ...) \
  case BinaryOp::Kernel:                   \
    return record_##name(variant, a, b, alpha, out);
#include "nabla/core/op_list/binary.def"
    default:
      return;  // comparisons, logic and bitwise ops have no gradient
  }
}

// where(cond, a, b): the gradient flows to a where cond holds, to b elsewhere.
struct WhereState {
  SavedVariable condition;
  ReduceTo self_to, other_to;
  auto saved() { return std::tie(condition); }
};
variable_list where_backward(OpNode<WhereState>& n, const variable_list& g) {
  Tensor cond = n.get(n.state.condition);
  Tensor zero = zeros_like(g[0]);
  return {Tensor(), n.needs_input_grad(1) ? n.state.self_to(g[0].where(cond, zero)) : Tensor(),
          n.needs_input_grad(2) ? n.state.other_to(zero.where(cond, g[0])) : Tensor()};
}
constexpr NodeType<WhereState> kWhereBackward{"WhereBackward0", where_backward};

// PyTorch's argument checks for add/sub that depend on the operands, not just the result.
void check_add_sub(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType compute,
                   const Scalar& alpha, const char* name) {
  if (op != BinaryOp::Add && op != BinaryOp::Sub) return;
  NABLA_CHECK(!(op == BinaryOp::Sub && (a.scalar_type() == kBool || b.scalar_type() == kBool)),
              name,
              ": subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  NABLA_CHECK(isFloatingType(compute) || !alpha.isFloatingPoint(), name,
              ": for integral input tensors, argument alpha must not be a floating point number.");
}

Tensor binary_tensors(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType common,
                      const Scalar& alpha, const char* name) {
  auto [compute, out_t] = binary_dtypes(op, common, name);
  check_add_sub(op, a, b, compute, alpha, name);
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  // The kernel broadcasts (stride 0) by itself: no expand views needed. 16-bit floats go
  // through float32, the operands rounded to `compute` first (Note [16-bit compute]).
  const ScalarType wide = ops::kernel_dtype(compute);
  Tensor ac = cast(cast(a, compute), wide), bc = cast(cast(b, compute), wide);
  if (checked_numel(shape, name) > 0) check_integer_divisor(op, bc, compute, name);
  Tensor out = empty_tensor(shape, out_t == compute ? wide : out_t, a.device());
  backend_for(a.device()).binary(op, out, ac, bc, alpha);
  return cast(out, out_t);
}

// `other_scalar` / `self_scalar`: which operand was a Scalar (for the node's name).
Tensor binary_recorded(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType common,
                       const Scalar& alpha, const char* name, bool other_scalar, bool self_scalar) {
  Tensor out = binary_tensors(op, a, b, common, alpha, name);
  record_binary(op, self_scalar ? 2 : other_scalar ? 1 : 0, a, b, alpha, out);
  return out;
}

Tensor binary_op(BinaryOp op, const Tensor& a_in, const Tensor& b_in, const char* name,
                 const Scalar& alpha = 1) {
  ops::check_defined(a_in, name);
  ops::check_defined(b_in, name);
  Tensor a = a_in, b = b_in;
  ops::unify_devices(a, b, name);
  return binary_recorded(op, a, b, ops::result_type(a, b), alpha, name, false, false);
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Scalar& b, const char* name,
                 const Scalar& alpha = 1) {
  ops::check_defined(a, name);
  ScalarType common = ops::result_type(a, b);
  return binary_recorded(op, a, ops::constant_scalar(b, common, a.device()), common, alpha, name,
                         true, false);
}

Tensor binary_op(BinaryOp op, const Scalar& a, const Tensor& b, const char* name) {
  ops::check_defined(b, name);
  ScalarType common = ops::result_type(b, a);
  return binary_recorded(op, ops::constant_scalar(a, common, b.device()), b, common, 1, name, false,
                         true);
}

// `other_scalar`: other was a Scalar (x.mul_(2) records MulBackward1, as LibTorch).
const Tensor& binary_op_(BinaryOp op, const Tensor& self, const Tensor& other_in, const char* name,
                         const Scalar& alpha = 1, bool other_scalar = false) {
  ops::check_defined(self, name);
  ops::check_defined(other_in, name);
  Tensor other = other_in;
  if (other.device() != self.device() && other.dim() == 0 && other.is_cpu())
    other = other.to(self.device(), other.scalar_type());
  ops::check_same_device(self, other, name);
  ScalarType common = ops::result_type(self, other);
  auto [compute, out_t] = binary_dtypes(op, promoteTypes(common, self.scalar_type()), name);
  check_add_sub(op, self, other, compute, alpha, name);
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), name);
  ops::check_inplace(self, shape, out_t, name);
  if (autograd::any_requires_grad(self, other))
    return ops::assign_with_history(
        self, binary_recorded(op, self.clone(), other, common, alpha, name, other_scalar, false),
        name);
  Tensor o = cast(other, compute);
  // An operand that overlaps self with another layout must be read before writing.
  if (o.impl()->storage() == self.impl()->storage() &&
      !(o.sizes() == self.sizes() && o.strides() == self.strides() &&
        o.storage_offset() == self.storage_offset()))
    o = o.clone();
  if (self.numel() > 0) check_integer_divisor(op, o, compute, name);
  const ScalarType wide = ops::kernel_dtype(compute);
  if (compute == self.scalar_type() && wide == compute) {
    backend_for(self).binary(op, self, self, o, alpha);
  } else {  // through a temporary; float32 for 16-bit floats (Note [16-bit compute])
    Tensor out = empty_tensor(shape, out_t == compute ? wide : out_t, self.device());
    backend_for(self.device())
        .binary(op, out, cast(cast(self, compute), wide), cast(o, wide), alpha);
    ops::copy_any(self, out);
  }
  ops::bump_version(self);
  return self;
}

const Tensor& binary_op_(BinaryOp op, const Tensor& self, const Scalar& other, const char* name,
                         const Scalar& alpha = 1) {
  ops::check_defined(self, name);
  ScalarType common = promoteTypes(ops::result_type(self, other), self.scalar_type());
  return binary_op_(op, self, ops::constant_scalar(other, common, self.device()), name, alpha,
                    true);
}

}  // namespace

// ---- The rows' implementations (core/op_list/binary.def) ----------------------------------

// add and sub, with alpha: `other` a tensor or a number.
#define NABLA_ALPHA_IMPLS(name, Kernel, Other)                                           \
  Tensor ops::name##_impl(const Tensor& self, const Other& other, const Scalar& alpha) { \
    return binary_op(BinaryOp::Kernel, self, other, #name, alpha);                       \
  }                                                                                      \
  const Tensor& ops::name##_inplace_impl(const Tensor& self, const Other& other,         \
                                         const Scalar& alpha) {                          \
    return binary_op_(BinaryOp::Kernel, self, other, #name "_", alpha);                  \
  }
NABLA_ALPHA_IMPLS(add, Add, Tensor)
NABLA_ALPHA_IMPLS(add, Add, Scalar)
NABLA_ALPHA_IMPLS(sub, Sub, Tensor)
NABLA_ALPHA_IMPLS(sub, Sub, Scalar)
#undef NABLA_ALPHA_IMPLS
// The ops without alpha: `other` a tensor (and, with Scalar, a number).
#define NABLA_BINARY_IMPL(name, Kernel, Other)                      \
  Tensor ops::name##_impl(const Tensor& self, const Other& other) { \
    return binary_op(BinaryOp::Kernel, self, other, #name);         \
  }
#define NABLA_BINARY_IMPLS(name, Kernel)  \
  NABLA_BINARY_IMPL(name, Kernel, Tensor) \
  NABLA_BINARY_IMPL(name, Kernel, Scalar)
#define NABLA_BINARY_INPLACE_IMPL(name, Kernel, Other)                             \
  const Tensor& ops::name##_inplace_impl(const Tensor& self, const Other& other) { \
    return binary_op_(BinaryOp::Kernel, self, other, #name "_");                   \
  }
NABLA_BINARY_IMPLS(mul, Mul)
NABLA_BINARY_IMPLS(div, Div)
NABLA_BINARY_IMPLS(remainder, Remainder)
NABLA_BINARY_IMPLS(fmod, Fmod)
NABLA_BINARY_IMPLS(eq, Eq)
NABLA_BINARY_IMPLS(ne, Ne)
NABLA_BINARY_IMPLS(lt, Lt)
NABLA_BINARY_IMPLS(le, Le)
NABLA_BINARY_IMPLS(gt, Gt)
NABLA_BINARY_IMPLS(ge, Ge)
NABLA_BINARY_IMPLS(bitwise_and, BitwiseAnd)
NABLA_BINARY_IMPLS(bitwise_or, BitwiseOr)
NABLA_BINARY_IMPLS(bitwise_xor, BitwiseXor)
NABLA_BINARY_IMPL(pow, Pow, Tensor)
NABLA_BINARY_IMPL(atan2, Atan2, Tensor)
NABLA_BINARY_IMPL(maximum, Maximum, Tensor)
NABLA_BINARY_IMPL(minimum, Minimum, Tensor)
NABLA_BINARY_IMPL(logical_and, LogicalAnd, Tensor)
NABLA_BINARY_IMPL(logical_or, LogicalOr, Tensor)
NABLA_BINARY_IMPL(logical_xor, LogicalXor, Tensor)
NABLA_BINARY_INPLACE_IMPL(mul, Mul, Tensor)
NABLA_BINARY_INPLACE_IMPL(mul, Mul, Scalar)
NABLA_BINARY_INPLACE_IMPL(div, Div, Tensor)
NABLA_BINARY_INPLACE_IMPL(div, Div, Scalar)
NABLA_BINARY_INPLACE_IMPL(pow, Pow, Tensor)
#undef NABLA_BINARY_IMPL
#undef NABLA_BINARY_IMPLS
#undef NABLA_BINARY_INPLACE_IMPL
// 2 ** x: the base as a 0-d tensor of the result's type.
Tensor ops::pow_impl(const Scalar& self, const Tensor& exponent) {
  ops::check_defined(exponent, "pow");
  return binary_op(BinaryOp::Pow, self, exponent, "pow");
}

// ---- where, equal, isclose ---------------------------------------------------------

Tensor ops::where_impl(const Tensor& condition, const Tensor& self, const Tensor& other) {
  ops::check_defined(condition, "where (condition)");
  ops::check_defined(other, "where (other)");
  NABLA_CHECK(condition.scalar_type() == kBool || condition.scalar_type() == kByte,
              "where: expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
  ops::check_same_device(self, other, "where");
  ScalarType t = ops::result_type(self, other);
  DimVector shape = broadcast_shapes(broadcast_shapes(condition.sizes(), self.sizes(), "where"),
                                     other.sizes(), "where");
  // A selection: exact through float32 for 16-bit floats (Note [16-bit compute]).
  const ScalarType wide = ops::kernel_dtype(t);
  Tensor out = empty_tensor(shape, wide, self.device());
  backend_for(self.device())
      .where(out, cast(condition, kBool), cast(cast(self, t), wide), cast(cast(other, t), wide));
  out = cast(out, t);
  if (auto node = autograd::record_node(kWhereBackward, {&condition, &self, &other})) {
    node->state.self_to.set(self, out);
    node->state.other_to.set(other, out);
    node->state.condition = autograd::save(condition);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::where_impl(const Tensor& condition, const Tensor& self, const Scalar& other) {
  ops::check_defined(self, "where");
  return where_impl(condition, self,
                    ops::scalar_tensor(other, ops::result_type(self, other), self.device()));
}
Tensor ops::where_impl(const Tensor& condition, const Scalar& self, const Tensor& other) {
  ops::check_defined(other, "where");
  return where_impl(condition,
                    ops::scalar_tensor(self, ops::result_type(other, self), other.device()), other);
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return nabla::where(condition, *this, other);
}

bool Tensor::equal(const Tensor& other) const {
  ops::check_defined(other, "equal");
  if (sizes() != other.sizes()) return false;
  return eq(other).all().item<bool>();
}

Tensor ops::isclose_impl(const Tensor& self, const Tensor& other, double rtol, double atol,
                         bool equal_nan) {
  NABLA_CHECK(self.scalar_type() == other.scalar_type(),
              "isclose: expected both tensors to have the same dtype, but got ", self.scalar_type(),
              " and ", other.scalar_type());
  NABLA_CHECK(rtol >= 0 && atol >= 0,
              "isclose: rtol and atol must be non-negative, got rtol=", rtol, ", atol=", atol);
  // LibTorch's formula, in the inputs' own dtype (bool as the default float dtype), so
  // that atol = 0.1 is 0.1f for float32 inputs, and integer differences are integers.
  Tensor close = self.eq(other);
  if (equal_nan && self.is_floating_point())
    close = close.logical_or(self.isnan().logical_and(other.isnan()));
  if (rtol == 0 && atol == 0) return close;
  auto cast = [](const Tensor& t) {
    return t.scalar_type() == kBool ? t.to(get_default_dtype()) : t;
  };
  Tensor a = cast(self), b = cast(other);
  Tensor allowed = b.mul(rtol).abs().add(atol);
  Tensor actual = a.sub(b).abs();
  return close.logical_or(actual.isfinite().logical_and(actual.le(allowed)));
}

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return isclose(other, rtol, atol, equal_nan).all().item<bool>();
}

// ---- Operators --------------------------------------------------------------------

Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator!(const Tensor& a) { return a.logical_not(); }
Tensor operator~(const Tensor& a) { return a.bitwise_not(); }

// The op of the same name (traced as it); a Scalar first, as in 2.5 - x, is LibTorch's
// x.mul(2) / rsub / ... (its node named so: node_rscalar), not traced yet.
#define NABLA_DEFINE_OPERATOR(sym, OP, name)                                          \
  Tensor operator sym(const Tensor& a, const Tensor& b) { return nabla::name(a, b); } \
  Tensor operator sym(const Tensor& a, const Scalar& b) { return nabla::name(a, b); } \
  Tensor operator sym(const Scalar& a, const Tensor& b) {                             \
    return binary_op(BinaryOp::OP, a, b, #name);                                      \
  }
NABLA_DEFINE_OPERATOR(+, Add, add)
NABLA_DEFINE_OPERATOR(-, Sub, sub)
NABLA_DEFINE_OPERATOR(*, Mul, mul)
NABLA_DEFINE_OPERATOR(/, Div, div)
NABLA_DEFINE_OPERATOR(%, Remainder, remainder)
NABLA_DEFINE_OPERATOR(==, Eq, eq)
NABLA_DEFINE_OPERATOR(!=, Ne, ne)
NABLA_DEFINE_OPERATOR(<, Lt, lt)
NABLA_DEFINE_OPERATOR(<=, Le, le)
NABLA_DEFINE_OPERATOR(>, Gt, gt)
NABLA_DEFINE_OPERATOR(>=, Ge, ge)
NABLA_DEFINE_OPERATOR(&, BitwiseAnd, bitwise_and)
NABLA_DEFINE_OPERATOR(|, BitwiseOr, bitwise_or)
NABLA_DEFINE_OPERATOR(^, BitwiseXor, bitwise_xor)
#undef NABLA_DEFINE_OPERATOR

const Tensor& operator+=(const Tensor& a, const Tensor& b) { return a.add_(b); }
const Tensor& operator+=(const Tensor& a, const Scalar& b) { return a.add_(b); }
const Tensor& operator-=(const Tensor& a, const Tensor& b) { return a.sub_(b); }
const Tensor& operator-=(const Tensor& a, const Scalar& b) { return a.sub_(b); }
const Tensor& operator*=(const Tensor& a, const Tensor& b) { return a.mul_(b); }
const Tensor& operator*=(const Tensor& a, const Scalar& b) { return a.mul_(b); }
const Tensor& operator/=(const Tensor& a, const Tensor& b) { return a.div_(b); }
const Tensor& operator/=(const Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace nabla
