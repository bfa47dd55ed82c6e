// Free-function forms of the elementwise ops (nabla::add(a, b), nabla::exp(x), ...) and
// the parameterized activations, as LibTorch spells them.
#include "nabla/ops/functions.h"
#include "ops/elementwise.h"
#include "ops/op_utils.h"

namespace nabla {

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) { return a.add(b, alpha); }
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) { return a.add(b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) { return a.sub(b, alpha); }
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) { return a.sub(b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor mul(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor div(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor div(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor pow(const Tensor& a, const Tensor& b) { return a.pow(b); }
Tensor pow(const Tensor& a, const Scalar& b) { return a.pow(b); }
Tensor pow(const Scalar& a, const Tensor& b) {
  ops::check_defined(b, "pow");
  return ops::scalar_tensor(a, ops::result_type(b, a), b.device()).pow(b);
}
Tensor atan2(const Tensor& a, const Tensor& b) { return a.atan2(b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }

Tensor neg(const Tensor& x) { return x.neg(); }
Tensor abs(const Tensor& x) { return x.abs(); }
Tensor sqrt(const Tensor& x) { return x.sqrt(); }
Tensor rsqrt(const Tensor& x) { return x.rsqrt(); }
Tensor exp(const Tensor& x) { return x.exp(); }
Tensor exp2(const Tensor& x) { return x.exp2(); }
Tensor log(const Tensor& x) { return x.log(); }
Tensor log2(const Tensor& x) { return x.log2(); }
Tensor log10(const Tensor& x) { return x.log10(); }
Tensor log1p(const Tensor& x) { return x.log1p(); }
Tensor expm1(const Tensor& x) { return x.expm1(); }
Tensor sin(const Tensor& x) { return x.sin(); }
Tensor cos(const Tensor& x) { return x.cos(); }
Tensor tan(const Tensor& x) { return x.tan(); }
Tensor asin(const Tensor& x) { return x.asin(); }
Tensor acos(const Tensor& x) { return x.acos(); }
Tensor atan(const Tensor& x) { return x.atan(); }
Tensor sinh(const Tensor& x) { return x.sinh(); }
Tensor cosh(const Tensor& x) { return x.cosh(); }
Tensor tanh(const Tensor& x) { return x.tanh(); }
Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }
Tensor relu(const Tensor& x) { return x.relu(); }
Tensor erf(const Tensor& x) { return x.erf(); }
Tensor floor(const Tensor& x) { return x.floor(); }
Tensor ceil(const Tensor& x) { return x.ceil(); }
Tensor round(const Tensor& x) { return x.round(); }
Tensor trunc(const Tensor& x) { return x.trunc(); }
Tensor frac(const Tensor& x) { return x.frac(); }
Tensor sign(const Tensor& x) { return x.sign(); }
Tensor reciprocal(const Tensor& x) { return x.reciprocal(); }
Tensor square(const Tensor& x) { return x.square(); }
Tensor logical_not(const Tensor& x) { return x.logical_not(); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return a.logical_xor(b); }

Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) {
  return ops::activation(x, UnaryOp::LeakyRelu, {negative_slope.toDouble(), 0}, "leaky_relu");
}
Tensor elu(const Tensor& x, const Scalar& alpha) {
  return ops::activation(x, UnaryOp::Elu, {alpha.toDouble(), 0}, "elu");
}
Tensor gelu(const Tensor& x, const std::string& approximate) {
  NABLA_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
  return ops::activation(x, UnaryOp::Gelu, {approximate == "tanh" ? 1.0 : 0.0, 0}, "gelu");
}
Tensor silu(const Tensor& x) { return ops::activation(x, UnaryOp::Silu, {}, "silu"); }
Tensor softplus(const Tensor& x, const Scalar& beta, const Scalar& threshold) {
  NABLA_CHECK(beta.toDouble() != 0, "softplus: beta must be nonzero");
  return ops::activation(x, UnaryOp::Softplus, {beta.toDouble(), threshold.toDouble()}, "softplus");
}

Tensor clamp(const Tensor& x, optional<Scalar> min, optional<Scalar> max) {
  return x.clamp(min, max);
}
Tensor clamp_min(const Tensor& x, const Scalar& min) { return x.clamp_min(min); }
Tensor clamp_max(const Tensor& x, const Scalar& max) { return x.clamp_max(max); }

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  return a.where(condition, b);
}
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b) {
  ops::check_defined(a, "where");
  return a.where(condition, ops::scalar_tensor(b, ops::result_type(a, b), a.device()));
}
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b) {
  ops::check_defined(b, "where");
  return ops::scalar_tensor(a, ops::result_type(b, a), b.device()).where(condition, b);
}

Tensor eq(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor ne(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor lt(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor le(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor gt(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor ge(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor isnan(const Tensor& x) { return x.isnan(); }
Tensor isinf(const Tensor& x) { return x.isinf(); }
Tensor isfinite(const Tensor& x) { return x.isfinite(); }
bool equal(const Tensor& a, const Tensor& b) { return a.equal(b); }
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.allclose(b, rtol, atol, equal_nan);
}
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.isclose(b, rtol, atol, equal_nan);
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return self.addcmul(t1, t2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return self.addcdiv(t1, t2, value);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return self.lerp(end, weight);
}

}  // namespace nabla
