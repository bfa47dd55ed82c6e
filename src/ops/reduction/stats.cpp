// Statistical reductions: var/std (two-pass), var_mean/std_mean, norm (p = 0, 1, 2, ±inf,
// other), logsumexp (stable). The forwards are composed from primitives run without
// recording; each op is then recorded as one node with LibTorch's name and formula, which
// saves memory and keeps graphs and grad_fn names as in LibTorch.
#include <cmath>
#include <limits>
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/reduction/reduce_utils.h"

namespace nabla {

namespace {

// ---- var, std, var_mean, std_mean -----------------------------------------------------------

struct VarianceState {
  ReducedDims reduced;
  double divisor = 0;          // N - correction
  int64_t count = 0;           // N: the divisor of var_mean's / std_mean's mean
  SavedVariable self, result;  // result: std and std_mean only
  auto saved() { return std::tie(self, result); }
};

// grad_self = grad * 2 (x - mean) / (N - correction).
Tensor var_part(OpNode<VarianceState>& n, const Tensor& grad) {
  const ReducedDims& r = n.state.reduced;
  return ops::var_grad(r, n.get(n.state.self), r.restore(grad), n.state.divisor);
}
// d std = d var / (2 std), taken as 0 where std == 0 (LibTorch), not inf * 0.
Tensor std_part(OpNode<VarianceState>& n, const Tensor& grad) {
  const ReducedDims& r = n.state.reduced;
  Tensor outk = r.restore(n.get(n.state.result));
  Tensor zero = ops::zero_like_scalar(outk);
  Tensor gvar = (r.restore(grad) / (2 * ops::nonzero_or_one(outk))).where(outk != 0, zero);
  return ops::var_grad(r, n.get(n.state.self), gvar, n.state.divisor);
}
// The mean output's part: grad / N, expanded.
Tensor mean_part(OpNode<VarianceState>& n, const Tensor& grad) {
  const ReducedDims& r = n.state.reduced;
  return r.restore(grad / static_cast<double>(n.state.count)).expand(r.self_sizes);
}

variable_list var_backward(OpNode<VarianceState>& n, const variable_list& grads) {
  return {var_part(n, grads[0])};
}
variable_list std_backward(OpNode<VarianceState>& n, const variable_list& grads) {
  return {std_part(n, grads[0])};
}
// grads = (grad of var or std, grad of mean).
variable_list var_mean_backward(OpNode<VarianceState>& n, const variable_list& grads) {
  return {var_part(n, grads[0]) + mean_part(n, grads[1])};
}
variable_list std_mean_backward(OpNode<VarianceState>& n, const variable_list& grads) {
  return {std_part(n, grads[0]) + mean_part(n, grads[1])};
}
constexpr NodeType<VarianceState> kVarBackward0{"VarBackward0", var_backward};
constexpr NodeType<VarianceState> kStdBackward0{"StdBackward0", std_backward};
constexpr NodeType<VarianceState> kVarMeanBackward0{"VarMeanBackward0", var_mean_backward};
constexpr NodeType<VarianceState> kStdMeanBackward0{"StdMeanBackward0", std_mean_backward};

// Two passes: the mean first, then the sum of squared deviations. Unlike the one-pass
// E[x²] - E[x]² this does not cancel catastrophically when |mean| >> std. Returns (var or
// std, mean); the mean is only computed into an output when `with_mean`.
std::tuple<Tensor, Tensor> variance(const Tensor& x, const std::vector<bool>& mask, bool unbiased,
                                    bool keepdim, bool is_std, bool with_mean, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.is_floating_point(), op,
              ": std and var only support floating point and complex "
              "dtypes (got ",
              x.scalar_type(), ")");
  const ScalarType t = x.scalar_type();
  const int64_t n = ops::reduced_count(x.sizes(), mask);
  // n - 1 <= 0 gives 0 / 0 = nan, as LibTorch.
  const int64_t divisor = std::max<int64_t>(n - (unbiased ? 1 : 0), 0);
  Tensor out, mean_out;
  {
    NoGradGuard no_grad;
    Tensor mean = reduce_to(ReduceOp::Sum, x, mask, true, t).div(static_cast<double>(n));
    Tensor dev = x - mean;
    Tensor ss = reduce_to(ReduceOp::Sum, dev * dev, mask, keepdim, t);
    out = ss.div(static_cast<double>(divisor));
    if (is_std) out = out.sqrt();
    if (with_mean) mean_out = keepdim ? mean : ops::contiguous_view(mean, out.sizes());
  }
  const NodeType<VarianceState>& type = with_mean ? (is_std ? kStdMeanBackward0 : kVarMeanBackward0)
                                                  : (is_std ? kStdBackward0 : kVarBackward0);
  if (auto node = autograd::record_node(type, {&x})) {
    node->state.reduced = ReducedDims(x, mask, keepdim);
    node->state.divisor = static_cast<double>(divisor);
    node->state.count = n;
    node->state.self = autograd::save(x);
    autograd::set_history(out, node);
    if (with_mean) autograd::set_history(mean_out, node);
    if (is_std) node->state.result = autograd::save_output(out);
  }
  return {out, mean_out};
}

// ---- norm -----------------------------------------------------------------------------------

struct NormState {
  ReducedDims reduced;
  double p = 2;
  SavedVariable self, result;  // neither for p = 0, no result for p = 1
  auto saved() { return std::tie(self, result); }
};

variable_list norm_backward(OpNode<NormState>& n, const variable_list& grads) {
  const NormState& s = n.state;
  if (s.p == 0) return {Tensor()};
  const ReducedDims& r = s.reduced;
  Tensor norm = s.p == 1 ? Tensor() : r.restore(n.get(s.result));
  return {ops::norm_grad(r, n.get(s.self), norm, r.restore(grads[0]), s.p)};
}
constexpr NodeType<NormState> kNormBackward0{"NormBackward0", norm_backward};
constexpr NodeType<NormState> kNormBackward1{"NormBackward1", norm_backward};

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

Tensor norm_over(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim,
                 const NodeType<NormState>& type) {
  Tensor out = no_grad([&] { return norm_value(x, p, mask, keepdim); });
  if (auto node = autograd::record_node(type, {&x})) {
    node->state.reduced = ReducedDims(x, mask, keepdim);
    node->state.p = p;
    if (p != 0) node->state.self = autograd::save(x);
    autograd::set_history(out, node);
    if (p != 0 && p != 1) node->state.result = autograd::save_output(out);
  }
  return out;
}

// ---- logsumexp ------------------------------------------------------------------------------

// grad_self = grad * softmax(x) = grad * exp(x - out): never overflows since out >= max(x).
variable_list logsumexp_backward(OpNode<ReducedSelfResult>& n, const variable_list& grads) {
  const ReducedDims& r = n.state.reduced;
  Tensor x = n.get(n.state.self);
  return {r.restore(grads[0]) * (x - r.restore(n.get(n.state.result))).exp()};
}
constexpr NodeType<ReducedSelfResult> kLogsumexpBackward0{"LogsumexpBackward0", logsumexp_backward};

}  // namespace

Tensor ops::var_impl(const Tensor& self, bool unbiased) {
  return std::get<0>(
      variance(self, ops::all_dims(self.dim()), unbiased, false, false, false, "var()"));
}
Tensor ops::var_impl(const Tensor& self, IntArrayRef dim, bool unbiased, bool keepdim) {
  return std::get<0>(variance(self, reduce_mask(dim, self.dim(), "var()"), unbiased, keepdim, false,
                              false, "var()"));
}
Tensor ops::std_impl(const Tensor& self, bool unbiased) {
  return std::get<0>(
      variance(self, ops::all_dims(self.dim()), unbiased, false, true, false, "std()"));
}
Tensor ops::std_impl(const Tensor& self, IntArrayRef dim, bool unbiased, bool keepdim) {
  return std::get<0>(variance(self, reduce_mask(dim, self.dim(), "std()"), unbiased, keepdim, true,
                              false, "std()"));
}

Tensor ops::norm_impl(const Tensor& self, const Scalar& p) {
  return norm_over(self, p.toDouble(), ops::all_dims(self.dim()), false, kNormBackward0);
}
Tensor ops::norm_impl(const Tensor& self, optional<Scalar> p, IntArrayRef dim, bool keepdim) {
  return norm_over(self, p ? p->toDouble() : 2.0, reduce_mask(dim, self.dim(), "norm()"), keepdim,
                   kNormBackward1);
}

// log(sum(exp(x - m))) + m with m the max over the dims; an infinite max is replaced by 0
// so rows of all -inf give -inf (not nan) and rows holding +inf give +inf.
Tensor ops::logsumexp_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  ops::check_defined(self, "logsumexp()");
  Tensor x = self.is_floating_point() ? self : self.to(get_default_dtype());  // ints promote
  const ScalarType t = x.scalar_type();
  auto mask = reduce_mask(dim, x.dim(), "logsumexp()");
  Tensor out = no_grad([&] {
    if (ops::reduces_empty_dim(x.sizes(), mask))
      return reduce_to(ReduceOp::Sum, x.exp(), mask, keepdim, t).log();  // log(0) = -inf
    Tensor m = reduce_to(ReduceOp::Max, x, mask, true, t);
    m = zeros_like(m).where(m.isinf(), m);
    Tensor s = reduce_to(ReduceOp::Sum, (x - m).exp(), mask, keepdim, t);
    return s.log() + (keepdim ? m : ops::contiguous_view(m, s.sizes()));
  });
  ops::record_self_result(kLogsumexpBackward0, x, mask, keepdim, out);
  return out;
}

std::tuple<Tensor, Tensor> ops::var_mean_impl(const Tensor& self, bool unbiased) {
  return variance(self, ops::all_dims(self.dim()), unbiased, false, false, true, "var_mean()");
}
std::tuple<Tensor, Tensor> ops::var_mean_impl(const Tensor& self, IntArrayRef dim, bool unbiased,
                                              bool keepdim) {
  return variance(self, reduce_mask(dim, self.dim(), "var_mean()"), unbiased, keepdim, false, true,
                  "var_mean()");
}
std::tuple<Tensor, Tensor> ops::std_mean_impl(const Tensor& self, bool unbiased) {
  return variance(self, ops::all_dims(self.dim()), unbiased, false, true, true, "std_mean()");
}
std::tuple<Tensor, Tensor> ops::std_mean_impl(const Tensor& self, IntArrayRef dim, bool unbiased,
                                              bool keepdim) {
  return variance(self, reduce_mask(dim, self.dim(), "std_mean()"), unbiased, keepdim, true, true,
                  "std_mean()");
}
}  // namespace nabla
