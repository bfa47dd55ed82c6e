// The activations beyond functions.h, composed from differentiable ops: each is one to
// three elementwise passes, so no fused kernel is needed, and double backward comes from
// the pieces. Where the pieces' kinks would give a derivative other than LibTorch's
// (log_sigmoid at 0, hardtanh/hardsigmoid/hardswish at their bounds), the forward is
// recorded as one node with LibTorch's derivative.
#include <cmath>

#include "autograd/formula.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

// SELU's constants (Klambauer et al. 2017), as PyTorch uses them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

template <class F>
const Tensor& apply_inplace(const Tensor& self, const char* op, F f) {
  return ops::inplace_from(self, op, f);
}

autograd::variable_list log_sigmoid_bw(autograd::FormulaNode& n, const autograd::variable_list& g) {
  return {g[0] * (-n.saved(0)).sigmoid()};
}
const autograd::Formula kLogSigmoid{"LogSigmoidBackward0", log_sigmoid_bw};

// The piecewise-linear activations take LibTorch's one-sided derivatives at their kinks:
// hardtanh passes the gradient strictly inside (min, max) (clamp, inclusive, would pass
// it at the bounds too); hardsigmoid's slope 1/6 holds on (-3, 3); hardswish's slope is
// x/3 + 1/2 on [-3, 3) and 1 from 3 on.
autograd::variable_list hardtanh_bw(autograd::FormulaNode& n, const autograd::variable_list& g) {
  Tensor x = n.saved(0);
  return {g[0] * ((x > n.a) & (x < n.b)).to(g[0].scalar_type())};
}
const autograd::Formula kHardtanh{"HardtanhBackward0", hardtanh_bw};
autograd::variable_list hardsigmoid_bw(autograd::FormulaNode& n, const autograd::variable_list& g) {
  Tensor x = n.saved(0);
  return {g[0] * ((x > -3) & (x < 3)).to(g[0].scalar_type()) / 6};
}
const autograd::Formula kHardsigmoid{"HardsigmoidBackward0", hardsigmoid_bw};
autograd::variable_list hardswish_bw(autograd::FormulaNode& n, const autograd::variable_list& g) {
  Tensor x = n.saved(0);
  Tensor slope = where(x < -3, zeros_like(x), where(x < 3, x / 3 + 0.5, ones_like(x)));
  return {g[0] * slope};
}
const autograd::Formula kHardswish{"HardswishBackward0", hardswish_bw};

// `out` (computed without history) gets a node of `f` that saves `self`; a and b are
// the formula's constants.
Tensor with_node(Tensor out, const Tensor& self, const autograd::Formula& f, double a = 0,
                 double b = 0) {
  if (autograd::any_requires_grad(self)) {
    auto node = autograd::make_node(f, {&self});
    node->save(self);
    node->a = a;
    node->b = b;
    autograd::set_history(out, node);
  }
  return out;
}

void check_floating(const Tensor& x, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.is_floating_point(), op, ": expected a floating point input, got ",
              x.scalar_type());
}

}  // namespace

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  ops::check_defined(self, "hardtanh");
  NABLA_CHECK(min_val.toDouble() <= max_val.toDouble(), "hardtanh: min_val (", min_val.toDouble(),
              ") must be less than or equal to max_val (", max_val.toDouble(), ")");
  return with_node(no_grad([&] { return self.clamp(min_val, max_val); }), self, kHardtanh,
                   min_val.toDouble(), max_val.toDouble());
}
const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return apply_inplace(self, "hardtanh_",
                       [&](const Tensor& x) { return hardtanh(x, min_val, max_val); });
}
Tensor relu6(const Tensor& self) { return hardtanh(self, 0, 6); }
const Tensor& relu6_(const Tensor& self) { return hardtanh_(self, 0, 6); }
const Tensor& relu_(const Tensor& self) { return self.relu_(); }
const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope) {
  return apply_inplace(self, "leaky_relu_",
                       [&](const Tensor& x) { return leaky_relu(x, negative_slope); });
}
const Tensor& elu_(const Tensor& self, const Scalar& alpha) {
  return apply_inplace(self, "elu_", [&](const Tensor& x) { return elu(x, alpha); });
}

Tensor hardsigmoid(const Tensor& self) {
  check_floating(self, "hardsigmoid");
  return with_node(no_grad([&] { return (self / 6 + 0.5).clamp(0, 1); }), self, kHardsigmoid);
}
const Tensor& hardsigmoid_(const Tensor& self) {
  return apply_inplace(self, "hardsigmoid_", [](const Tensor& x) { return hardsigmoid(x); });
}
Tensor hardswish(const Tensor& self) {
  check_floating(self, "hardswish");
  return with_node(no_grad([&] { return self * hardsigmoid(self); }), self, kHardswish);
}
const Tensor& hardswish_(const Tensor& self) {
  return apply_inplace(self, "hardswish_", [](const Tensor& x) { return hardswish(x); });
}

Tensor selu(const Tensor& self) {
  check_floating(self, "selu");
  return elu(self, kSeluAlpha) * kSeluScale;
}
const Tensor& selu_(const Tensor& self) {
  return apply_inplace(self, "selu_", [](const Tensor& x) { return selu(x); });
}
Tensor celu(const Tensor& self, const Scalar& alpha) {
  check_floating(self, "celu");
  const double a = alpha.toDouble();
  NABLA_CHECK(a != 0, "celu: alpha must be nonzero (ZeroDivisionError), got 0");
  // alpha * elu(x / alpha, 1): x for x > 0, alpha * (exp(x / alpha) - 1) otherwise.
  return a == 1 ? elu(self, 1.0) : elu(self / a, 1.0) * a;
}
const Tensor& celu_(const Tensor& self, const Scalar& alpha) {
  return apply_inplace(self, "celu_", [&](const Tensor& x) { return celu(x, alpha); });
}
Tensor mish(const Tensor& self) {
  check_floating(self, "mish");
  return self * softplus(self).tanh();
}
const Tensor& silu_(const Tensor& self) {
  return apply_inplace(self, "silu_", [](const Tensor& x) { return silu(x); });
}
Tensor log_sigmoid(const Tensor& self) {
  check_floating(self, "log_sigmoid");
  // min(x, 0) - log1p(exp(-|x|)): exp never overflows and nothing is cut off at a
  // threshold (-softplus(-x) would return x itself below -20, off by exp(x)). Recorded
  // as one node with d/dx = sigmoid(-x) (1/2 at 0, as LibTorch; the pieces' kinks at 0
  // would give 1).
  return with_node(no_grad([&] { return self.clamp_max(0) - (-self.abs()).exp().log1p(); }), self,
                   kLogSigmoid);
}
Tensor softsign(const Tensor& self) {
  check_floating(self, "softsign");
  return self / (self.abs() + 1);
}
Tensor tanhshrink(const Tensor& self) {
  check_floating(self, "tanhshrink");
  return self - self.tanh();
}

Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  ops::check_defined(self, "threshold");
  // NaN fails `x <= threshold` and passes through, as in LibTorch.
  return where(self <= threshold, value, self);
}
const Tensor& threshold_(const Tensor& self, const Scalar& th, const Scalar& value) {
  return apply_inplace(self, "threshold_",
                       [&](const Tensor& x) { return threshold(x, th, value); });
}

Tensor glu(const Tensor& self, int64_t dim) {
  check_floating(self, "glu");
  NABLA_CHECK(self.dim() > 0, "glu: does not support scalars (0-d tensors)");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "glu");
  const int64_t n = self.size(d);
  NABLA_CHECK(n % 2 == 0, "glu: Halving dimension must be even, but dimension ", d, " is size ", n);
  return self.narrow(d, 0, n / 2) * self.narrow(d, n / 2, n / 2).sigmoid();
}

Tensor prelu(const Tensor& self, const Tensor& weight) {
  check_floating(self, "prelu");
  ops::check_defined(weight, "prelu (weight)");
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  const int64_t wn = weight.numel();
  NABLA_CHECK(wn == 1 || wn == channels, "prelu: mismatch in parameter count: got ", wn,
              " weights for an input with ", channels,
              " channels (expected 1 or one per channel, dim 1)");
  NABLA_CHECK(weight.dim() <= 1, "prelu: weight must be 0-d or 1-d, got ", weight.dim(), " dims");
  // One weight per channel, broadcast over dim 1 of [N, C, ...].
  Tensor w;
  if (self.dim() >= 2) {
    std::vector<int64_t> shape(static_cast<size_t>(self.dim() - 1), 1);
    shape[0] = wn;
    w = weight.reshape(shape);
  } else {
    w = weight.reshape(IntArrayRef{});
  }
  return where(self > 0, self, w * self);
}

Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  ops::check_defined(self, "hardshrink");
  return where(self.abs() <= lambd, Scalar(0), self);  // NaN passes through
}
Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  check_floating(self, "softshrink");
  const double l = lambd.toDouble();
  NABLA_CHECK(l >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", l, ".");
  // NaN fails both tests and gives 0, as in LibTorch.
  return where(self > l, self - l, where(self < -l, self + l, Scalar(0)));
}

Tensor rrelu(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training) {
  check_floating(self, "rrelu");
  const double lo = lower.toDouble(), hi = upper.toDouble();
  NABLA_CHECK(lo <= hi, "rrelu: lower bound (", lo, ") must be less than or equal to upper bound (",
              hi, ")");
  if (!training) return leaky_relu(self, (lo + hi) / 2);
  Tensor slope = empty_like(self, TensorOptions(self.scalar_type())).uniform_(lo, hi);
  return where(self >= 0, self, self * slope);
}
const Tensor& rrelu_(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training) {
  return apply_inplace(self, "rrelu_",
                       [&](const Tensor& x) { return rrelu(x, lower, upper, training); });
}

}  // namespace nabla
