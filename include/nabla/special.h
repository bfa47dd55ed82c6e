#pragma once
// nabla::special, LibTorch's torch::special namespace: the special functions under their
// SciPy-style names, each the nabla op of the same meaning (so gradients follow).
//   nabla::special::gammaln(x);   // log |Gamma(x)|, as nabla::lgamma
#include <cmath>

#include "nabla/core/tensor.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/functions.h"

namespace nabla::special {

inline Tensor gammaln(const Tensor& x) { return x.lgamma(); }
inline Tensor digamma(const Tensor& x) { return x.digamma(); }
inline Tensor psi(const Tensor& x) { return x.digamma(); }
inline Tensor polygamma(int64_t n, const Tensor& x) { return x.polygamma(n); }
inline Tensor erf(const Tensor& x) { return x.erf(); }
inline Tensor erfc(const Tensor& x) { return x.erfc(); }
inline Tensor erfinv(const Tensor& x) { return x.erfinv(); }
inline Tensor expm1(const Tensor& x) { return x.expm1(); }
inline Tensor exp2(const Tensor& x) { return x.exp2(); }
inline Tensor log1p(const Tensor& x) { return x.log1p(); }
inline Tensor expit(const Tensor& x) { return x.sigmoid(); }
inline Tensor logit(const Tensor& x, optional<double> eps = nullopt) { return x.logit(eps); }
inline Tensor sinc(const Tensor& x) { return x.sinc(); }
inline Tensor round(const Tensor& x) { return x.round(); }
inline Tensor i0(const Tensor& x) { return x.i0(); }
inline Tensor xlogy(const Tensor& x, const Tensor& y) { return x.xlogy(y); }
inline Tensor xlogy(const Tensor& x, const Scalar& y) { return x.xlogy(y); }
/// The standard normal CDF: (1 + erf(x / sqrt 2)) / 2.
inline Tensor ndtr(const Tensor& x) { return (x * M_SQRT1_2).erf().add(1).mul(0.5); }
inline Tensor log_softmax(const Tensor& x, int64_t dim, optional<ScalarType> dtype = nullopt) {
  return nabla::log_softmax(x, dim, dtype);
}
inline Tensor softmax(const Tensor& x, int64_t dim, optional<ScalarType> dtype = nullopt) {
  return nabla::softmax(x, dim, dtype);
}
inline Tensor logsumexp(const Tensor& x, IntArrayRef dim, bool keepdim = false) {
  return nabla::logsumexp(x, dim, keepdim);
}

}  // namespace nabla::special
