// Statistical reductions: var/std (two-pass), norm (p = 0, 1, 2, ±inf, other), logsumexp
// (stable). The forwards are composed from primitives run without recording; each op is
// then recorded as one node with LibTorch's name and formula (reduce_backward.cpp), which
// saves memory and keeps graphs and grad_fn names as in LibTorch.
#include <cmath>
#include <limits>

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/reduce_backward.h"
#include "ops/reduce_utils.h"

namespace nabla {

namespace {

using ops::reduce_mask;
using ops::reduce_to;

// Two passes: the mean first, then the sum of squared deviations. Unlike the one-pass
// E[x²] - E[x]² this does not cancel catastrophically when |mean| >> std.
Tensor var_impl(const Tensor& x, const std::vector<bool>& mask, bool unbiased, bool keepdim,
                bool is_std, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.is_floating_point(), op,
              ": std and var only support floating point and complex "
              "dtypes (got ",
              x.scalar_type(), ")");
  const ScalarType t = x.scalar_type();
  const int64_t n = ops::reduced_count(x.sizes(), mask);
  // n - 1 <= 0 gives 0 / 0 = nan, as LibTorch.
  const int64_t divisor = std::max<int64_t>(n - (unbiased ? 1 : 0), 0);
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor mean = reduce_to(ReduceOp::Sum, x, mask, true, t).div(static_cast<double>(n));
    Tensor dev = x - mean;
    Tensor ss = reduce_to(ReduceOp::Sum, dev * dev, mask, keepdim, t);
    out = ss.div(static_cast<double>(divisor));
    if (is_std) out = out.sqrt();
  }
  ops::record_var_std(x, mask, keepdim, static_cast<double>(divisor), is_std, out);
  return out;
}

Tensor norm_value(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim) {
  ops::check_defined(x, "norm()");
  NABLA_CHECK(x.is_floating_point(),
              "norm(): input dtype should be either floating point or "
              "complex. Got ",
              x.scalar_type(), " instead.");
  const ScalarType t = x.scalar_type();
  auto sum = [&](const Tensor& v) { return reduce_to(ReduceOp::Sum, v, mask, keepdim, t); };
  if (p == 2) return sum(x * x).sqrt();
  if (p == 1) return sum(x.abs());
  if (p == 0) return sum(x.ne(0).to(t));
  if (std::isinf(p)) {
    // An empty range has norm 0 for ±inf too (LibTorch 1.13).
    if (ops::reduces_empty_dim(x.sizes(), mask)) return sum(x.abs());
    return reduce_to(p > 0 ? ReduceOp::Max : ReduceOp::Min, x.abs(), mask, keepdim, t);
  }
  return sum(x.abs().pow(p)).pow(1.0 / p);
}

Tensor norm_impl(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim,
                 bool full) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = norm_value(x, p, mask, keepdim);
  }
  ops::record_norm(x, p, mask, keepdim, full, out);
  return out;
}

}  // namespace

Tensor Tensor::var(bool unbiased) const {
  return var_impl(*this, ops::all_dims(dim()), unbiased, false, false, "var()");
}
Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return var_impl(*this, reduce_mask(dim, this->dim(), "var()"), unbiased, keepdim, false, "var()");
}
Tensor Tensor::std(bool unbiased) const {
  return var_impl(*this, ops::all_dims(dim()), unbiased, false, true, "std()");
}
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return var_impl(*this, reduce_mask(dim, this->dim(), "std()"), unbiased, keepdim, true, "std()");
}

Tensor Tensor::norm(const Scalar& p) const {
  return norm_impl(*this, p.toDouble(), ops::all_dims(dim()), false, /*full=*/true);
}
Tensor Tensor::norm(optional<Scalar> p, IntArrayRef dim, bool keepdim) const {
  return norm_impl(*this, p ? p->toDouble() : 2.0, reduce_mask(dim, this->dim(), "norm()"), keepdim,
                   /*full=*/false);
}

// log(sum(exp(x - m))) + m with m the max over the dims; an infinite max is replaced by 0
// so rows of all -inf give -inf (not nan) and rows holding +inf give +inf.
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  ops::check_defined(*this, "logsumexp()");
  Tensor x = is_floating_point() ? *this : to(get_default_dtype());  // ints promote
  const ScalarType t = x.scalar_type();
  auto mask = reduce_mask(dim, x.dim(), "logsumexp()");
  Tensor out;
  {
    NoGradGuard no_grad;
    if (ops::reduces_empty_dim(x.sizes(), mask)) {
      out = reduce_to(ReduceOp::Sum, x.exp(), mask, keepdim, t).log();  // log(0) = -inf
    } else {
      Tensor m = reduce_to(ReduceOp::Max, x, mask, true, t);
      m = zeros_like(m).where(m.isinf(), m);
      Tensor s = reduce_to(ReduceOp::Sum, (x - m).exp(), mask, keepdim, t);
      out = s.log() + (keepdim ? m : ops::contiguous_view(m, s.sizes()));
    }
  }
  ops::record_logsumexp(x, mask, keepdim, out);
  return out;
}

// ---- Free functions ------------------------------------------------------------------------
Tensor var(const Tensor& x, bool unbiased) { return x.var(unbiased); }
Tensor var(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) {
  return x.var(dim, unbiased, keepdim);
}
Tensor std(const Tensor& x, bool unbiased) { return x.std(unbiased); }
Tensor std(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) {
  return x.std(dim, unbiased, keepdim);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, bool unbiased) {
  return {x.var(unbiased), x.mean()};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) {
  return {x.var(dim, unbiased, keepdim), x.mean(dim, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, bool unbiased) {
  return {x.std(unbiased), x.mean()};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) {
  return {x.std(dim, unbiased, keepdim), x.mean(dim, keepdim)};
}
Tensor norm(const Tensor& x, const Scalar& p) { return x.norm(p); }
Tensor norm(const Tensor& x, optional<Scalar> p, IntArrayRef dim, bool keepdim) {
  return x.norm(p, dim, keepdim);
}
Tensor logsumexp(const Tensor& x, IntArrayRef dim, bool keepdim) {
  return x.logsumexp(dim, keepdim);
}

}  // namespace nabla
