// The elementwise unary ops, driven by their declarations in core/op_list/unary.def: the
// dtype rule, the forward through the backend's unary kernel, the in-place form, the
// backward node (typed state + formula) and the registry entry of each op follow from its
// one line there. Ops with attributes (pow, clamp, the activations) add their argument
// checks here by hand.
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
#include "ops/registry/registry_impl.h"

namespace nabla {
namespace {

using ops::cast;
using ops::empty_tensor;

// ---- Dtype rules (the `dtype` column) --------------------------------------------------

enum class UnaryDtype { Floating, FloatingOnly, Keep, KeepNoBool, Integral, BoolOut };

ScalarType result_dtype(const Tensor& x, UnaryDtype rule, const char* name) {
  ScalarType t = x.scalar_type();
  switch (rule) {
    case UnaryDtype::Floating:
      return isFloatingType(t) ? t : get_default_dtype();
    case UnaryDtype::FloatingOnly:
      NABLA_CHECK(isFloatingType(t), name, ": expected a floating point tensor, got ", t);
      return t;
    case UnaryDtype::KeepNoBool:
      NABLA_CHECK(t != kBool, name, ": not supported for bool tensors (got a Bool tensor of sizes ",
                  x.sizes(), ")");
      return t;
    case UnaryDtype::Integral:
      NABLA_CHECK(!isFloatingType(t), name, ": only integral and bool tensors are supported, got ",
                  t);
      return t;
    case UnaryDtype::Keep:
      return t;
    case UnaryDtype::BoolOut:
      return kBool;
  }
  return t;
}

// ---- Backward state (the `saves` column) --------------------------------------------------

struct Nothing {};
struct Self {
  SavedVariable self;
  auto saved() { return std::tie(self); }
};
struct Result {
  SavedVariable result;
  auto saved() { return std::tie(result); }
};
struct SelfResult {
  SavedVariable self, result;
  auto saved() { return std::tie(self, result); }
};
/// The state of an op with attributes: what it saves and its UnaryParams.
template <class Saves>
struct WithAttr : Saves {
  UnaryParams attr;
};

template <class S>
UnaryParams attr_of(OpNode<S>& n) {
  if constexpr (requires { n.state.attr; })
    return n.state.attr;
  else
    return {};
}

/// Records out = op(x) as a node of `type` saving what its state holds. `wide`: for a
/// 16-bit out, its float32 value before rounding, which the formula reads as the result
/// (y + alpha in elu's loses every bit of a rounded y near -alpha).
template <class S>
void record(const NodeType<S>& type, const Tensor& x, const Tensor& out, UnaryParams p,
            const Tensor& wide) {
  if (!type.name) return;  // no derivative
  auto node = autograd::record_node(type, {&x});
  if (!node) return;
  if constexpr (requires { node->state.self; }) node->state.self = autograd::save(x);
  autograd::set_history(out, node);
  if constexpr (requires { node->state.result; })
    node->state.result = wide.defined() ? autograd::save(wide) : autograd::save_output(out);
  if constexpr (requires { node->state.attr; }) node->state.attr = p;
}

// ---- Helpers the derivatives use ----------------------------------------------------------

/// The fused first-order kernel op(grad, y) for tanh, sigmoid, relu and leaky_relu; with
/// create_graph, `composite` records a differentiable graph instead.
template <class F>
Tensor fused_or(BinaryOp op, const Tensor& grad, const Tensor& y, F&& composite, double alpha = 1) {
  if (GradMode::is_enabled()) return composite();
  Tensor out = empty_tensor(grad.sizes(), grad.scalar_type(), grad.device());
  backend_for(grad).binary(op, out, grad, cast(y, grad.scalar_type()), alpha);
  return out;
}

Tensor gelu_derivative(const Tensor& grad, const Tensor& x, bool tanh_form) {
  if (!tanh_form) {  // exact: Phi(x) + x phi(x)
    Tensor cdf = 0.5 * (1 + (x * M_SQRT1_2).erf());
    Tensor pdf = (-0.5 * x.square()).exp() * (0.5 * M_2_SQRTPI * M_SQRT1_2);
    return grad * (cdf + x * pdf);
  }
  const double k = M_SQRT2 * M_2_SQRTPI * 0.5, c = 0.044715;  // sqrt(2/pi)
  Tensor inner = k * (x + c * x.pow(3));
  Tensor t = inner.tanh();
  Tensor d_inner = k * (1 + 3 * c * x.square());
  return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t.square()) * d_inner);
}

// ---- One node type per op -------------------------------------------------------------------

#define NABLA_UNARY_NODE_TYPE(name, State, node, derivative)                                  \
  variable_list name##_backward(OpNode<State>& n, const variable_list& g) {                   \
    /* 16-bit floats: the formula runs in float32 (Note [16-bit compute]) */                  \
    Tensor grad_storage;                                                                      \
    [[maybe_unused]] const Tensor& grad = ops::widen_ref(g[0], grad_storage);                 \
    [[maybe_unused]] Tensor self = ops::widen(NABLA_SAVED_OR_UNDEFINED(n, self));             \
    [[maybe_unused]] Tensor result = ops::widen(NABLA_SAVED_OR_UNDEFINED(n, result));         \
    [[maybe_unused]] UnaryParams attr = attr_of(n);                                           \
    return autograd::gradients(derivative);                                                   \
  }                                                                                           \
  constexpr NodeType<State> k_##name##_node{node, name##_backward};                           \
  void record_##name(const Tensor& x, const Tensor& out, UnaryParams p, const Tensor& wide) { \
    record(k_##name##_node, x, out, p, wide);                                                 \
  }
#define NABLA_UNARY_OP(name, Kernel, dtype, node, saves, derivative) \
  NABLA_UNARY_NODE_TYPE(name, saves, node, derivative)
#define NABLA_UNARY_OP_ATTRS(name, Kernel, node, saves, derivative) \
  NABLA_UNARY_NODE_TYPE(name, WithAttr<saves>, node, derivative)
#define NABLA_UNARY_NODE(name, Kernel, node, saves, derivative) \
  NABLA_UNARY_NODE_TYPE(name, WithAttr<saves>, node, derivative)
#include "nabla/core/op_list/unary.def"
#undef NABLA_UNARY_NODE_TYPE

void record_nothing(const Tensor&, const Tensor&, UnaryParams, const Tensor&) {}

// ---- Forward ----------------------------------------------------------------------------------

using Recorder = void (*)(const Tensor& x, const Tensor& out, UnaryParams p, const Tensor& wide);

/// op(in) as a new tensor of out_t; 16-bit floats through float32 (Note [16-bit compute]),
/// their float32 value left in `wide` (else undefined).
Tensor unary_kernel(UnaryOp op, const Tensor& in, ScalarType out_t, UnaryParams p,
                    Tensor* wide = nullptr) {
  const ScalarType wide_t = ops::kernel_dtype(out_t);
  Tensor out = empty_tensor(in.sizes(), wide_t, in.device());
  backend_for(in.device()).unary(op, out, cast(in, ops::kernel_dtype(in.scalar_type())), p);
  if (wide && wide_t != out_t) *wide = out;
  return cast(out, out_t);
}

Tensor unary_impl(const Tensor& x, UnaryOp op, UnaryDtype rule, const char* name, Recorder rec,
                  UnaryParams p = {}) {
  ops::check_defined(x, name);
  ScalarType out_t = result_dtype(x, rule, name);
  Tensor wide;
  Tensor out = unary_kernel(op, rule == UnaryDtype::BoolOut ? x : cast(x, out_t), out_t, p, &wide);
  rec(x, out, p, wide);
  return out;
}

const Tensor& unary_inplace(const Tensor& self, UnaryOp op, UnaryDtype rule, const char* name,
                            Recorder rec, UnaryParams p = {}) {
  ops::check_defined(self, name);
  ScalarType out_t = result_dtype(self, rule, name);
  if (autograd::any_requires_grad(self)) {
    ops::check_inplace(self, self.sizes(), out_t, name);
    // The formula may read self's old value, which the write overwrites: it reads a
    // clone (whose CloneBackward0 keeps self's old history).
    return ops::assign_with_history(self, unary_impl(self.clone(), op, rule, name, rec, p), name);
  }
  if (out_t == self.scalar_type() && rule != UnaryDtype::BoolOut && !isReducedFloatingType(out_t)) {
    backend_for(self).unary(op, self, self, p);
  } else {
    ops::check_inplace(self, self.sizes(), out_t, name);
    Tensor r = unary_impl(self, op, rule, name, rec, p);
    backend_for(self.device()).copy(self, r);
  }
  ops::bump_version(self);
  return self;
}

/// The activations with attributes: floating input only, as LibTorch.
Tensor activation(const Tensor& x, UnaryOp op, UnaryParams p, const char* name, Recorder rec) {
  ops::check_defined(x, name);
  NABLA_CHECK(x.is_floating_point(), name, ": not implemented for '", x.scalar_type(),
              "' (expected a floating point tensor)");
  return unary_impl(x, op, UnaryDtype::FloatingOnly, name, rec, p);
}

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

// clamp, clamp_min and clamp_max share the kernel; each records its own node, as LibTorch
// (x.clamp(0.5) is ClampBackward1, x.clamp_min(0.5) ClampMinBackward0).
Tensor clamp_of(const Tensor& self, const optional<Scalar>& lo, const optional<Scalar>& hi,
                const char* name, Recorder rec) {
  ops::check_defined(self, name);
  UnaryParams p = clamp_params(self, lo, hi, name);
  ScalarType t = clamp_dtype(self, lo, hi);
  Tensor out = unary_kernel(UnaryOp::Clamp, cast(self, t), t, p);
  rec(self, out, p, Tensor());
  return out;
}
const Tensor& clamp_inplace(const Tensor& self, const optional<Scalar>& lo,
                            const optional<Scalar>& hi, const char* name, Recorder rec) {
  ops::check_defined(self, name);
  ops::check_inplace(self, self.sizes(), clamp_dtype(self, lo, hi), name);
  return unary_inplace(self, UnaryOp::Clamp, UnaryDtype::KeepNoBool, name, rec,
                       clamp_params(self, lo, hi, name));
}

}  // namespace

// ---- The ops without attributes: methods, in-place methods, free functions --------------

#define NABLA_UNARY_OP(name, Kernel, dtype, node, saves, derivative)                           \
  Tensor Tensor::name() const {                                                                \
    NABLA_TRACED(#name, ops::call_inputs({*this}));                                            \
    return unary_impl(*this, UnaryOp::Kernel, UnaryDtype::dtype, #name, record_##name);        \
  }                                                                                            \
  const Tensor& Tensor::name##_() const {                                                      \
    return unary_inplace(*this, UnaryOp::Kernel, UnaryDtype::dtype, #name "_", record_##name); \
  }                                                                                            \
  Tensor name(const Tensor& x) { return x.name(); }
#define NABLA_UNARY_PREDICATE(name, Kernel)                                                \
  Tensor Tensor::name() const {                                                            \
    NABLA_TRACED(#name, ops::call_inputs({*this}));                                        \
    return unary_impl(*this, UnaryOp::Kernel, UnaryDtype::BoolOut, #name, record_nothing); \
  }                                                                                        \
  Tensor name(const Tensor& x) { return x.name(); }
#include "nabla/core/op_list/unary.def"

// ---- The ops with attributes --------------------------------------------------------------

Tensor ops::pow_impl(const Tensor& self, const Scalar& e) {
  ops::check_defined(self, "pow");
  ScalarType t = ops::result_type(self, e);
  NABLA_CHECK(t != kBool, "pow: not supported for bool tensors");
  NABLA_CHECK(isFloatingType(t) || e.toLong() >= 0,
              "pow: integers to negative integer powers are not allowed (got exponent ", e.toLong(),
              ")");
  UnaryParams p{e.toDouble(), 0};
  Tensor out = unary_kernel(UnaryOp::PowScalar, cast(self, t), t, p);
  record_pow(self, out, p, Tensor());
  return out;
}

Tensor ops::clamp_impl(const Tensor& self, optional<Scalar> lo, optional<Scalar> hi) {
  return clamp_of(self, lo, hi, "clamp", record_clamp);
}
const Tensor& Tensor::clamp_(optional<Scalar> lo, optional<Scalar> hi) const {
  return clamp_inplace(*this, lo, hi, "clamp_", record_clamp);
}
Tensor ops::clamp_min_impl(const Tensor& self, const Scalar& lo) {
  return clamp_of(self, lo, nullopt, "clamp_min", record_clamp_min);
}
Tensor ops::clamp_max_impl(const Tensor& self, const Scalar& hi) {
  return clamp_of(self, nullopt, hi, "clamp_max", record_clamp_max);
}
const Tensor& Tensor::clamp_min_(const Scalar& lo) const {
  return clamp_inplace(*this, lo, nullopt, "clamp_min_", record_clamp_min);
}
const Tensor& Tensor::clamp_max_(const Scalar& hi) const {
  return clamp_inplace(*this, nullopt, hi, "clamp_max_", record_clamp_max);
}

Tensor ops::leaky_relu_impl(const Tensor& self, const Scalar& negative_slope) {
  return activation(self, UnaryOp::LeakyRelu, {negative_slope.toDouble(), 0}, "leaky_relu",
                    record_leaky_relu);
}
Tensor ops::elu_impl(const Tensor& self, const Scalar& alpha, const Scalar& scale,
                     const Scalar& input_scale) {
  if (scale.toDouble() != 1.0 || input_scale.toDouble() != 1.0) {
    // ATen's general form (SELU's constants), composed: differentiable through its parts;
    // 16-bit floats computed whole in float32 (Note [16-bit compute]).
    Tensor w = ops::widen(self);
    return cast(where(w > 0, w, alpha.toDouble() * ((w * input_scale).exp() - 1)) * scale,
                self.scalar_type());
  }
  return activation(self, UnaryOp::Elu, {alpha.toDouble(), 0}, "elu", record_elu);
}
Tensor ops::gelu_impl(const Tensor& self, std::string_view approximate) {
  NABLA_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
  return activation(self, UnaryOp::Gelu, {approximate == "tanh" ? 1.0 : 0.0, 0}, "gelu",
                    record_gelu);
}
Tensor ops::silu_impl(const Tensor& self) {
  return activation(self, UnaryOp::Silu, {}, "silu", record_silu);
}
Tensor ops::softplus_impl(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  NABLA_CHECK(beta.toDouble() != 0, "softplus: beta must be nonzero");
  return activation(self, UnaryOp::Softplus, {beta.toDouble(), threshold.toDouble()}, "softplus",
                    record_softplus);
}

}  // namespace nabla

// ---- Registry entries ---------------------------------------------------------------------

namespace nabla::ops {

void registry::add_unary_ops(std::vector<OpSchema>& t) {
#define NABLA_UNARY_OP(name, ...) NABLA_METHOD_ENTRY(t, name);
#define NABLA_UNARY_PREDICATE(name, Kernel) NABLA_UNARY_OP(name)
#include "nabla/core/op_list/unary.def"
}

}  // namespace nabla::ops
