// The activations beyond functions.h. Each value is one to three elementwise passes run
// without history; the ops LibTorch gives a node of their own record that node (its name
// and derivative, including LibTorch's one-sided derivatives at kinks), written with
// differentiable ops so higher derivatives follow. softsign and tanhshrink are composites
// in LibTorch too (nn.functional), and keep their pieces' nodes.
#include <cmath>
#include <tuple>
#include <type_traits>

#include "nabla/autograd/record.h"
#include "nabla/backend/detail/cpu_random_streams.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/composite.h"
#include "ops/elementwise/float32_compute.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

// SELU's constants (Klambauer et al. 2017), as PyTorch uses them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

/// `value(x)` computed without history; a 16-bit float input is computed whole on its
/// float32 copy and rounded once at the end (Note [16-bit compute]), so a composite
/// activation rounds as LibTorch's fused kernel, not once per piece.
template <class F>
Tensor in_float32(const Tensor& self, F&& value) {
  return no_grad([&] { return ops::cast(value(ops::widen(self)), self.scalar_type()); });
}
/// The saved input as the backward formulas compute on it (float32 for 16-bit floats).
template <class State, class Field>
Tensor wide(OpNode<State>& n, Field& field) {
  return ops::widen(n.get(field));
}

template <class F>
const Tensor& apply_inplace(const Tensor& self, const char* op, F f) {
  return ops::inplace_from(self, op, f);
}

void check_floating(const Tensor& x, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.is_floating_point(), op, ": expected a floating point input, got ",
              x.scalar_type());
}

using ops::SelfState;  // ops/composite.h

// ---- Nodes ----------------------------------------------------------------------------------

/// A state with the input and the op's constants.
template <class Constants>
struct SelfWith {
  SavedVariable self;
  Constants c;
  auto saved() { return std::tie(self); }
};
struct HardtanhBounds {
  double min_val, max_val;
};
struct GluDim {
  int64_t dim;
};

/// `out` (computed without history) gets a node of `type` saving `self` and `constants`.
template <class State, class... Constants>
Tensor with_self_node(Tensor out, const Tensor& self, const NodeType<State>& type,
                      Constants... constants) {
  if (auto node = autograd::record_node(type, {&self})) {
    node->state.self = autograd::save(self);
    if constexpr (sizeof...(Constants) > 0) node->state.c = {constants...};
    autograd::set_history(out, node);
  }
  return out;
}

Tensor mask_of(const Tensor& condition, const Tensor& like) {
  return condition.to(like.scalar_type());
}

// The piecewise-linear activations take LibTorch's one-sided derivatives at their kinks:
// hardtanh passes the gradient strictly inside (min, max); hardsigmoid's slope 1/6 holds
// on (-3, 3); hardswish's slope is x/3 + 1/2 on [-3, 3) and 1 from 3 on.
variable_list hardtanh_backward(OpNode<SelfWith<HardtanhBounds>>& n, const variable_list& g) {
  Tensor x = wide(n, n.state.self);
  const HardtanhBounds& b = n.state.c;
  return {g[0] * mask_of((x > b.min_val) & (x < b.max_val), x)};
}
variable_list hardsigmoid_backward(OpNode<SelfState>& n, const variable_list& g) {
  Tensor x = wide(n, n.state.self);
  return {g[0] * mask_of((x > -3) & (x < 3), x) / 6};
}
variable_list hardswish_backward(OpNode<SelfState>& n, const variable_list& g) {
  Tensor x = wide(n, n.state.self);
  return {g[0] * where(x < -3, zeros_like(x), where(x < 3, x / 3 + 0.5, ones_like(x)))};
}
// d/dx log_sigmoid = sigmoid(-x) (1/2 at 0; min(x, 0)'s kink would give 1).
variable_list log_sigmoid_backward(OpNode<SelfState>& n, const variable_list& g) {
  return {g[0] * (-wide(n, n.state.self)).sigmoid()};
}
/// EluBackward0 (selu) and CeluBackward0: elu with a scale and an input scale, y = scale
/// x for x > 0, scale alpha (exp(input_scale x) - 1) otherwise. The derivative from the
/// output, as LibTorch's elu_backward with is_result: scale, or input_scale (y + scale
/// alpha) on the negative branch (taken at 0; y <= 0 exactly there).
struct EluState {
  SavedVariable result;
  double alpha = 1, scale = 1, input_scale = 1;
  auto saved() { return std::tie(result); }
};
variable_list elu_backward(OpNode<EluState>& n, const variable_list& g) {
  const EluState& s = n.state;
  Tensor y = wide(n, n.state.result);
  Tensor negative = y + s.scale * s.alpha;
  if (s.input_scale != 1) negative = negative * s.input_scale;
  return {g[0] * where(y <= 0, negative, Scalar(s.scale))};
}

/// MishBackward0: mish = x tanh(softplus(x)), mish' = t + x sigmoid(x) (1 - t^2) with
/// t = tanh(softplus(x)). First order: t as the forward computed it and one fused pass
/// for the last product; under create_graph everything from x.
struct MishState {
  SavedVariable self, tanh_softplus;
  auto saved() { return std::tie(self, tanh_softplus); }
};
variable_list mish_backward(OpNode<MishState>& n, const variable_list& g) {
  Tensor x = wide(n, n.state.self);
  if (!GradMode::is_enabled()) {
    Tensor t = wide(n, n.state.tanh_softplus), xs = x * x.sigmoid();
    Tensor d = ops::empty_tensor(xs.sizes(), xs.scalar_type(), xs.device());
    backend_for(xs).binary(BinaryOp::TanhBackward, d, xs, t, 1);  // xs (1 - t^2)
    return {ops::widen(g[0]) * (d + t)};
  }
  Tensor t = softplus(x).tanh();
  return {g[0] * (t + x * x.sigmoid() * (1 - t.square()))};
}
/// ThresholdBackward0, HardshrinkBackward0, SoftshrinkBackward0: the gradient is stopped
/// where the forward's mask is set (x <= threshold; |x| <= lambd), passed elsewhere (NaN
/// included, as LibTorch's). The mask is constant, so the formula is linear in grad.
struct MaskState {
  SavedVariable stopped;  // bool, the input's shape
  auto saved() { return std::tie(stopped); }
};
variable_list masked_backward(OpNode<MaskState>& n, const variable_list& g) {
  return {where(n.get(n.state.stopped), Scalar(0), g[0])};
}
/// `out` (computed without history) gets a node of `type` stopping the gradient where
/// `stopped()` (computed only when a node is recorded) is set.
template <class F>
Tensor with_mask_node(Tensor out, const Tensor& self, const NodeType<MaskState>& type,
                      F&& stopped) {
  if (auto node = autograd::record_node(type, {&self})) {
    node->state.stopped = autograd::save(no_grad(std::forward<F>(stopped)));
    autograd::set_history(out, node);
  }
  return out;
}
// glu = a sigmoid(b) for the halves (a, b) along dim: (g sigmoid(b), g a sigmoid'(b)).
variable_list glu_backward(OpNode<SelfWith<GluDim>>& n, const variable_list& g) {
  Tensor x = wide(n, n.state.self);
  const int64_t d = n.state.c.dim, half = x.size(d) / 2;
  Tensor a = x.narrow(d, 0, half), sb = x.narrow(d, half, half).sigmoid();
  Tensor ga = ops::widen(g[0]) * sb;
  return {cat({ga, ga * a * (1 - sb)}, d)};
}

constexpr NodeType<SelfWith<HardtanhBounds>> kHardtanh{"HardtanhBackward0", hardtanh_backward};
constexpr NodeType<SelfState> kHardsigmoid{"HardsigmoidBackward0", hardsigmoid_backward};
constexpr NodeType<SelfState> kHardswish{"HardswishBackward0", hardswish_backward};
constexpr NodeType<SelfState> kLogSigmoid{"LogSigmoidBackward0", log_sigmoid_backward};
constexpr NodeType<EluState> kElu{"EluBackward0", elu_backward};
constexpr NodeType<EluState> kCelu{"CeluBackward0", elu_backward};
constexpr NodeType<MishState> kMish{"MishBackward0", mish_backward};

/// An elu form's value computed without history: `value(x)` on self, or for a 16-bit self
/// on its float32 copy, rounded once (Note [16-bit compute]); it gets a node saving the
/// result before rounding (the formula's y + alpha would lose every bit of a rounded y
/// near -alpha).
template <class F>
Tensor with_elu_node(const Tensor& self, F&& value, const NodeType<EluState>& type,
                     EluState coefficients) {
  Tensor wide = no_grad([&] { return value(ops::widen(self)); });
  Tensor out = no_grad([&] { return ops::cast(wide, self.scalar_type()); });
  if (auto node = autograd::record_node(type, {&self})) {
    node->state = std::move(coefficients);
    autograd::set_history(out, node);
    node->state.result =
        wide.scalar_type() == out.scalar_type() ? autograd::save_output(out) : autograd::save(wide);
  }
  return out;
}
constexpr NodeType<MaskState> kThreshold{"ThresholdBackward0", masked_backward};
constexpr NodeType<MaskState> kHardshrink{"HardshrinkBackward0", masked_backward};
constexpr NodeType<MaskState> kSoftshrink{"SoftshrinkBackward0", masked_backward};
constexpr NodeType<SelfWith<GluDim>> kGlu{"GluBackward0", glu_backward};

/// PreluBackward0: one weight, or one per channel (dim 1).
struct PreluState {
  SavedVariable self, weight;
  auto saved() { return std::tie(self, weight); }
};
// The weight as it broadcasts against self: [C, 1, ...] over dims 1.., or 0-d.
Tensor prelu_weight(const Tensor& self, const Tensor& weight) {
  if (self.dim() < 2) return weight.reshape(IntArrayRef{});
  std::vector<int64_t> shape(static_cast<size_t>(self.dim() - 1), 1);
  shape[0] = weight.numel();
  return weight.reshape(shape);
}
// grad_self = x > 0 ? g : w g; grad_weight = sum of (x > 0 ? 0 : x g) per weight.
variable_list prelu_backward(OpNode<PreluState>& n, const variable_list& g) {
  Tensor x = wide(n, n.state.self), weight = wide(n, n.state.weight), grad = ops::widen(g[0]);
  Tensor w = prelu_weight(x, weight), positive = x > 0;
  Tensor gx, gw;
  if (n.needs_input_grad(0)) gx = where(positive, grad, w * grad);
  if (n.needs_input_grad(1))
    gw = ops::sum_to(where(positive, Scalar(0), x * grad), w.sizes()).reshape(weight.sizes());
  return {gx, gw};
}
constexpr NodeType<PreluState> kPrelu{"PreluBackward0", prelu_backward};

/// RreluWithNoiseBackward0: in training the slope of each element (`noise`: 1 where
/// x > 0), in evaluation the mean slope.
struct RreluState {
  SavedVariable self, noise;
  double slope = 0;
  bool training = false;
  auto saved() { return std::tie(self, noise); }
};
variable_list rrelu_backward(OpNode<RreluState>& n, const variable_list& g) {
  Tensor grad = ops::widen(g[0]);
  if (n.state.training) return {grad * wide(n, n.state.noise)};
  return {where(wide(n, n.state.self) > 0, grad, grad * n.state.slope)};
}
constexpr NodeType<RreluState> kRrelu{"RreluWithNoiseBackward0", rrelu_backward};

}  // namespace

Tensor ops::hardtanh_impl(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  ops::check_defined(self, "hardtanh");
  const double lo = min_val.toDouble(), hi = max_val.toDouble();
  NABLA_CHECK(lo <= hi, "hardtanh: min_val (", lo, ") must be less than or equal to max_val (", hi,
              ")");
  return with_self_node(no_grad([&] { return self.clamp(min_val, max_val); }), self, kHardtanh, lo,
                        hi);
}
Tensor ops::relu6_impl(const Tensor& self) { return hardtanh(self, 0, 6); }
const Tensor& relu_(const Tensor& self) { return self.relu_(); }

Tensor ops::hardsigmoid_impl(const Tensor& self) {
  check_floating(self, "hardsigmoid");
  return with_self_node(in_float32(self, [](const Tensor& x) { return (x / 6 + 0.5).clamp(0, 1); }),
                        self, kHardsigmoid);
}
Tensor ops::hardswish_impl(const Tensor& self) {
  check_floating(self, "hardswish");
  return with_self_node(in_float32(self, [](const Tensor& x) { return x * hardsigmoid(x); }), self,
                        kHardswish);
}

Tensor ops::selu_impl(const Tensor& self) {
  check_floating(self, "selu");
  // LibTorch's selu is elu with a scale: its node is EluBackward0.
  return with_elu_node(self, [](const Tensor& x) { return elu(x, kSeluAlpha) * kSeluScale; }, kElu,
                       {{}, kSeluAlpha, kSeluScale, 1.0});
}
Tensor ops::celu_impl(const Tensor& self, const Scalar& alpha) {
  check_floating(self, "celu");
  const double a = alpha.toDouble();
  NABLA_CHECK(a != 0, "celu: alpha must be nonzero (ZeroDivisionError), got 0");
  // alpha * elu(x / alpha, 1): x for x > 0, alpha * (exp(x / alpha) - 1) otherwise.
  return with_elu_node(self,
                       [a](const Tensor& x) { return a == 1 ? elu(x, 1.0) : elu(x / a, 1.0) * a; },
                       kCelu, {{}, a, 1.0, 1.0 / a});
}
Tensor ops::mish_impl(const Tensor& self) {
  check_floating(self, "mish");
  Tensor t, out;
  {
    NoGradGuard no_grad;
    Tensor x = ops::widen(self);  // Note [16-bit compute]
    t = softplus(x).tanh();
    out = ops::cast(x * t, self.scalar_type());
  }
  if (auto node = autograd::record_node(kMish, {&self})) {
    node->state.self = autograd::save(self);
    node->state.tanh_softplus = autograd::save(t);
    autograd::set_history(out, node);
  }
  return out;
}
Tensor ops::log_sigmoid_impl(const Tensor& self) {
  check_floating(self, "log_sigmoid");
  // min(x, 0) - log1p(exp(-|x|)): exp never overflows and nothing is cut off at a
  // threshold (-softplus(-x) would return x itself below -20, off by exp(x)).
  return with_self_node(
      in_float32(self, [](const Tensor& x) { return x.clamp_max(0) - (-x.abs()).exp().log1p(); }),
      self, kLogSigmoid);
}
Tensor ops::softsign_impl(const Tensor& self) {
  check_floating(self, "softsign");
  return self / (self.abs() + 1);
}
Tensor ops::tanhshrink_impl(const Tensor& self) {
  check_floating(self, "tanhshrink");
  return self - self.tanh();
}

Tensor ops::threshold_impl(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  ops::check_defined(self, "threshold");
  // NaN fails `x <= threshold` and passes through, as in LibTorch.
  Tensor below = no_grad([&] { return self <= threshold; });
  return with_mask_node(no_grad([&] { return where(below, value, self); }), self, kThreshold,
                        [&] { return below; });
}

Tensor ops::glu_impl(const Tensor& self, int64_t dim) {
  check_floating(self, "glu");
  NABLA_CHECK(self.dim() > 0, "glu: does not support scalars (0-d tensors)");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "glu");
  const int64_t n = self.size(d);
  NABLA_CHECK(n % 2 == 0, "glu: Halving dimension must be even, but dimension ", d, " is size ", n);
  return with_self_node(in_float32(self,
                                   [&](const Tensor& x) {
                                     return x.narrow(d, 0, n / 2) *
                                            x.narrow(d, n / 2, n / 2).sigmoid();
                                   }),
                        self, kGlu, d);
}

Tensor ops::prelu_impl(const Tensor& self, const Tensor& weight) {
  check_floating(self, "prelu");
  ops::check_defined(weight, "prelu (weight)");
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  const int64_t wn = weight.numel();
  NABLA_CHECK(wn == 1 || wn == channels, "prelu: mismatch in parameter count: got ", wn,
              " weights for an input with ", channels,
              " channels (expected 1 or one per channel, dim 1)");
  NABLA_CHECK(weight.dim() <= 1, "prelu: weight must be 0-d or 1-d, got ", weight.dim(), " dims");
  Tensor out = in_float32(self, [&](const Tensor& x) {
    return where(x > 0, x, prelu_weight(x, ops::widen(weight)) * x);
  });
  if (auto node = autograd::record_node(kPrelu, {&self, &weight})) {
    node->state.self = autograd::save(self);
    node->state.weight = autograd::save(weight);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::hardshrink_impl(const Tensor& self, const Scalar& lambd) {
  ops::check_defined(self, "hardshrink");
  Tensor inside = no_grad([&] { return self.abs() <= lambd; });  // NaN: false, passes through
  return with_mask_node(no_grad([&] { return where(inside, Scalar(0), self); }), self, kHardshrink,
                        [&] { return inside; });
}
Tensor ops::softshrink_impl(const Tensor& self, const Scalar& lambd) {
  check_floating(self, "softshrink");
  const double l = lambd.toDouble();
  NABLA_CHECK(l >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", l, ".");
  // NaN fails both tests and gives 0, as in LibTorch (its gradient passes, as LibTorch's).
  return with_mask_node(in_float32(self,
                                   [l](const Tensor& x) {
                                     return where(x > l, x - l, where(x < -l, x + l, Scalar(0)));
                                   }),
                        self, kSoftshrink, [&] { return ops::widen(self).abs() <= l; });
}

namespace {
// rrelu's slopes on the CPU for a contiguous floating x (see rrelu), of x's dtype: a 16-bit
// float draws as float32 does and rounds each slope to 16 bits, as LibTorch's kernel.
Tensor rrelu_cpu_noise(const Tensor& x, double lower, double upper) {
  Tensor noise = ops::empty_tensor(x.sizes(), x.scalar_type(), Device(kCPU));
  Generator& gen = default_generator();
  auto fill = [&](auto zero) {
    using T = decltype(zero);
    // To T as LibTorch's casts: a 16-bit float through float32.
    auto round = [](double v) {
      if constexpr (std::is_arithmetic_v<T>)
        return static_cast<T>(v);
      else
        return T(static_cast<float>(v));
    };
    const double lo = static_cast<double>(round(lower)),
                 range = static_cast<double>(round(upper)) - lo;
    // Untyped: data_ptr<T> knows no 16-bit float types; the switch below matched T.
    const T* xd = static_cast<const T*>(ops::host_ptr(x));
    T* nd = static_cast<T*>(ops::host_ptr(noise));
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (!(static_cast<double>(xd[i]) <= 0)) {
        nd[i] = round(1.0);
        continue;
      }
      // uniform_real_distribution<double>: 53 bits; LibTorch's rrelu is not in its
      // per-ISA kernels, so u * range + lo is two roundings there.
      const double u = static_cast<double>(gen.random64() & ((uint64_t(1) << 53) - 1)) *
                       (1.0 / 9007199254740992.0);
      nd[i] = round(cpu::mul_then_add(u, range, lo));
    }
  };
  switch (x.scalar_type()) {
    case kFloat:
      fill(0.0f);
      break;
    case kHalf:
      fill(Half(0.0f));
      break;
    case kBFloat16:
      fill(BFloat16(0.0f));
      break;
    default:
      fill(0.0);
  }
  return noise;
}
}  // namespace

Tensor ops::rrelu_impl(const Tensor& self, const Scalar& lower, const Scalar& upper,
                       bool training) {
  check_floating(self, "rrelu");
  const double lo = lower.toDouble(), hi = upper.toDouble();
  NABLA_CHECK(lo <= hi, "rrelu: lower bound (", lo, ") must be less than or equal to upper bound (",
              hi, ")");
  Tensor out, noise;
  {
    NoGradGuard no_grad;
    if (training && self.is_cpu()) {
      // LibTorch's CPU kernel, so that a seed gives its slopes (Note [Random streams]): in
      // element order, a slope only for x <= 0, drawn as a double uniform in [lower, upper)
      // (bounds rounded to the dtype first), 1 elsewhere; 16-bit floats alike.
      noise = rrelu_cpu_noise(self.detach().contiguous(), lo, hi);
      out = self * noise;
    } else if (training) {
      // A slope drawn per element, 1 where x > 0 (LibTorch's noise).
      Tensor slope = empty_like(self, TensorOptions(self.scalar_type())).uniform_(lo, hi);
      noise = where(self > 0, ones_like(slope), slope);
      out = self * noise;
    } else {
      out = leaky_relu(self, (lo + hi) / 2);
    }
  }
  if (auto node = autograd::record_node(kRrelu, {&self})) {
    if (training)
      node->state.noise = autograd::save(noise);
    else
      node->state.self = autograd::save(self);
    node->state.slope = (lo + hi) / 2;
    node->state.training = training;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace nabla
