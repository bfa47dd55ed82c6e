// Elementwise ops of LibTorch composed from nabla's kernels: in-place forms, hypot,
// logaddexp, xlogy, copysign, sinc, logit, float_power, floor_divide, fmod, fmax/fmin,
// heaviside, nan_to_num and the predicates. Values and gradients as LibTorch 1.13
// (checked in tests/conformance/table_composites.cpp).
#include <cmath>
#include <limits>
#include <string>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/composite.h"

namespace nabla {

using autograd::FormulaNode;
using autograd::variable_list;
using ops::inplace_from;
using ops::to_input;
using ops::with_formula;

namespace {

constexpr double kPi = 3.14159265358979323846;

void check_float(const Tensor& x, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.is_floating_point(), op, ": expected a floating point tensor, got ",
              x.scalar_type());
}

// A floating copy of an integer or bool tensor (ops of float results: deg2rad, sinc...).
Tensor as_floating(const Tensor& x) {
  return x.is_floating_point() ? x : x.to(get_default_dtype());
}

// logaddexp(a, b) = log(e^a + e^b); d/da = 1 / (1 + e^(b - a)).
variable_list logaddexp_bw(FormulaNode& n, const variable_list& g) {
  Tensor a = n.saved(0), b = n.saved(1);
  const double base = n.a;  // e or 2
  auto term = [&](const Tensor& x, const Tensor& y) {
    Tensor d = y - x;
    return g[0] / (base == 2 ? (d * std::log(2.0)).exp() + 1 : d.exp() + 1);
  };
  return {n.needs_input_grad(0) ? to_input(n, 0, term(a, b)) : Tensor(),
          n.needs_input_grad(1) ? to_input(n, 1, term(b, a)) : Tensor()};
}
const autograd::Formula kLogAddExp{"LogaddexpBackward0", logaddexp_bw};
const autograd::Formula kLogAddExp2{"Logaddexp2Backward0", logaddexp_bw};

Tensor logaddexp_impl(const Tensor& a, const Tensor& b, double base, const autograd::Formula& f,
                      const char* op) {
  check_float(a, op);
  return with_formula(
      f, {&a, &b},
      [&] {
        Tensor m = maximum(a, b);
        Tensor d = (a - b).abs().neg();
        Tensor r =
            m + (base == 2 ? (d * std::log(2.0)).exp().log1p() / std::log(2.0) : d.exp().log1p());
        // Two equal infinities: the sum is that infinity (the difference is NaN).
        return nabla::where(a.isinf() & (a == b), a, r);
      },
      base);
}

// xlogy(x, y) = x log(y), 0 where x == 0 (unless y is NaN).
variable_list xlogy_bw(FormulaNode& n, const variable_list& g) {
  Tensor x = n.saved(0), y = n.saved(1);
  Tensor gx, gy;
  if (n.needs_input_grad(0)) gx = to_input(n, 0, g[0] * x.ne(0).to(g[0].scalar_type()).xlogy(y));
  if (n.needs_input_grad(1)) gy = to_input(n, 1, g[0] * x / y);
  return {gx, gy};
}
const autograd::Formula kXlogy{"XlogyBackward0", xlogy_bw};

// sinc'(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0.
variable_list sinc_bw(FormulaNode& n, const variable_list& g) {
  Tensor x = n.saved(0);
  Tensor px = x * kPi;
  Tensor d = (px * px.cos() - px.sin()) / (px * x);
  return {g[0] * nabla::where(x == 0, zeros_like(d), d)};
}
const autograd::Formula kSinc{"SincBackward0", sinc_bw};

// logit'(p) = 1 / (p (1 - p)); with eps, 0 outside [eps, 1 - eps].
variable_list logit_bw(FormulaNode& n, const variable_list& g) {
  Tensor p = n.saved(0);
  Tensor d = g[0] / (p * (1 - p));
  if (n.a < 0) return {d};  // no eps
  return {nabla::where((p < n.a) | (p > 1 - n.a), zeros_like(d), d)};
}
const autograd::Formula kLogit{"LogitBackward0", logit_bw};

// The in-place form of a comparison: its 0/1 result in self's dtype.
template <class Op>
const Tensor& compare_(const Tensor& self, const char* name, Op op) {
  return inplace_from(self, name, [&](const Tensor& x) { return op(x).to(self.scalar_type()); });
}

}  // namespace

// ---- In-place forms of existing ops ------------------------------------------------------
const Tensor& Tensor::atan2_(const Tensor& o) const {
  return inplace_from(*this, "atan2_", [&](const Tensor& x) { return x.atan2(o); });
}
const Tensor& Tensor::remainder_(const Tensor& o) const {
  return inplace_from(*this, "remainder_", [&](const Tensor& x) { return x.remainder(o); });
}
const Tensor& Tensor::remainder_(const Scalar& o) const {
  return inplace_from(*this, "remainder_", [&](const Tensor& x) { return x.remainder(o); });
}
const Tensor& Tensor::eq_(const Tensor& o) const {
  return compare_(*this, "eq_", [&](const Tensor& x) { return x.eq(o); });
}
const Tensor& Tensor::eq_(const Scalar& o) const {
  return compare_(*this, "eq_", [&](const Tensor& x) { return x.eq(o); });
}
const Tensor& Tensor::ne_(const Tensor& o) const {
  return compare_(*this, "ne_", [&](const Tensor& x) { return x.ne(o); });
}
const Tensor& Tensor::ne_(const Scalar& o) const {
  return compare_(*this, "ne_", [&](const Tensor& x) { return x.ne(o); });
}
const Tensor& Tensor::lt_(const Tensor& o) const {
  return compare_(*this, "lt_", [&](const Tensor& x) { return x.lt(o); });
}
const Tensor& Tensor::lt_(const Scalar& o) const {
  return compare_(*this, "lt_", [&](const Tensor& x) { return x.lt(o); });
}
const Tensor& Tensor::le_(const Tensor& o) const {
  return compare_(*this, "le_", [&](const Tensor& x) { return x.le(o); });
}
const Tensor& Tensor::le_(const Scalar& o) const {
  return compare_(*this, "le_", [&](const Tensor& x) { return x.le(o); });
}
const Tensor& Tensor::gt_(const Tensor& o) const {
  return compare_(*this, "gt_", [&](const Tensor& x) { return x.gt(o); });
}
const Tensor& Tensor::gt_(const Scalar& o) const {
  return compare_(*this, "gt_", [&](const Tensor& x) { return x.gt(o); });
}
const Tensor& Tensor::ge_(const Tensor& o) const {
  return compare_(*this, "ge_", [&](const Tensor& x) { return x.ge(o); });
}
const Tensor& Tensor::ge_(const Scalar& o) const {
  return compare_(*this, "ge_", [&](const Tensor& x) { return x.ge(o); });
}
const Tensor& Tensor::logical_and_(const Tensor& o) const {
  return compare_(*this, "logical_and_", [&](const Tensor& x) { return x.logical_and(o); });
}
const Tensor& Tensor::logical_or_(const Tensor& o) const {
  return compare_(*this, "logical_or_", [&](const Tensor& x) { return x.logical_or(o); });
}
const Tensor& Tensor::logical_xor_(const Tensor& o) const {
  return compare_(*this, "logical_xor_", [&](const Tensor& x) { return x.logical_xor(o); });
}
const Tensor& Tensor::bitwise_and_(const Tensor& o) const {
  return inplace_from(*this, "bitwise_and_", [&](const Tensor& x) { return x.bitwise_and(o); });
}
const Tensor& Tensor::bitwise_or_(const Tensor& o) const {
  return inplace_from(*this, "bitwise_or_", [&](const Tensor& x) { return x.bitwise_or(o); });
}
const Tensor& Tensor::bitwise_xor_(const Tensor& o) const {
  return inplace_from(*this, "bitwise_xor_", [&](const Tensor& x) { return x.bitwise_xor(o); });
}
const Tensor& Tensor::cumsum_(int64_t dim, optional<ScalarType> dtype) const {
  return inplace_from(*this, "cumsum_", [&](const Tensor& x) { return x.cumsum(dim, dtype); });
}
const Tensor& Tensor::tril_(int64_t k) const {
  return inplace_from(*this, "tril_", [&](const Tensor& x) { return nabla::tril(x, k); });
}
const Tensor& Tensor::triu_(int64_t k) const {
  return inplace_from(*this, "triu_", [&](const Tensor& x) { return nabla::triu(x, k); });
}
Tensor Tensor::tril(int64_t k) const { return nabla::tril(*this, k); }
Tensor Tensor::triu(int64_t k) const { return nabla::triu(*this, k); }

Tensor Tensor::positive() const {
  ops::check_defined(*this, "positive");
  NABLA_CHECK(scalar_type() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return *this;
}

// ---- Binary math ---------------------------------------------------------------------------
Tensor Tensor::hypot(const Tensor& o) const {
  check_float(*this, "hypot");
  return (square() + o.square()).sqrt();
}
const Tensor& Tensor::hypot_(const Tensor& o) const {
  return inplace_from(*this, "hypot_", [&](const Tensor& x) { return x.hypot(o); });
}
Tensor Tensor::logaddexp(const Tensor& o) const {
  return logaddexp_impl(*this, o, std::exp(1.0), kLogAddExp, "logaddexp");
}
Tensor Tensor::logaddexp2(const Tensor& o) const {
  return logaddexp_impl(*this, o, 2, kLogAddExp2, "logaddexp2");
}

Tensor Tensor::xlogy(const Tensor& y) const {
  ops::check_defined(*this, "xlogy");
  ops::check_defined(y, "xlogy (other)");
  const Tensor x = as_floating(*this);
  return with_formula(kXlogy, {&x, &y}, [&] {
    Tensor r = x * y.log();
    return nabla::where((x == 0) & y.isnan().logical_not(), zeros_like(r), r);
  });
}
Tensor Tensor::xlogy(const Scalar& y) const {
  return xlogy(
      scalar_tensor(y, TensorOptions(is_floating_point() ? scalar_type() : get_default_dtype())));
}
const Tensor& Tensor::xlogy_(const Tensor& o) const {
  return inplace_from(*this, "xlogy_", [&](const Tensor& x) { return x.xlogy(o); });
}

Tensor Tensor::copysign(const Tensor& o) const {
  ops::check_defined(*this, "copysign");
  const Tensor x = as_floating(*this);
  // -0.0 in `o` counts as negative (its sign bit), as std::copysign.
  return x.abs() * nabla::where(o.signbit(), -ones_like(x), ones_like(x));
}
Tensor Tensor::copysign(const Scalar& o) const {
  return copysign(
      scalar_tensor(o, TensorOptions(is_floating_point() ? scalar_type() : get_default_dtype())));
}

Tensor Tensor::deg2rad() const { return as_floating(*this) * (kPi / 180); }
Tensor Tensor::rad2deg() const { return as_floating(*this) * (180 / kPi); }

Tensor Tensor::sinc() const {
  ops::check_defined(*this, "sinc");
  const Tensor x = as_floating(*this);
  return with_formula(kSinc, {&x}, [&] {
    Tensor px = x * kPi;
    return nabla::where(x == 0, ones_like(x), px.sin() / px);
  });
}

Tensor Tensor::logit(optional<double> eps) const {
  ops::check_defined(*this, "logit");
  const Tensor p = as_floating(*this);
  return with_formula(
      kLogit, {&p},
      [&] {
        Tensor q = eps ? p.clamp(*eps, 1 - *eps) : p;
        return (q / (1 - q)).log();
      },
      eps ? *eps : -1);
}

Tensor Tensor::float_power(const Tensor& e) const { return to(kDouble).pow(e.to(kDouble)); }
Tensor Tensor::float_power(const Scalar& e) const { return to(kDouble).pow(e.toDouble()); }

// Floor division, as LibTorch 1.13 (rounding toward -inf; the quotient is formed from
// fmod so that it is exact where a / b is not representable). Not differentiable.
Tensor Tensor::floor_divide(const Tensor& o) const {
  ops::check_defined(*this, "floor_divide");
  ops::check_defined(o, "floor_divide (other)");
  const ScalarType t = ops::result_type(*this, o);
  return no_grad([&] {
    if (!isFloatingType(t)) {
      Tensor a = to(kDouble), b = o.to(kDouble);
      NABLA_CHECK(!b.eq(0).any().item<bool>(),
                  "floor_divide: ZeroDivisionError (integer division by zero)");
      return (a - a.remainder(b)).div(b).round().to(t);
    }
    Tensor a = to(t), b = o.to(t);
    Tensor mod = a.fmod(b);
    Tensor div = (a - mod) / b;
    div = nabla::where(mod.ne(0) & (b.lt(0) != mod.lt(0)), div - 1, div);
    Tensor fl = div.floor();
    fl = nabla::where(div - fl > 0.5, fl + 1, fl);
    // b == 0: a / b (inf or NaN), as LibTorch.
    return nabla::where(b.eq(0), a / b, fl);
  });
}
Tensor Tensor::floor_divide(const Scalar& o) const {
  return floor_divide(scalar_tensor(o, TensorOptions(ops::result_type(*this, o))));
}
const Tensor& Tensor::floor_divide_(const Tensor& o) const {
  return inplace_from(*this, "floor_divide_", [&](const Tensor& x) { return x.floor_divide(o); });
}
const Tensor& Tensor::floor_divide_(const Scalar& o) const {
  return inplace_from(*this, "floor_divide_", [&](const Tensor& x) { return x.floor_divide(o); });
}

const Tensor& Tensor::fmod_(const Tensor& o) const {
  return inplace_from(*this, "fmod_", [&](const Tensor& x) { return x.fmod(o); });
}
const Tensor& Tensor::fmod_(const Scalar& o) const {
  return inplace_from(*this, "fmod_", [&](const Tensor& x) { return x.fmod(o); });
}

// NaN loses to a number; on ties self wins (and gets the whole gradient, as LibTorch).
Tensor Tensor::fmax(const Tensor& o) const {
  return nabla::where((*this >= o) | o.isnan(), *this, o);
}
Tensor Tensor::fmin(const Tensor& o) const {
  return nabla::where((*this <= o) | o.isnan(), *this, o);
}

Tensor Tensor::heaviside(const Tensor& values) const {
  ops::check_defined(*this, "heaviside");
  NABLA_CHECK(scalar_type() == values.scalar_type(),
              "heaviside is not yet implemented for tensors with different "
              "dtypes (got ",
              scalar_type(), " and ", values.scalar_type(), ")");
  return nabla::where(*this == 0, values, (*this > 0).to(scalar_type()));
}

// ---- Predicates and cleanup -----------------------------------------------------------------
Tensor Tensor::isneginf() const {
  ops::check_defined(*this, "isneginf");
  if (!is_floating_point()) return zeros(sizes(), TensorOptions(kBool));
  return *this == -std::numeric_limits<double>::infinity();
}
Tensor Tensor::isposinf() const {
  ops::check_defined(*this, "isposinf");
  if (!is_floating_point()) return zeros(sizes(), TensorOptions(kBool));
  return *this == std::numeric_limits<double>::infinity();
}
Tensor Tensor::isreal() const {
  ops::check_defined(*this, "isreal");
  return ones(sizes(), TensorOptions(kBool));
}

Tensor Tensor::nan_to_num(optional<double> nan, optional<double> posinf,
                          optional<double> neginf) const {
  ops::check_defined(*this, "nan_to_num");
  if (!is_floating_point()) return clone();
  const bool is_float = scalar_type() == kFloat;
  const double big =
      is_float ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  Tensor r = nabla::where(isnan(), full_like(*this, nan.value_or(0.0)), *this);
  r = nabla::where(isposinf(), full_like(*this, posinf.value_or(big)), r);
  return nabla::where(isneginf(), full_like(*this, neginf.value_or(-big)), r);
}
const Tensor& Tensor::nan_to_num_(optional<double> nan, optional<double> posinf,
                                  optional<double> neginf) const {
  return inplace_from(*this, "nan_to_num_",
                      [&](const Tensor& x) { return x.nan_to_num(nan, posinf, neginf); });
}

Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  ops::check_defined(*this, "lerp");
  return *this + weight * (end - *this);
}

bool Tensor::is_nonzero() const {
  NABLA_CHECK(numel() == 1, "Boolean value of Tensor with ",
              numel() == 0 ? "no values" : "more than one value", " is ambiguous");
  return item().toDouble() != 0;
}

const std::string& Tensor::name() const {
  static const std::string empty;
  ops::check_defined(*this, "name");
  return empty;
}

Tensor Tensor::toBackend(Backend backend) const {
  NABLA_CHECK(backend == Backend::CPU,
              "toBackend: only Backend::CPU exists in this build (cuda::is_available() "
              "is false)");
  return *this;
}

}  // namespace nabla
