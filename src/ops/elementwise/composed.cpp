// Elementwise ops of LibTorch composed from nabla's kernels: hypot, logaddexp(2), xlogy,
// copysign, deg2rad/rad2deg, sinc, logit, float_power, floor_divide, fmax/fmin, heaviside,
// nan_to_num, addcmul, addcdiv, lerp, clamp with tensor bounds, the predicates (schema
// rows: core/op_list/math.def; clamp's registry entry is in unary.cpp). Ops that
// LibTorch records as one node compute their value without history and record that node
// (ops::with_node). Values and gradients as LibTorch 1.13 (checked in
// tests/conformance/table_composite.cpp and table_elementwise.cpp).
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/composite.h"

namespace nabla {

namespace {

using autograd::save;
using ops::grad_to;
using ops::scaled;
using ops::SelfOtherState;
using ops::SelfState;
using ops::sizes_of;
using ops::with_node;

void check_float(const Tensor& x, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.is_floating_point(), op, ": expected a floating point tensor, got ",
              x.scalar_type());
}

// A floating copy of an integer or bool tensor (ops of float results: deg2rad, sinc...).
Tensor as_floating(const Tensor& x) {
  return x.is_floating_point() ? x : x.to(get_default_dtype());
}

using ops::zero_like_scalar;

// Saves both inputs of a binary composite.
auto save_self_other(const Tensor& a, const Tensor& b) {
  return [&](SelfOtherState& s, const Tensor&) {
    s.self = save(a);
    s.other = save(b);
  };
}
auto save_self(const Tensor& x) {
  return [&](SelfState& s, const Tensor&) { s.self = save(x); };
}

// ---- hypot ----------------------------------------------------------------------------------

struct HypotState {
  SavedVariable self, other, result;
  auto saved() { return std::tie(self, other, result); }
};
// grad_self = grad * self / result, grad_other = grad * other / result (summed to shape).
variable_list hypot_backward(OpNode<HypotState>& n, const variable_list& grads) {
  Tensor result = n.get(n.state.result);
  Tensor gx, gy;
  if (n.needs_input_grad(0)) {
    Tensor x = n.get(n.state.self);
    gx = grad_to(grads[0] * x / result, x.sizes());
  }
  if (n.needs_input_grad(1)) {
    Tensor y = n.get(n.state.other);
    gy = grad_to(grads[0] * y / result, y.sizes());
  }
  return {gx, gy};
}
constexpr NodeType<HypotState> kHypotBackward0{"HypotBackward0", hypot_backward};

// ---- logaddexp, logaddexp2 ------------------------------------------------------------------

// d/da log_base(base^a + base^b) = 1 / (1 + base^(b - a)); base 2 for logaddexp2.
template <bool base2>
variable_list logaddexp_backward(OpNode<SelfOtherState>& n, const variable_list& grads) {
  Tensor a = n.get(n.state.self), b = n.get(n.state.other);
  auto term = [&](const Tensor& x, const Tensor& y) {
    Tensor d = y - x;
    return grads[0] / ((base2 ? d * std::log(2.0) : d).exp() + 1);
  };
  return {n.needs_input_grad(0) ? grad_to(term(a, b), a.sizes()) : Tensor(),
          n.needs_input_grad(1) ? grad_to(term(b, a), b.sizes()) : Tensor()};
}
constexpr NodeType<SelfOtherState> kLogaddexpBackward0{"LogaddexpBackward0",
                                                       logaddexp_backward<false>};
constexpr NodeType<SelfOtherState> kLogaddexp2Backward0{"Logaddexp2Backward0",
                                                        logaddexp_backward<true>};

Tensor logaddexp_of(const Tensor& a, const Tensor& b, bool base2, const char* op) {
  check_float(a, op);
  return with_node(
      base2 ? kLogaddexp2Backward0 : kLogaddexpBackward0, {&a, &b},
      [&] {
        Tensor m = maximum(a, b);
        Tensor d = (a - b).abs().neg();
        Tensor r =
            m + (base2 ? (d * std::log(2.0)).exp().log1p() / std::log(2.0) : d.exp().log1p());
        // Two equal infinities: the sum is that infinity (the difference is NaN).
        return nabla::where(a.isinf() & (a == b), a, r);
      },
      save_self_other(a, b));
}

// ---- xlogy ----------------------------------------------------------------------------------

// xlogy(x, y) = x log(y), 0 where x == 0 (unless y is NaN).
Tensor xlogy_value(const Tensor& x, const Tensor& y) {
  Tensor r = x * y.log();
  return nabla::where((x == 0) & y.isnan().logical_not(), zeros_like(r), r);
}
// grad_self = grad * xlogy(self != 0, other), grad_other = grad * self / other.
variable_list xlogy_backward(OpNode<SelfOtherState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self), y = n.get(n.state.other);
  Tensor gx, gy;
  if (n.needs_input_grad(0))
    gx = grad_to(grads[0] * x.ne(0).to(grads[0].scalar_type()).xlogy(y), x.sizes());
  if (n.needs_input_grad(1)) gy = grad_to(grads[0] * x / y, y.sizes());
  return {gx, gy};
}
constexpr NodeType<SelfOtherState> kXlogyBackward0{"XlogyBackward0", xlogy_backward};

struct XlogyScalarState {
  SavedVariable self;
  Scalar other;
  auto saved() { return std::tie(self); }
};
variable_list xlogy_scalar_backward(OpNode<XlogyScalarState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self);
  return {grads[0] * x.ne(0).to(grads[0].scalar_type()).xlogy(n.state.other)};
}
// LibTorch's xlogy(Tensor, Scalar) node.
constexpr NodeType<XlogyScalarState> kXlogyBackward2{"XlogyBackward2", xlogy_scalar_backward};

// ---- copysign -------------------------------------------------------------------------------

struct CopysignState {
  SavedVariable self, result;
  DimVector other_sizes;  // tensor overload only: its gradient is zeros of this shape
  auto saved() { return std::tie(self, result); }
};
// grad_self = grad * result / self (0 where self == 0); other gets zeros (LibTorch).
Tensor copysign_self_grad(OpNode<CopysignState>& n, const Tensor& grad) {
  Tensor x = n.get(n.state.self), result = n.get(n.state.result);
  Tensor ratio = (result / x).where(x != 0, zero_like_scalar(x));
  return grad_to(grad * ratio, x.sizes());
}
variable_list copysign_backward(OpNode<CopysignState>& n, const variable_list& grads) {
  Tensor g = grads[0];
  return {n.needs_input_grad(0) ? copysign_self_grad(n, g) : Tensor(),
          n.needs_input_grad(1)
              ? zeros(n.state.other_sizes, TensorOptions(g.scalar_type()).device(g.device()))
              : Tensor()};
}
variable_list copysign_scalar_backward(OpNode<CopysignState>& n, const variable_list& grads) {
  return {copysign_self_grad(n, grads[0])};
}
constexpr NodeType<CopysignState> kCopysignBackward0{"CopysignBackward0", copysign_backward};
constexpr NodeType<CopysignState> kCopysignBackward1{"CopysignBackward1", copysign_scalar_backward};

// -0.0 in `o` counts as negative (its sign bit), as std::copysign. `o` is an input of the
// node only for the tensor overload (CopysignBackward0).
Tensor copysign_of(const Tensor& self, const Tensor& o, bool tensor_other) {
  ops::check_defined(self, "copysign");
  ops::check_defined(o, "copysign (other)");
  const Tensor x = as_floating(self);
  auto value = [&] { return x.abs() * nabla::where(o.signbit(), -ones_like(x), ones_like(x)); };
  auto fill = [&](CopysignState& s, const Tensor& out) {
    s.self = save(x);
    s.result = autograd::save_output(out);
    if (tensor_other) s.other_sizes.assign(o.sizes().begin(), o.sizes().end());
  };
  if (tensor_other) return with_node(kCopysignBackward0, {&x, &o}, value, fill);
  return with_node(kCopysignBackward1, {&x}, value, fill);
}

// ---- deg2rad, rad2deg, sinc, logit, nan_to_num ----------------------------------------------

struct NoState {};
variable_list deg2rad_backward(OpNode<NoState>&, const variable_list& grads) {
  return {grads[0] * (std::numbers::pi / 180)};
}
variable_list rad2deg_backward(OpNode<NoState>&, const variable_list& grads) {
  return {grads[0] * (180 / std::numbers::pi)};
}
constexpr NodeType<NoState> kDeg2RadBackward0{"Deg2RadBackward0", deg2rad_backward};
constexpr NodeType<NoState> kRad2DegBackward0{"Rad2DegBackward0", rad2deg_backward};

// sinc'(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0.
variable_list sinc_backward(OpNode<SelfState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self);
  Tensor px = x * std::numbers::pi;
  Tensor d = (px * px.cos() - px.sin()) / (px * x);
  return {grads[0] * nabla::where(x == 0, zeros_like(d), d)};
}
constexpr NodeType<SelfState> kSincBackward0{"SincBackward0", sinc_backward};

struct LogitState {
  SavedVariable self;
  double eps = -1;  // < 0: none
  auto saved() { return std::tie(self); }
};
// logit'(p) = 1 / (p (1 - p)); with eps, 0 outside [eps, 1 - eps].
variable_list logit_backward(OpNode<LogitState>& n, const variable_list& grads) {
  Tensor p = n.get(n.state.self);
  const double eps = n.state.eps;
  Tensor d = grads[0] / (p * (1 - p));
  if (eps < 0) return {d};
  return {nabla::where((p < eps) | (p > 1 - eps), zeros_like(d), d)};
}
constexpr NodeType<LogitState> kLogitBackward0{"LogitBackward0", logit_backward};

// The gradient passes where self is finite (replaced values are constants).
variable_list nan_to_num_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0].where(n.get(n.state.self).isfinite(), zero_like_scalar(grads[0]))};
}
constexpr NodeType<SelfState> kNanToNumBackward0{"NanToNumBackward0", nan_to_num_backward};

// ---- fmax, fmin -----------------------------------------------------------------------------

// The gradient goes to the operand chosen: self where it is not less (fmax) and other
// is not NaN, else other; ties go to self (LibTorch).
template <bool is_max>
variable_list fmax_fmin_backward(OpNode<SelfOtherState>& n, const variable_list& grads) {
  Tensor a = n.get(n.state.self), b = n.get(n.state.other), g = grads[0];
  Tensor take_self = (is_max ? a >= b : a <= b) | b.isnan();
  Tensor zero = zero_like_scalar(g);
  return {n.needs_input_grad(0) ? grad_to(g.where(take_self, zero), a.sizes()) : Tensor(),
          n.needs_input_grad(1) ? grad_to(zero.where(take_self, g), b.sizes()) : Tensor()};
}
constexpr NodeType<SelfOtherState> kFmaxBackward0{"FmaxBackward0", fmax_fmin_backward<true>};
constexpr NodeType<SelfOtherState> kFminBackward0{"FminBackward0", fmax_fmin_backward<false>};

// ---- addcmul, addcdiv, lerp, clamp with tensor bounds ---------------------------------------

void check_addc(const Tensor& self, const Tensor& t1, const Tensor& t2, bool is_div,
                const char* name) {
  for (const Tensor* t : {&self, &t1, &t2}) {
    ops::check_defined(*t, name);
    NABLA_CHECK(t->scalar_type() != kBool, name, ": not supported for bool tensors");
    NABLA_CHECK(
        !is_div || t->is_floating_point(), name,
        ": integer division with addcdiv is no longer supported; use floating tensors (got ",
        t->scalar_type(), ")");
  }
}
void check_lerp(const Tensor& self, const Tensor& end, const char* name) {
  ops::check_defined(self, name);
  ops::check_defined(end, name);
  NABLA_CHECK(self.is_floating_point() && end.is_floating_point(), name,
              ": expected floating tensors, got ", self.scalar_type(), " and ", end.scalar_type());
}

struct AddcState {
  SavedVariable tensor1, tensor2;  // only those the formula reads
  Scalar value;
  DimVector self_sizes, tensor1_sizes, tensor2_sizes;  // summed back to after broadcasting
  auto saved() { return std::tie(tensor1, tensor2); }
};
// out = self + value * tensor1 * tensor2: grad_self = grad, grad_tensor1 = grad * value *
// tensor2, grad_tensor2 = grad * value * tensor1 (grad * value formed once).
variable_list addcmul_backward(OpNode<AddcState>& n, const variable_list& grads) {
  const AddcState& s = n.state;
  const Tensor gv = scaled(grads[0], s.value);
  return {n.needs_input_grad(0) ? grad_to(grads[0], s.self_sizes) : Tensor(),
          n.needs_input_grad(1) ? grad_to(gv * n.get(s.tensor2), s.tensor1_sizes) : Tensor(),
          n.needs_input_grad(2) ? grad_to(gv * n.get(s.tensor1), s.tensor2_sizes) : Tensor()};
}
// out = self + value * tensor1 / tensor2: grad_tensor1 = grad * value / tensor2,
// grad_tensor2 = -grad_tensor1 * tensor1 / tensor2 (before summing to the shapes).
variable_list addcdiv_backward(OpNode<AddcState>& n, const variable_list& grads) {
  const AddcState& s = n.state;
  Tensor t2 = n.get(s.tensor2), g1, g2;
  if (n.needs_input_grad(1) || n.needs_input_grad(2)) g1 = scaled(grads[0], s.value) / t2;
  if (n.needs_input_grad(2)) g2 = grad_to((g1 * n.get(s.tensor1) / t2).neg(), s.tensor2_sizes);
  return {n.needs_input_grad(0) ? grad_to(grads[0], s.self_sizes) : Tensor(),
          n.needs_input_grad(1) ? grad_to(g1, s.tensor1_sizes) : Tensor(), g2};
}
constexpr NodeType<AddcState> kAddcmulBackward0{"AddcmulBackward0", addcmul_backward};
constexpr NodeType<AddcState> kAddcdivBackward0{"AddcdivBackward0", addcdiv_backward};

// The multiplier of addcmul/addcdiv's product: an integral result takes value cast to an
// integer, as LibTorch (addcmul of int64 tensors with value 0.5 adds nothing), where add
// would reject a fractional alpha.
Scalar addc_value(const Tensor& self, const Tensor& product, const Scalar& value) {
  const bool integral = !isFloatingType(promoteTypes(self.scalar_type(), product.scalar_type()));
  return integral && value.isFloatingPoint() ? Scalar(static_cast<int64_t>(value.toDouble()))
                                             : value;
}

// addcmul and addcdiv: the value of the composite, one node. A factor is saved when the
// other factor's gradient reads it (addcdiv's tensor2 gradient reads both).
Tensor addc(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value,
            bool is_div) {
  check_addc(self, t1, t2, is_div, is_div ? "addcdiv" : "addcmul");
  return with_node(
      is_div ? kAddcdivBackward0 : kAddcmulBackward0, {&self, &t1, &t2},
      [&] {
        Tensor p = is_div ? t1.div(t2) : t1.mul(t2);
        return self.add(p, addc_value(self, p, value));
      },
      [&](AddcState& s, const Tensor&) {
        const bool g1 = autograd::requires_grad(t1), g2 = autograd::requires_grad(t2);
        if (g1 || (is_div && g2)) s.tensor2 = save(t2);
        if (g2) s.tensor1 = save(t1);
        s.value = value;
        s.self_sizes = sizes_of(self);
        s.tensor1_sizes = sizes_of(t1);
        s.tensor2_sizes = sizes_of(t2);
      });
}
// addcmul_ and addcdiv_: without autograd (the optimizers' path) self is written in place.
const Tensor& addc_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value,
                    bool is_div) {
  const char* name = is_div ? "addcdiv_" : "addcmul_";
  check_addc(self, t1, t2, is_div, name);
  if (autograd::any_requires_grad(self, t1, t2))
    return ops::inplace_from(self, name,
                             [&](const Tensor& x) { return addc(x, t1, t2, value, is_div); });
  Tensor p = is_div ? t1.div(t2) : t1.mul(t2);
  return self.add_(p, addc_value(self, p, value));
}

struct LerpScalarState {
  Scalar weight;
  DimVector self_sizes, end_sizes;
};
// out = self + weight (end - self): grad_end = grad weight, grad_self = grad (1 - weight),
// formed as grad - grad_end (one product with the weight: the incoming grad is often a
// broadcast, whose reads cost more).
variable_list lerp_scalar_backward(OpNode<LerpScalarState>& n, const variable_list& grads) {
  const LerpScalarState& s = n.state;
  const Tensor& g = grads[0];
  const Tensor g_end = g * s.weight;
  return {n.needs_input_grad(0) ? grad_to(g - g_end, s.self_sizes) : Tensor(),
          n.needs_input_grad(1) ? grad_to(g_end, s.end_sizes) : Tensor()};
}
constexpr NodeType<LerpScalarState> kLerpBackward0{"LerpBackward0", lerp_scalar_backward};

struct LerpState {
  SavedVariable self, end, weight;
  auto saved() { return std::tie(self, end, weight); }
};
// out = self + weight (end - self): grad_self = grad (1 - weight), grad_end = grad weight,
// grad_weight = grad (end - self), each summed to its input's shape.
variable_list lerp_backward(OpNode<LerpState>& n, const variable_list& grads) {
  Tensor self = n.get(n.state.self), end = n.get(n.state.end), w = n.get(n.state.weight);
  const Tensor& g = grads[0];
  return {n.needs_input_grad(0) ? grad_to(g * (1 - w), self.sizes()) : Tensor(),
          n.needs_input_grad(1) ? grad_to(g * w, end.sizes()) : Tensor(),
          n.needs_input_grad(2) ? grad_to(g * (end - self), w.sizes()) : Tensor()};
}
// LibTorch's lerp(Tensor, Tensor, Tensor) node (LerpBackward0 is the Scalar weight's).
constexpr NodeType<LerpState> kLerpBackward1{"LerpBackward1", lerp_backward};

// clamp(self, min, max) with tensor bounds, either of which may be absent.
struct ClampState {
  SavedVariable self, min, max;  // min or max undefined when not given
  auto saved() { return std::tie(self, min, max); }
};
// LibTorch's rule: self gets grad where min <= self <= max; min gets it where self < min
// (and min < max), max where self > max (or max < min), so that the element's gradient
// goes to the bound that was taken.
variable_list clamp_backward(OpNode<ClampState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self), lo = n.get(n.state.min), hi = n.get(n.state.max);
  const Tensor& g = grads[0];
  const Tensor zero = zero_like_scalar(g);
  Tensor gx, glo, ghi;
  if (n.needs_input_grad(0)) {
    Tensor keep = !lo.defined() ? x <= hi : !hi.defined() ? x >= lo : (x >= lo) & (x <= hi);
    gx = grad_to(g.where(keep, zero), x.sizes());
  }
  if (n.needs_input_grad(1)) {
    Tensor below = hi.defined() ? (x < lo) & (lo < hi) : x < lo;
    glo = grad_to(g.where(below, zero), lo.sizes());
  }
  if (n.needs_input_grad(2)) {
    Tensor above = lo.defined() ? (x > hi) | (hi < lo) : x > hi;
    ghi = grad_to(g.where(above, zero), hi.sizes());
  }
  return {gx, glo, ghi};
}
constexpr NodeType<ClampState> kClampBackward0{"ClampBackward0", clamp_backward};

}  // namespace

// ---- Binary math ----------------------------------------------------------------------------
Tensor ops::hypot_impl(const Tensor& self, const Tensor& o) {
  check_float(self, "hypot");
  ops::check_defined(o, "hypot (other)");
  return with_node(
      kHypotBackward0, {&self, &o}, [&] { return (self.square() + o.square()).sqrt(); },
      [&](HypotState& s, const Tensor& out) {
        s.self = save(self);
        s.other = save(o);
        s.result = autograd::save_output(out);
      });
}
Tensor ops::logaddexp_impl(const Tensor& self, const Tensor& o) {
  return logaddexp_of(self, o, false, "logaddexp");
}
Tensor ops::logaddexp2_impl(const Tensor& self, const Tensor& o) {
  return logaddexp_of(self, o, true, "logaddexp2");
}

Tensor ops::xlogy_impl(const Tensor& self, const Tensor& y) {
  ops::check_defined(self, "xlogy");
  ops::check_defined(y, "xlogy (other)");
  const Tensor x = as_floating(self);
  return with_node(
      kXlogyBackward0, {&x, &y}, [&] { return xlogy_value(x, y); }, save_self_other(x, y));
}
Tensor ops::xlogy_impl(const Tensor& self, const Scalar& y) {
  ops::check_defined(self, "xlogy");
  const Tensor x = as_floating(self);
  const Tensor yt = ops::scalar_tensor(y, x.scalar_type(), x.device());
  return with_node(
      kXlogyBackward2, {&x}, [&] { return xlogy_value(x, yt); },
      [&](XlogyScalarState& s, const Tensor&) {
        s.self = save(x);
        s.other = y;
      });
}

Tensor ops::copysign_impl(const Tensor& self, const Tensor& o) {
  return copysign_of(self, o, true);
}
Tensor ops::copysign_impl(const Tensor& self, const Scalar& o) {
  ops::check_defined(self, "copysign");
  const ScalarType t = self.is_floating_point() ? self.scalar_type() : get_default_dtype();
  return copysign_of(self, ops::scalar_tensor(o, t, self.device()), false);
}

Tensor ops::deg2rad_impl(const Tensor& self) {
  ops::check_defined(self, "deg2rad");
  return with_node(
      kDeg2RadBackward0, {&self}, [&] { return as_floating(self) * (std::numbers::pi / 180); },
      [](NoState&, const Tensor&) {});
}
Tensor ops::rad2deg_impl(const Tensor& self) {
  ops::check_defined(self, "rad2deg");
  return with_node(
      kRad2DegBackward0, {&self}, [&] { return as_floating(self) * (180 / std::numbers::pi); },
      [](NoState&, const Tensor&) {});
}

Tensor ops::sinc_impl(const Tensor& self) {
  ops::check_defined(self, "sinc");
  const Tensor x = as_floating(self);
  return with_node(
      kSincBackward0, {&x},
      [&] {
        Tensor px = x * std::numbers::pi;
        return nabla::where(x == 0, ones_like(x), px.sin() / px);
      },
      save_self(x));
}

Tensor ops::logit_impl(const Tensor& self, optional<double> eps) {
  ops::check_defined(self, "logit");
  const Tensor p = as_floating(self);
  return with_node(
      kLogitBackward0, {&p},
      [&] {
        Tensor q = eps ? p.clamp(*eps, 1 - *eps) : p;
        return (q / (1 - q)).log();
      },
      [&](LogitState& s, const Tensor&) {
        s.self = save(p);
        s.eps = eps ? *eps : -1;
      });
}

// LibTorch's float_power is pow in float64: its nodes are pow's.
Tensor ops::float_power_impl(const Tensor& self, const Tensor& e) {
  return self.to(kDouble).pow(e.to(kDouble));
}
Tensor ops::float_power_impl(const Tensor& self, const Scalar& e) {
  return self.to(kDouble).pow(e.toDouble());
}

// Floor division, as LibTorch 1.13 (rounding toward -inf; the quotient is formed from
// fmod so that it is exact where a / b is not representable). Not differentiable.
Tensor ops::floor_divide_impl(const Tensor& self, const Tensor& o) {
  ops::check_defined(self, "floor_divide");
  ops::check_defined(o, "floor_divide (other)");
  const ScalarType t = ops::result_type(self, o);
  return no_grad([&] {
    if (!isFloatingType(t)) {
      Tensor a = self.to(kDouble), b = o.to(kDouble);
      NABLA_CHECK(!b.eq(0).any().item<bool>(),
                  "floor_divide: ZeroDivisionError (integer division by zero)");
      return (a - a.remainder(b)).div(b).round().to(t);
    }
    Tensor a = self.to(t), b = o.to(t);
    Tensor mod = a.fmod(b);
    Tensor div = (a - mod) / b;
    div = nabla::where(mod.ne(0) & (b.lt(0) != mod.lt(0)), div - 1, div);
    Tensor fl = div.floor();
    fl = nabla::where(div - fl > 0.5, fl + 1, fl);
    // b == 0: a / b (inf or NaN), as LibTorch.
    return nabla::where(b.eq(0), a / b, fl);
  });
}
Tensor ops::floor_divide_impl(const Tensor& self, const Scalar& o) {
  return nabla::floor_divide(self, ops::scalar_tensor(o, ops::result_type(self, o), self.device()));
}

// NaN loses to a number; on ties self wins (and gets the whole gradient, as LibTorch).
Tensor ops::fmax_impl(const Tensor& self, const Tensor& o) {
  ops::check_defined(self, "fmax");
  return with_node(
      kFmaxBackward0, {&self, &o}, [&] { return nabla::where((self >= o) | o.isnan(), self, o); },
      save_self_other(self, o));
}
Tensor ops::fmin_impl(const Tensor& self, const Tensor& o) {
  ops::check_defined(self, "fmin");
  return with_node(
      kFminBackward0, {&self, &o}, [&] { return nabla::where((self <= o) | o.isnan(), self, o); },
      save_self_other(self, o));
}

Tensor ops::heaviside_impl(const Tensor& self, const Tensor& values) {
  ops::check_defined(self, "heaviside");
  NABLA_CHECK(self.scalar_type() == values.scalar_type(),
              "heaviside is not yet implemented for tensors with different "
              "dtypes (got ",
              self.scalar_type(), " and ", values.scalar_type(), ")");
  return nabla::where(self == 0, values, (self > 0).to(self.scalar_type()));
}

Tensor ops::addcmul_impl(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                         const Scalar& value) {
  return addc(self, tensor1, tensor2, value, false);
}
Tensor ops::addcdiv_impl(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                         const Scalar& value) {
  return addc(self, tensor1, tensor2, value, true);
}
const Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& v) const {
  return addc_(*this, t1, t2, v, false);
}
const Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& v) const {
  return addc_(*this, t1, t2, v, true);
}

Tensor ops::lerp_impl(const Tensor& self, const Tensor& end, const Scalar& weight) {
  check_lerp(self, end, "lerp");
  return with_node(
      kLerpBackward0, {&self, &end}, [&] { return self.add(end.sub(self), weight); },
      [&](LerpScalarState& s, const Tensor&) {
        s.weight = weight;
        s.self_sizes = sizes_of(self);
        s.end_sizes = sizes_of(end);
      });
}
const Tensor& Tensor::lerp_(const Tensor& end, const Scalar& w) const {
  check_lerp(*this, end, "lerp_");
  if (!autograd::any_requires_grad(*this, end)) return add_(end.sub(*this), w);
  return ops::inplace_from(*this, "lerp_", [&](const Tensor& x) { return x.lerp(end, w); });
}
Tensor ops::lerp_impl(const Tensor& self, const Tensor& end, const Tensor& weight) {
  ops::check_defined(self, "lerp");
  ops::check_defined(end, "lerp (end)");
  ops::check_defined(weight, "lerp (weight)");
  return with_node(
      kLerpBackward1, {&self, &end, &weight}, [&] { return self + weight * (end - self); },
      [&](LerpState& s, const Tensor&) {
        s.self = save(self);
        s.end = save(end);
        s.weight = save(weight);
      });
}

// The value as maximum then minimum (NaN in any operand propagates), one ClampBackward0 node.
Tensor ops::clamp_impl(const Tensor& self, const optional<Tensor>& lo, const optional<Tensor>& hi) {
  ops::check_defined(self, "clamp");
  const Tensor min = lo ? *lo : Tensor(), max = hi ? *hi : Tensor();
  NABLA_CHECK(min.defined() || max.defined(),
              "clamp: at least one of 'min' or 'max' must not be None");
  return with_node(
      kClampBackward0, {&self, &min, &max},
      [&] {
        Tensor r = min.defined() ? self.maximum(min) : self;
        r = max.defined() ? r.minimum(max) : r;
        NABLA_CHECK(!(min.defined() && max.defined()) || r.scalar_type() != kBool,
                    "clamp: not implemented for 'Bool' tensors with both bounds");
        return r;
      },
      [&](ClampState& s, const Tensor&) {
        s.self = save(self);
        if (min.defined()) s.min = save(min);
        if (max.defined()) s.max = save(max);
      });
}

Tensor ops::positive_impl(const Tensor& self) {
  ops::check_defined(self, "positive");
  NABLA_CHECK(self.scalar_type() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

// ---- Predicates and cleanup -----------------------------------------------------------------
Tensor ops::isneginf_impl(const Tensor& self) {
  ops::check_defined(self, "isneginf");
  if (!self.is_floating_point()) return zeros(self.sizes(), self.options().dtype(kBool));
  return self == -std::numeric_limits<double>::infinity();
}
Tensor ops::isposinf_impl(const Tensor& self) {
  ops::check_defined(self, "isposinf");
  if (!self.is_floating_point()) return zeros(self.sizes(), self.options().dtype(kBool));
  return self == std::numeric_limits<double>::infinity();
}
Tensor ops::isreal_impl(const Tensor& self) {
  ops::check_defined(self, "isreal");
  return ones(self.sizes(), self.options().dtype(kBool));
}

Tensor ops::nan_to_num_impl(const Tensor& self, optional<double> nan, optional<double> posinf,
                            optional<double> neginf) {
  ops::check_defined(self, "nan_to_num");
  if (!self.is_floating_point()) return self.clone();
  const bool is_float = self.scalar_type() == kFloat;
  const double big =
      is_float ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  return with_node(
      kNanToNumBackward0, {&self},
      [&] {
        Tensor r = nabla::where(self.isnan(), full_like(self, nan.value_or(0.0)), self);
        r = nabla::where(self.isposinf(), full_like(self, posinf.value_or(big)), r);
        return nabla::where(self.isneginf(), full_like(self, neginf.value_or(-big)), r);
      },
      save_self(self));
}

}  // namespace nabla
