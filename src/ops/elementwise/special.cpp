// Special functions (lgamma, digamma, polygamma, erfinv, i0, signbit, asinh, acosh, atanh;
// schema rows: core/op_list/math.def) and the
// random fills beyond uniform/normal (exponential_, geometric_, cauchy_, log_normal_,
// bernoulli). The functions are evaluated in float64 element by element (these ops are
// rare; accuracy, not speed, is what matters) and each has a node whose derivative is
// another of them, so higher derivatives work.
#include <cmath>
#include <limits>
#include <numbers>

#include "nabla/backend/detail/cpu_random_streams.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/composite.h"
#include "ops/factories/random_fill.h"

namespace nabla {

namespace {

using ops::SelfState;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Hurwitz zeta(s, q) = sum_k (k + q)^-s for s > 1, by Euler-Maclaurin summation.
double hurwitz_zeta(double s, double q) {
  if (s == 1) return kInf;
  if (q <= 0 && q == std::floor(q)) return kInf;
  static const double b2k[] = {1.0 / 6,       -1.0 / 30,       1.0 / 42,       -1.0 / 30,
                               5.0 / 66,      -691.0 / 2730,   7.0 / 6,        -3617.0 / 510,
                               43867.0 / 798, -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730};
  const int n = 12;
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += std::pow(q + k, -s);
  const double a = q + n;
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * std::pow(a, -s);
  // Terms B_2j / (2j)! * s (s+1) ... (s+2j-2) a^(-s-2j+1).
  double rising = s, fact = 2, apow = std::pow(a, -s - 1);
  for (int j = 1; j <= 12; ++j) {
    const double term = b2k[j - 1] / fact * rising * apow;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    fact *= (2 * j + 1) * (2 * j + 2);
    apow /= a * a;
  }
  return sum;
}

double digamma_scalar(double x) {
  if (std::isnan(x)) return kNaN;
  if (x == 0) return std::signbit(x) ? kInf : -kInf;  // as LibTorch: -inf at +0
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;
    // Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
    return digamma_scalar(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  }
  double r = 0;
  while (x < 10) {
    r -= 1 / x;
    x += 1;
  }
  const double f = 1 / (x * x);
  // Asymptotic series: log x - 1/2x - sum B_2k / (2k x^2k).
  const double series =
      f * (1.0 / 12 - f * (1.0 / 120 -
                           f * (1.0 / 252 -
                                f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 - f / 12))))));
  return r + std::log(x) - 0.5 / x - series;
}

double polygamma_scalar(int64_t n, double x) {
  if (n == 0) return digamma_scalar(x);
  if (std::isnan(x)) return kNaN;
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x).
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * std::exp(std::lgamma(static_cast<double>(n) + 1)) *
         hurwitz_zeta(static_cast<double>(n) + 1, x);
}

double erfinv_scalar(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  if (y == 0) return y;
  const double ay = std::fabs(y);
  // Winitzki's approximation (relative error ~2e-3), then Newton steps. Near 1, the
  // residual is formed with erfc from 1 - y (exact there), not erf (which rounds to 1).
  const double a = 0.147, ln = std::log1p(-ay * ay);
  const double t = 2 / (std::numbers::pi * a) + ln / 2;
  double x = std::sqrt(std::sqrt(t * t - ln / a) - t);
  const double slope = 2 / std::sqrt(std::numbers::pi);
  for (int i = 0; i < 5; ++i) {
    const double residual = ay < 0.5 ? std::erf(x) - ay : (1 - ay) - std::erfc(x);
    const double step = residual / (slope * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
  }
  return y < 0 ? -x : x;
}

// f applied to every element in float64, on the host; the result has x's floating dtype
// (integers give the default float), or `out` when given, on x's device (a GPU tensor
// makes a round trip through the host: Note [Host reads]).
template <class Fn>
Tensor map_double(const Tensor& x, const char* op, Fn fn, optional<ScalarType> out = nullopt) {
  ops::check_defined(x, op);
  Tensor d = x.detach().to(Device(kCPU), kDouble).contiguous();
  Tensor r = ops::empty_tensor(x.sizes(), kDouble, Device(kCPU));
  const double* p = ops::host_ptr<double>(d);
  double* q = ops::host_ptr<double>(r);
  for (int64_t i = 0; i < d.numel(); ++i) q[i] = fn(p[i]);
  return r.to(x.device(),
              out ? *out : (x.is_floating_point() ? x.scalar_type() : get_default_dtype()));
}

struct PolygammaState {
  SavedVariable self;
  int64_t n = 0;
  auto saved() { return std::tie(self); }
};

variable_list lgamma_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] * n.get(n.state.self).digamma()};
}
variable_list digamma_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] * n.get(n.state.self).polygamma(1)};
}
variable_list polygamma_backward(OpNode<PolygammaState>& n, const variable_list& grads) {
  return {grads[0] * n.get(n.state.self).polygamma(n.state.n + 1)};
}
// erfinv'(y) = sqrt(pi) / 2 * exp(erfinv(y)^2).
variable_list erfinv_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] * (n.get(n.state.self).erfinv().square()).exp() *
          (std::sqrt(std::numbers::pi) / 2)};
}
Tensor bessel_i1(const Tensor& x);
variable_list i0_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] * bessel_i1(n.get(n.state.self))};
}
// i1'(x) = i0(x) - i1(x) / x, 1/2 at 0.
variable_list i1_backward(OpNode<SelfState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self);
  Tensor d = x.i0() - bessel_i1(x) / x;
  return {grads[0] * nabla::where(x == 0, full_like(d, 0.5), d)};
}
// Inverse hyperbolics: asinh' = 1/sqrt(x^2 + 1), acosh' = 1/sqrt(x^2 - 1), atanh' = 1/(1 - x^2).
variable_list asinh_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] * (n.get(n.state.self).square() + 1).rsqrt()};
}
variable_list acosh_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] * (n.get(n.state.self).square() - 1).rsqrt()};
}
variable_list atanh_backward(OpNode<SelfState>& n, const variable_list& grads) {
  return {grads[0] / (1 - n.get(n.state.self).square())};
}
constexpr NodeType<SelfState> kAsinhBackward0{"AsinhBackward0", asinh_backward};
constexpr NodeType<SelfState> kAcoshBackward0{"AcoshBackward0", acosh_backward};
constexpr NodeType<SelfState> kAtanhBackward0{"AtanhBackward0", atanh_backward};
constexpr NodeType<SelfState> kLgammaBackward0{"LgammaBackward0", lgamma_backward};
constexpr NodeType<SelfState> kDigammaBackward0{"DigammaBackward0", digamma_backward};
constexpr NodeType<PolygammaState> kPolygammaBackward0{"PolygammaBackward0", polygamma_backward};
constexpr NodeType<SelfState> kErfinvBackward0{"ErfinvBackward0", erfinv_backward};
constexpr NodeType<SelfState> kI0Backward0{"I0Backward0", i0_backward};
constexpr NodeType<SelfState> kSpecialI1Backward0{"SpecialI1Backward0", i1_backward};

/// `fn` of every element of x in float64, recorded as one node of `type` saving x.
template <class Fn>
Tensor elementwise(const NodeType<SelfState>& type, const Tensor& x, const char* op, Fn fn) {
  return ops::with_node(
      type, {&x}, [&] { return map_double(x, op, fn); },
      [&](SelfState& s, const Tensor&) { s.self = autograd::save(x); });
}

Tensor bessel_i1(const Tensor& x) {
  return elementwise(kSpecialI1Backward0, x, "special_i1", [](double v) {
    const double r = std::cyl_bessel_i(1.0, std::fabs(v));
    return v < 0 ? -r : r;
  });
}

// Random values in this tensor's shape and dtype from double uniform draws (LibTorch's
// CPU kernels draw one per element too: Note [Random streams]), written in place.
template <class Fn>
const Tensor& fill_from_uniform(const Tensor& self, const char* op, optional<Generator> gen,
                                Fn fn) {
  ops::check_defined(self, op);
  NABLA_CHECK(self.is_floating_point(), op, ": expected a floating point tensor, got ",
              self.scalar_type());
  NoGradGuard no_grad;
  Tensor u = rand(self.sizes(), std::move(gen), TensorOptions(kDouble));
  Tensor v = map_double(u, op, fn, self.scalar_type());
  backend_for(self).copy(self, v);
  ops::bump_version(self);
  return self;
}

}  // namespace

Tensor ops::lgamma_impl(const Tensor& self) {
  return elementwise(kLgammaBackward0, self, "lgamma", [](double v) { return std::lgamma(v); });
}
Tensor ops::digamma_impl(const Tensor& self) {
  return elementwise(kDigammaBackward0, self, "digamma", digamma_scalar);
}
Tensor Tensor::polygamma(int64_t n) const { return nabla::polygamma(n, *this); }
Tensor ops::polygamma_impl(int64_t n, const Tensor& self) {
  NABLA_CHECK(n >= 0, "polygamma(n, x) does not support negative n (got ", n, ")");
  return ops::with_node(
      kPolygammaBackward0, {&self},
      [&] {
        return map_double(self, "polygamma", [n](double v) { return polygamma_scalar(n, v); });
      },
      [&](PolygammaState& s, const Tensor&) {
        s.self = autograd::save(self);
        s.n = n;
      });
}
Tensor ops::erfinv_impl(const Tensor& self) {
  return elementwise(kErfinvBackward0, self, "erfinv", erfinv_scalar);
}
Tensor ops::i0_impl(const Tensor& self) {
  return elementwise(kI0Backward0, self, "i0",
                     [](double v) { return std::cyl_bessel_i(0.0, std::fabs(v)); });
}
Tensor ops::asinh_impl(const Tensor& self) {
  return elementwise(kAsinhBackward0, self, "asinh", [](double v) { return std::asinh(v); });
}
Tensor ops::acosh_impl(const Tensor& self) {
  return elementwise(kAcoshBackward0, self, "acosh", [](double v) { return std::acosh(v); });
}
Tensor ops::atanh_impl(const Tensor& self) {
  return elementwise(kAtanhBackward0, self, "atanh", [](double v) { return std::atanh(v); });
}

// In-place forms of the methods that are not schema rows.
const Tensor& Tensor::polygamma_(int64_t n) const {
  return ops::inplace_from(*this, "polygamma_", [&](const Tensor& x) { return x.polygamma(n); });
}

Tensor ops::signbit_impl(const Tensor& self) {
  ops::check_defined(self, "signbit");
  if (!self.is_floating_point()) return self.lt(0);
  return map_double(
      self, "signbit", [](double v) { return std::signbit(v) ? 1.0 : 0.0; }, kBool);
}

// The transforms of LibTorch's CPU kernels, term for term.
const Tensor& Tensor::exponential_(double lambd, optional<Generator> gen) const {
  NABLA_CHECK(lambd > 0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  return fill_from_uniform(*this, "exponential_", std::move(gen),
                           [lambd](double u) { return -1.0 / lambd * std::log(1.0 - u); });
}
const Tensor& Tensor::geometric_(double p, optional<Generator> gen) const {
  NABLA_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  return fill_from_uniform(*this, "geometric_", std::move(gen),
                           [p](double u) { return std::ceil(std::log(u) / std::log(1.0 - p)); });
}
const Tensor& Tensor::cauchy_(double median, double sigma, optional<Generator> gen) const {
  return fill_from_uniform(*this, "cauchy_", std::move(gen), [=](double u) {
    return cpu::libtorch_mul_add(sigma, std::tan(std::numbers::pi * (u - 0.5)), median);
  });
}
const Tensor& Tensor::log_normal_(double mean, double std, optional<Generator> gen) const {
  NABLA_CHECK(std > 0, "log_normal_ expects std > 0.0, but found std=", std);
  ops::check_defined(*this, "log_normal_");
  NoGradGuard no_grad;
  // exp of LibTorch's per-element double normal (not the normal fill of randn).
  Tensor z = ops::empty_tensor(sizes(), kDouble, Device(kCPU));
  double* zd = ops::host_ptr<double>(z);
  cpu::normal_samples(ops::generator_for(gen, Device(kCPU), "log_normal_"), zd, z.numel(), mean,
                      std);
  for (int64_t i = 0; i < z.numel(); ++i) zd[i] = std::exp(zd[i]);
  backend_for(*this).copy(*this, z.to(device()));
  ops::bump_version(*this);
  return *this;
}

Tensor Tensor::bernoulli(optional<Generator> gen) const {
  return nabla::bernoulli(*this, std::move(gen));
}
Tensor Tensor::bernoulli(double p, optional<Generator> gen) const {
  ops::check_defined(*this, "bernoulli");
  NABLA_CHECK(p >= 0 && p <= 1, "bernoulli: expects p to be in [0, 1], but got p=", p);
  // empty_like(self).bernoulli_(p), as LibTorch.
  Tensor r = ops::empty_tensor(sizes(), is_floating_point() ? scalar_type() : get_default_dtype(),
                               device());
  return ops::fill_random(r, KernelBackend::Distribution::Bernoulli, std::move(gen), p, 0,
                          "bernoulli");
}

}  // namespace nabla
