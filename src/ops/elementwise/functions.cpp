// Free-function forms of the elementwise ops (nabla::add(a, b), nabla::exp(x), ...) and
// the parameterized activations, as LibTorch spells them; registry entries of the ops
// declared here that no op family registers.
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"
#include "ops/registry/registry_impl.h"

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

Tensor logical_and(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return a.logical_xor(b); }

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
bool equal(const Tensor& a, const Tensor& b) { return a.equal(b); }
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.allclose(b, rtol, atol, equal_nan);
}
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.isclose(b, rtol, atol, equal_nan);
}

}  // namespace nabla

// ---- Registry entries -----------------------------------------------------------------------

namespace nabla::ops {

void registry::add_elementwise_function_ops(std::vector<OpSchema>& t) {
  t.push_back(op("isclose", 2, 2,
                 {attr("rtol", AttrType::Double, 1e-5), attr("atol", AttrType::Double, 1e-8),
                  attr("equal_nan", AttrType::Bool, false)},
                 [](const V& x, const AttrReader& a) -> V {
                   return {x[0].isclose(x[1], a.d("rtol"), a.d("atol"), a.b("equal_nan"))};
                 }));
}

}  // namespace nabla::ops
