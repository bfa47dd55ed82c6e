// Elementwise ops: type promotion and broadcasting in front of the backend's unary,
// binary and where kernels; in-place variants; operators.
#include <cmath>
#include <limits>

#include "autograd/formula.h"
#include "nabla/ops/factories.h"
#include "ops/elementwise.h"
#include "ops/elementwise_backward.h"
#include "ops/op_utils.h"

namespace nabla {

using ops::broadcast_shapes;
using ops::cast;
using ops::empty_tensor;

namespace {

enum class Kind {
  Floating,      // integer and bool inputs are promoted to the default float
  FloatingOnly,  // floating input required (frac)
  Keep,          // any dtype, result has the input dtype
  KeepNoBool,    // any dtype but bool
  BoolOut,       // result is bool
};

ScalarType unary_result_dtype(const Tensor& x, Kind kind, const char* name) {
  ScalarType t = x.scalar_type();
  switch (kind) {
    case Kind::Floating:
      return isFloatingType(t) ? t : get_default_dtype();
    case Kind::FloatingOnly:
      NABLA_CHECK(isFloatingType(t), name, ": expected a floating point tensor, got ", t);
      return t;
    case Kind::KeepNoBool:
      NABLA_CHECK(t != kBool, name, ": not supported for bool tensors (got a Bool tensor of sizes ",
                  x.sizes(), ")");
      return t;
    case Kind::Keep:
      return t;
    case Kind::BoolOut:
      return kBool;
  }
  return t;
}

Tensor unary_impl(const Tensor& x, UnaryOp op, Kind kind, const char* name, UnaryParams p = {}) {
  ops::check_defined(x, name);
  ScalarType out_t = unary_result_dtype(x, kind, name);
  Tensor in = kind == Kind::BoolOut ? x : cast(x, out_t);
  Tensor out = empty_tensor(x.sizes(), out_t, x.device());
  backend_for(x).unary(op, out, in, p);
  ops::record_unary(op, p, x, out);
  return out;
}

Tensor unary_op(const Tensor& x, UnaryOp op, Kind kind, const char* name) {
  return unary_impl(x, op, kind, name);
}

const Tensor& unary_op_(const Tensor& self, UnaryOp op, Kind kind, const char* name,
                        UnaryParams p = {}) {
  ops::check_defined(self, name);
  ScalarType out_t = unary_result_dtype(self, kind, name);
  if (autograd::any_requires_grad(self)) {
    ops::check_inplace(self, self.sizes(), out_t, name);
    // The formula may read self's old value, which the write overwrites: it reads a
    // clone (whose CloneBackward0 keeps self's old history).
    return ops::assign_with_history(self, unary_impl(self.clone(), op, kind, name, p), name);
  }
  if (out_t == self.scalar_type() && kind != Kind::BoolOut) {
    backend_for(self).unary(op, self, self, p);
  } else {
    ops::check_inplace(self, self.sizes(), out_t, name);
    Tensor r = unary_impl(self, op, kind, name, p);
    backend_for(self).copy(self, r);
  }
  ops::bump_version(self);
  return self;
}

bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq; }

// dtype the kernel computes in, and dtype of the result, for op over `common`.
std::pair<ScalarType, ScalarType> binary_dtypes(BinaryOp op, ScalarType common, const char* name) {
  if (is_comparison(op)) return {common, kBool};
  switch (op) {
    case BinaryOp::Div:
    case BinaryOp::Atan2:
      if (!isFloatingType(common)) common = get_default_dtype();
      break;
    case BinaryOp::Sub:
      NABLA_CHECK(
          common != kBool, name,
          ": subtraction, the `-` operator, with two bool tensors is not supported. Use the "
          "`^` or `logical_xor()` operator instead.");
      break;
    case BinaryOp::BitwiseAnd:
    case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor:
      NABLA_CHECK(!isFloatingType(common), name,
                  ": bitwise operations are only defined for integral and "
                  "bool tensors, got ",
                  common);
      break;
    case BinaryOp::Remainder:
    case BinaryOp::Fmod:
    case BinaryOp::Pow:
      NABLA_CHECK(common != kBool, name, ": not supported for bool tensors");
      break;
    default:
      break;
  }
  return {common, common};
}

void check_integer_divisor(BinaryOp op, const Tensor& b, ScalarType compute, const char* name) {
  if ((op != BinaryOp::Remainder && op != BinaryOp::Fmod) || isFloatingType(compute)) return;
  Tensor bz = empty_tensor(b.sizes(), kBool, b.device());
  backend_for(b).binary(BinaryOp::Eq, bz, cast(b, compute), ops::scalar_tensor(0, compute), 1);
  NABLA_CHECK(!bz.any().item<bool>(), name, ": ZeroDivisionError (integer remainder by zero)");
}

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
  // The kernel broadcasts (stride 0) by itself: no expand views needed.
  Tensor ac = cast(a, compute), bc = cast(b, compute);
  if (checked_numel(shape, name) > 0) check_integer_divisor(op, bc, compute, name);
  Tensor out = empty_tensor(shape, out_t, a.device());
  backend_for(a).binary(op, out, ac, bc, alpha);
  return out;
}

// `other_scalar` / `self_scalar`: which operand was a Scalar (for the node's name).
Tensor binary_recorded(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType common,
                       const Scalar& alpha, const char* name, bool other_scalar, bool self_scalar) {
  Tensor out = binary_tensors(op, a, b, common, alpha, name);
  ops::record_binary(op, a, b, alpha, out, other_scalar, self_scalar);
  return out;
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, const char* name,
                 const Scalar& alpha = 1) {
  ops::check_defined(a, name);
  ops::check_defined(b, name);
  ops::check_same_device(a, b, name);
  return binary_recorded(op, a, b, ops::result_type(a, b), alpha, name, false, false);
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Scalar& b, const char* name,
                 const Scalar& alpha = 1) {
  ops::check_defined(a, name);
  ScalarType common = ops::result_type(a, b);
  return binary_recorded(op, a, ops::scalar_tensor(b, common, a.device()), common, alpha, name,
                         true, false);
}

Tensor binary_op(BinaryOp op, const Scalar& a, const Tensor& b, const char* name) {
  ops::check_defined(b, name);
  ScalarType common = ops::result_type(b, a);
  return binary_recorded(op, ops::scalar_tensor(a, common, b.device()), b, common, 1, name, false,
                         true);
}

const Tensor& binary_op_(BinaryOp op, const Tensor& self, const Tensor& other, const char* name,
                         const Scalar& alpha = 1) {
  ops::check_defined(self, name);
  ops::check_defined(other, name);
  ops::check_same_device(self, other, name);
  ScalarType common = ops::result_type(self, other);
  auto [compute, out_t] = binary_dtypes(op, promoteTypes(common, self.scalar_type()), name);
  check_add_sub(op, self, other, compute, alpha, name);
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), name);
  ops::check_inplace(self, shape, out_t, name);
  if (autograd::any_requires_grad(self, other))
    return ops::assign_with_history(
        self, binary_recorded(op, self.clone(), other, common, alpha, name, false, false), name);
  Tensor o = cast(other, compute);
  // An operand that overlaps self with another layout must be read before writing.
  if (o.impl()->storage() == self.impl()->storage() &&
      !(o.sizes() == self.sizes() && o.strides() == self.strides() &&
        o.storage_offset() == self.storage_offset()))
    o = o.clone();
  if (self.numel() > 0) check_integer_divisor(op, o, compute, name);
  if (compute == self.scalar_type()) {
    backend_for(self).binary(op, self, self, o, alpha);
  } else {
    Tensor out = empty_tensor(shape, out_t, self.device());
    backend_for(self).binary(op, out, cast(self, compute), o, alpha);
    backend_for(self).copy(self, out);
  }
  ops::bump_version(self);
  return self;
}

const Tensor& binary_op_(BinaryOp op, const Tensor& self, const Scalar& other, const char* name,
                         const Scalar& alpha = 1) {
  ops::check_defined(self, name);
  ScalarType common = promoteTypes(ops::result_type(self, other), self.scalar_type());
  return binary_op_(op, self, ops::scalar_tensor(other, common, self.device()), name, alpha);
}

}  // namespace

#include "ops/unary_methods.inc"

Tensor ops::activation(const Tensor& x, UnaryOp op, UnaryParams p, const char* name) {
  ops::check_defined(x, name);
  NABLA_CHECK(x.is_floating_point(), name, ": not implemented for '", x.scalar_type(),
              "' (expected a floating point tensor)");
  return unary_impl(x, op, Kind::FloatingOnly, name, p);
}

// ---- Binary methods -------------------------------------------------------------------

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Add, *this, o, "add", alpha);
}
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Add, *this, o, "add", alpha);
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Sub, *this, o, "sub", alpha);
}
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Sub, *this, o, "sub", alpha);
}
Tensor Tensor::mul(const Tensor& o) const { return binary_op(BinaryOp::Mul, *this, o, "mul"); }
Tensor Tensor::mul(const Scalar& o) const { return binary_op(BinaryOp::Mul, *this, o, "mul"); }
Tensor Tensor::div(const Tensor& o) const { return binary_op(BinaryOp::Div, *this, o, "div"); }
Tensor Tensor::div(const Scalar& o) const { return binary_op(BinaryOp::Div, *this, o, "div"); }
Tensor Tensor::remainder(const Tensor& o) const {
  return binary_op(BinaryOp::Remainder, *this, o, "remainder");
}
Tensor Tensor::remainder(const Scalar& o) const {
  return binary_op(BinaryOp::Remainder, *this, o, "remainder");
}
Tensor Tensor::fmod(const Tensor& o) const { return binary_op(BinaryOp::Fmod, *this, o, "fmod"); }
Tensor Tensor::fmod(const Scalar& o) const { return binary_op(BinaryOp::Fmod, *this, o, "fmod"); }
Tensor Tensor::pow(const Tensor& e) const { return binary_op(BinaryOp::Pow, *this, e, "pow"); }
Tensor Tensor::atan2(const Tensor& o) const {
  return binary_op(BinaryOp::Atan2, *this, o, "atan2");
}
Tensor Tensor::maximum(const Tensor& o) const {
  return binary_op(BinaryOp::Maximum, *this, o, "maximum");
}
Tensor Tensor::minimum(const Tensor& o) const {
  return binary_op(BinaryOp::Minimum, *this, o, "minimum");
}

Tensor Tensor::pow(const Scalar& e) const {
  ops::check_defined(*this, "pow");
  ScalarType t = ops::result_type(*this, e);
  NABLA_CHECK(t != kBool, "pow: not supported for bool tensors");
  NABLA_CHECK(isFloatingType(t) || e.toLong() >= 0,
              "pow: integers to negative integer powers are not "
              "allowed (got exponent ",
              e.toLong(), ")");
  Tensor out = empty_tensor(sizes(), t, device());
  backend_for(*this).unary(UnaryOp::PowScalar, out, cast(*this, t), {e.toDouble(), 0});
  ops::record_unary(UnaryOp::PowScalar, {e.toDouble(), 0}, *this, out);
  return out;
}

const Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Add, *this, o, "add_", alpha);
}
const Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Add, *this, o, "add_", alpha);
}
const Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Sub, *this, o, "sub_", alpha);
}
const Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  return binary_op_(BinaryOp::Sub, *this, o, "sub_", alpha);
}
const Tensor& Tensor::mul_(const Tensor& o) const {
  return binary_op_(BinaryOp::Mul, *this, o, "mul_");
}
const Tensor& Tensor::mul_(const Scalar& o) const {
  return binary_op_(BinaryOp::Mul, *this, o, "mul_");
}
const Tensor& Tensor::div_(const Tensor& o) const {
  return binary_op_(BinaryOp::Div, *this, o, "div_");
}
const Tensor& Tensor::div_(const Scalar& o) const {
  return binary_op_(BinaryOp::Div, *this, o, "div_");
}
const Tensor& Tensor::pow_(const Tensor& e) const {
  return binary_op_(BinaryOp::Pow, *this, e, "pow_");
}
const Tensor& Tensor::pow_(const Scalar& e) const {
  // As the other in-place ops (unary_op_): with autograd, pow reads a clone (its node
  // saves the old value, which the write overwrites) and self takes over its history.
  const bool grad = autograd::any_requires_grad(*this);
  Tensor r = (grad ? clone() : *this).pow(e);
  ops::check_inplace(*this, r.sizes(), r.scalar_type(), "pow_");
  if (grad) return ops::assign_with_history(*this, r, "pow_");
  backend_for(*this).copy(*this, r);
  ops::bump_version(*this);
  return *this;
}

namespace {
void check_addc(const Tensor& self, const Tensor& t1, const Tensor& t2, bool is_div,
                const char* name) {
  for (const Tensor* t : {&self, &t1, &t2}) {
    NABLA_CHECK(t->scalar_type() != kBool, name, ": not supported for bool tensors");
    NABLA_CHECK(
        !is_div || t->is_floating_point(), name,
        ": integer division with addcdiv is no longer supported; use floating tensors (got ",
        t->scalar_type(), ")");
  }
}
void check_lerp(const Tensor& self, const Tensor& end, const char* name) {
  NABLA_CHECK(self.is_floating_point() && end.is_floating_point(), name,
              ": expected floating tensors, got ", self.scalar_type(), " and ", end.scalar_type());
}
}  // namespace

Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& v) const {
  check_addc(*this, t1, t2, false, "addcmul");
  return add(t1.mul(t2), v);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& v) const {
  check_addc(*this, t1, t2, true, "addcdiv");
  return add(t1.div(t2), v);
}
const Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& v) const {
  check_addc(*this, t1, t2, false, "addcmul_");
  return add_(t1.mul(t2), v);
}
const Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& v) const {
  check_addc(*this, t1, t2, true, "addcdiv_");
  return add_(t1.div(t2), v);
}
Tensor Tensor::lerp(const Tensor& end, const Scalar& w) const {
  check_lerp(*this, end, "lerp");
  return add(end.sub(*this), w);
}
const Tensor& Tensor::lerp_(const Tensor& end, const Scalar& w) const {
  check_lerp(*this, end, "lerp_");
  return add_(end.sub(*this), w);
}

// ---- Parameterized unary ops --------------------------------------------------------

Tensor Tensor::bitwise_not() const {
  NABLA_CHECK(!is_floating_point(),
              "bitwise_not: only integral and bool tensors are supported, got ", scalar_type());
  return unary_impl(*this, UnaryOp::BitwiseNot, Kind::Keep, "bitwise_not");
}

namespace {
UnaryParams clamp_params(const Tensor& self, const optional<Scalar>& lo, const optional<Scalar>& hi,
                         const char* name) {
  NABLA_CHECK(lo || hi, name, ": at least one of 'min' or 'max' must not be None");
  NABLA_CHECK(self.scalar_type() != kBool, name, ": not supported for bool tensors");
  double inf = std::numeric_limits<double>::infinity();
  return {lo ? lo->toDouble() : -inf, hi ? hi->toDouble() : inf};
}
ScalarType clamp_dtype(const Tensor& self, const optional<Scalar>& lo, const optional<Scalar>& hi) {
  ScalarType t = self.scalar_type();
  if (lo) t = promoteTypes(t, ops::result_type(self, *lo));
  if (hi) t = promoteTypes(t, ops::result_type(self, *hi));
  return t;
}
}  // namespace

Tensor Tensor::clamp(optional<Scalar> lo, optional<Scalar> hi) const {
  ops::check_defined(*this, "clamp");
  UnaryParams p = clamp_params(*this, lo, hi, "clamp");
  ScalarType t = clamp_dtype(*this, lo, hi);
  Tensor out = empty_tensor(sizes(), t, device());
  backend_for(*this).unary(UnaryOp::Clamp, out, cast(*this, t), p);
  ops::record_unary(UnaryOp::Clamp, p, *this, out);
  return out;
}
const Tensor& Tensor::clamp_(optional<Scalar> lo, optional<Scalar> hi) const {
  ops::check_defined(*this, "clamp_");
  ops::check_inplace(*this, sizes(), clamp_dtype(*this, lo, hi), "clamp_");
  return unary_op_(*this, UnaryOp::Clamp, Kind::KeepNoBool, "clamp_",
                   clamp_params(*this, lo, hi, "clamp_"));
}
Tensor Tensor::clamp(const optional<Tensor>& lo, const optional<Tensor>& hi) const {
  NABLA_CHECK((lo && lo->defined()) || (hi && hi->defined()),
              "clamp: at least one of 'min' or 'max' must not be None");
  Tensor r = *this;
  if (lo && lo->defined()) r = r.maximum(*lo);
  if (hi && hi->defined()) r = r.minimum(*hi);
  return r;
}
Tensor Tensor::clamp_min(const Scalar& lo) const { return clamp(lo, nullopt); }
Tensor Tensor::clamp_max(const Scalar& hi) const { return clamp(nullopt, hi); }
const Tensor& Tensor::clamp_min_(const Scalar& lo) const { return clamp_(lo, nullopt); }
const Tensor& Tensor::clamp_max_(const Scalar& hi) const { return clamp_(nullopt, hi); }

// ---- Comparisons and logic ----------------------------------------------------------

#define NABLA_DEFINE_COMPARE(name, OP)                                                            \
  Tensor Tensor::name(const Tensor& o) const { return binary_op(BinaryOp::OP, *this, o, #name); } \
  Tensor Tensor::name(const Scalar& o) const { return binary_op(BinaryOp::OP, *this, o, #name); }
NABLA_DEFINE_COMPARE(eq, Eq)
NABLA_DEFINE_COMPARE(ne, Ne)
NABLA_DEFINE_COMPARE(lt, Lt)
NABLA_DEFINE_COMPARE(le, Le)
NABLA_DEFINE_COMPARE(gt, Gt)
NABLA_DEFINE_COMPARE(ge, Ge)
#undef NABLA_DEFINE_COMPARE

Tensor Tensor::logical_and(const Tensor& o) const {
  return binary_op(BinaryOp::LogicalAnd, *this, o, "logical_and");
}
Tensor Tensor::logical_or(const Tensor& o) const {
  return binary_op(BinaryOp::LogicalOr, *this, o, "logical_or");
}
Tensor Tensor::logical_xor(const Tensor& o) const {
  return binary_op(BinaryOp::LogicalXor, *this, o, "logical_xor");
}
Tensor Tensor::bitwise_and(const Tensor& o) const {
  return binary_op(BinaryOp::BitwiseAnd, *this, o, "bitwise_and");
}
Tensor Tensor::bitwise_or(const Tensor& o) const {
  return binary_op(BinaryOp::BitwiseOr, *this, o, "bitwise_or");
}
Tensor Tensor::bitwise_xor(const Tensor& o) const {
  return binary_op(BinaryOp::BitwiseXor, *this, o, "bitwise_xor");
}
Tensor Tensor::isnan() const { return unary_impl(*this, UnaryOp::IsNan, Kind::BoolOut, "isnan"); }
Tensor Tensor::isinf() const { return unary_impl(*this, UnaryOp::IsInf, Kind::BoolOut, "isinf"); }
Tensor Tensor::isfinite() const {
  return unary_impl(*this, UnaryOp::IsFinite, Kind::BoolOut, "isfinite");
}

Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  ops::check_defined(condition, "where (condition)");
  ops::check_defined(other, "where (other)");
  NABLA_CHECK(condition.scalar_type() == kBool || condition.scalar_type() == kByte,
              "where: expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
  ops::check_same_device(*this, other, "where");
  ScalarType t = ops::result_type(*this, other);
  DimVector shape = broadcast_shapes(broadcast_shapes(condition.sizes(), sizes(), "where"),
                                     other.sizes(), "where");
  Tensor out = empty_tensor(shape, t, device());
  backend_for(*this).where(out, cast(condition, kBool), cast(*this, t), cast(other, t));
  ops::record_where(condition, *this, other, out);
  return out;
}

bool Tensor::equal(const Tensor& other) const {
  ops::check_defined(other, "equal");
  if (sizes() != other.sizes()) return false;
  return eq(other).all().item<bool>();
}

Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  NABLA_CHECK(scalar_type() == other.scalar_type(),
              "isclose: expected both tensors to have the same dtype, but got ", scalar_type(),
              " and ", other.scalar_type());
  NABLA_CHECK(rtol >= 0 && atol >= 0,
              "isclose: rtol and atol must be non-negative, got rtol=", rtol, ", atol=", atol);
  Tensor a = to(kDouble), b = other.to(kDouble);
  Tensor diff = a.sub(b);
  Tensor close =
      a.eq(b).logical_or(diff.isfinite().logical_and(diff.abs().le(b.abs().mul(rtol).add(atol))));
  if (equal_nan) close = close.logical_or(a.isnan().logical_and(b.isnan()));
  return close;
}

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return isclose(other, rtol, atol, equal_nan).all().item<bool>();
}

// ---- Operators --------------------------------------------------------------------

Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator!(const Tensor& a) { return a.logical_not(); }
Tensor operator~(const Tensor& a) { return a.bitwise_not(); }

#define NABLA_DEFINE_OPERATOR(sym, OP, name)              \
  Tensor operator sym(const Tensor& a, const Tensor& b) { \
    return binary_op(BinaryOp::OP, a, b, name);           \
  }                                                       \
  Tensor operator sym(const Tensor& a, const Scalar& b) { \
    return binary_op(BinaryOp::OP, a, b, name);           \
  }                                                       \
  Tensor operator sym(const Scalar& a, const Tensor& b) { \
    return binary_op(BinaryOp::OP, a, b, name);           \
  }
NABLA_DEFINE_OPERATOR(+, Add, "add")
NABLA_DEFINE_OPERATOR(-, Sub, "sub")
NABLA_DEFINE_OPERATOR(*, Mul, "mul")
NABLA_DEFINE_OPERATOR(/, Div, "div")
NABLA_DEFINE_OPERATOR(%, Remainder, "remainder")
NABLA_DEFINE_OPERATOR(==, Eq, "eq")
NABLA_DEFINE_OPERATOR(!=, Ne, "ne")
NABLA_DEFINE_OPERATOR(<, Lt, "lt")
NABLA_DEFINE_OPERATOR(<=, Le, "le")
NABLA_DEFINE_OPERATOR(>, Gt, "gt")
NABLA_DEFINE_OPERATOR(>=, Ge, "ge")
NABLA_DEFINE_OPERATOR(&, BitwiseAnd, "bitwise_and")
NABLA_DEFINE_OPERATOR(|, BitwiseOr, "bitwise_or")
NABLA_DEFINE_OPERATOR(^, BitwiseXor, "bitwise_xor")
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
