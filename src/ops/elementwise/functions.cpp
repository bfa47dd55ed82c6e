// Free-function forms of the elementwise binary ops and comparisons (nabla::add(a, b),
// nabla::eq(a, b), ...), as LibTorch spells them: each forwards to the Tensor method, which
// the op's row in core/op_list/binary.def gives its kernel, node and registry entry.
#include "nabla/ops/functions.h"
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

Tensor logical_and(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return a.logical_xor(b); }

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

}  // namespace nabla
