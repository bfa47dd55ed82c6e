// Derivatives of the reductions, written with differentiable nabla ops so that
// create_graph gives higher orders (Note [Reduction node fields] below). g is the
// gradient of the output; "gk" is g with the reduced dims restored as size 1.
#include "ops/reduce_backward.h"

#include <cmath>
#include <limits>

#include "autograd/formula.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/reduce_utils.h"

namespace nabla::ops {

using autograd::Formula;
using autograd::FormulaNode;
using autograd::variable_list;

namespace {

// Note [Reduction node fields]
// shape0 = input sizes, dims = reduced dims (wrapped, ascending; every dim for full
// reductions), flag = keepdim, a = the op's number (count, divisor or p), dim = the one
// dim of sort / cumsum / max(dim). Saved tensors are listed at each formula.

std::shared_ptr<FormulaNode> reduce_node(const Formula& f, const Tensor& x,
                                         const std::vector<bool>& mask, bool keepdim) {
  auto node = autograd::make_node(f, {&x});
  node->shape0.assign(x.sizes().begin(), x.sizes().end());
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) node->dims.push_back(static_cast<int64_t>(d));
  node->flag = keepdim;
  return node;
}

// `t` (shaped like the output) with the reduced dims back as size 1, so it broadcasts
// against the input. A reduction over every dim gives a 0-d tensor, which already does.
Tensor restore(const FormulaNode& n, const Tensor& t) {
  if (n.flag || n.dims.size() == n.shape0.size()) return t;
  Tensor r = t;
  for (int64_t d : n.dims) r = r.unsqueeze(d);
  return r;
}

// `t` reduced over the node's dims, keeping them as size 1.
Tensor sum_keep(const FormulaNode& n, const Tensor& t) {
  return n.dims.empty() ? t : t.sum(n.dims, /*keepdim=*/true);
}

Tensor zero_like_scalar(const Tensor& t) { return scalar_tensor(0, t.scalar_type(), t.device()); }

// ---- sum, mean ------------------------------------------------------------------------
// Saved: nothing.
variable_list sum_bw(FormulaNode& n, const variable_list& g) {
  return {restore(n, g[0]).expand(n.shape0)};
}
variable_list mean_bw(FormulaNode& n, const variable_list& g) {
  return {restore(n, g[0] / n.a).expand(n.shape0)};  // divide before expanding: fewer flops
}

// ---- prod -----------------------------------------------------------------------------
// Saved: [0] = x, [1] = out. Without zeros d out / d x_i = out / x_i. With zeros that
// quotient is 0/0, so the product of the nonzero elements (pz) is used instead: one
// zero gives pz at the zero and 0 elsewhere, two or more give 0 everywhere. The zero
// elements themselves enter as factors (zs, always 0 in value) so that the second
// derivative is right too.
variable_list prod_bw(FormulaNode& n, const variable_list& g) {
  Tensor x = n.saved(0), out = n.saved(1);
  Tensor gk = restore(n, g[0]);
  Tensor is_zero = x == 0;
  if (!is_zero.any().item<bool>()) return {gk * restore(n, out) / x};
  Tensor one = scalar_tensor(1, x.scalar_type(), x.device());
  Tensor zero = zero_like_scalar(x);
  Tensor count = sum_keep(n, is_zero);  // zeros per output
  Tensor x_nz = one.where(is_zero, x);  // zeros replaced by 1
  // The nonzero product; a reduction over every dim gives it 0-d, as the forward.
  Tensor pz = n.dims.size() == n.shape0.size() ? x_nz.prod() : x_nz.prod(n.dims[0], true);
  Tensor zs = sum_keep(n, x * is_zero);  // sum of the zero elements (value 0)
  // Nonzero elements: pz / x_i times (1 without zeros, the zero itself with one, else 0).
  Tensor at_nonzero = one.where(count == 0, zs.where(count == 1, zero));
  // Zero elements: pz times (1 with one zero, the other zero with two, else 0).
  Tensor at_zero = one.where(count == 1, (zs - x).where(count == 2, zero));
  return {gk * (pz * at_zero).where(is_zero, pz / x_nz * at_nonzero)};
}

// ---- max / min / amax / amin ---------------------------------------------------------
// Saved: [0] = x, [1] = out. Ties share the gradient evenly (PyTorch's
// evenly_distribute_backward for max(); scale_grad_by_count for amax). A NaN max
// selects the NaN elements, as LibTorch's max().
variable_list extremum_bw(FormulaNode& n, const variable_list& g) {
  Tensor x = n.saved(0), outk = restore(n, n.saved(1));
  Tensor hit = (n.dims.size() == n.shape0.size() && outk.dim() == 0 && outk.isnan().item<bool>())
                   ? x.isnan()
                   : x == outk;
  Tensor share = restore(n, g[0]) / sum_keep(n, hit);
  return {share.where(hit, zero_like_scalar(share))};
}

// max(dim) / min(dim). Saved: [0] = indices. The gradient lands on the returned index:
// a one-hot comparison with an iota along the dim (no scatter needed, and where is
// differentiable in its value argument).
variable_list select_dim_bw(FormulaNode& n, const variable_list& g) {
  if (n.shape0.empty()) return {g[0]};  // 0-d input: the value is the input
  Tensor idx = n.saved(0), gk = g[0];
  if (!n.flag) {
    idx = idx.unsqueeze(n.dim);
    gk = gk.unsqueeze(n.dim);
  }
  DimVector iota_shape(n.shape0.size(), 1);
  iota_shape[n.dim] = n.shape0[n.dim];
  Tensor iota = arange(n.shape0[n.dim], TensorOptions(kLong).device(idx.device())).view(iota_shape);
  Tensor hit = iota == idx;  // [shape0]: where broadcasts gk to it
  return {gk.where(hit, zero_like_scalar(gk))};
}

// ---- var / std ------------------------------------------------------------------------
// Saved: [0] = x, [1] = out (std only). d var / d x = 2 (x - mean) / (N - correction);
// d std = d var / (2 std), taken as 0 where std == 0 (LibTorch), not inf * 0.
Tensor var_grad(FormulaNode& n, const Tensor& x, const Tensor& gk) {
  // A 0-d input with correction 1: LibTorch 1.13 gives g * inf (not inf * 0 = nan).
  if (n.shape0.empty() && n.a == 0) return gk * std::numeric_limits<double>::infinity();
  Tensor mean = n.dims.empty() ? x : x.mean(n.dims, /*keepdim=*/true);
  return gk * (2.0 / n.a) * (x - mean);
}
variable_list var_bw(FormulaNode& n, const variable_list& g) {
  return {var_grad(n, n.saved(0), restore(n, g[0]))};
}
variable_list std_bw(FormulaNode& n, const variable_list& g) {
  Tensor outk = restore(n, n.saved(1));
  Tensor gvar = (restore(n, g[0]) / (2 * outk)).where(outk != 0, zero_like_scalar(outk));
  return {var_grad(n, n.saved(0), gvar)};
}

// ---- norm -----------------------------------------------------------------------------
// Saved: [0] = x, [1] = out; n.a = p. PyTorch's norm_backward: the gradient is 0 (not
// NaN) where the norm is 0, ±inf norms share the gradient among ties of |x|, and p = 0
// has no gradient at all.
variable_list norm_bw(FormulaNode& n, const variable_list& g) {
  const double p = n.a;
  if (p == 0) return {Tensor()};
  Tensor x = n.saved(0), gk = restore(n, g[0]);
  if (p == 1) return {x.sign() * gk};
  Tensor outk = restore(n, n.saved(1)), zero = zero_like_scalar(x);
  if (p == 2) return {x * (gk / outk).where(outk != 0, zero)};
  if (std::isinf(p)) {
    Tensor hit = x.abs() == outk;
    Tensor share = gk / sum_keep(n, hit);
    return {x.sign() * share.where(hit, zero)};
  }
  if (p < 1) {
    // |x|^(p-1) is inf at x = 0, where the gradient is taken as 0.
    Tensor ax = x.abs().pow(p - 1).where(x != 0, zero);
    return {x.sign() * ax * gk * outk.pow(1 - p)};
  }
  Tensor scale = (gk / outk.pow(p - 1)).where(outk != 0, zero);
  if (p < 2) return {x.sign() * x.abs().pow(p - 1) * scale};
  return {x * x.abs().pow(p - 2) * scale};
}

// ---- logsumexp, cumsum ----------------------------------------------------------------
// logsumexp saved: [0] = x, [1] = out. softmax(x) = exp(x - out) never overflows since
// out >= max(x).
variable_list logsumexp_bw(FormulaNode& n, const variable_list& g) {
  Tensor x = n.saved(0);
  return {restore(n, g[0]) * (x - restore(n, n.saved(1))).exp()};
}
// The gradient of a prefix sum is the suffix sum of g.
variable_list cumsum_bw(FormulaNode& n, const variable_list& g) {
  if (n.shape0.empty() || n.shape0[n.dim] <= 1) return {g[0]};
  return {g[0].flip({n.dim}).cumsum(n.dim).flip({n.dim})};
}

// ---- sort / topk ----------------------------------------------------------------------
// Saved: [0] = indices.
variable_list sort_bw(FormulaNode& n, const variable_list& g) {
  if (n.shape0.empty()) return {g[0]};
  Tensor base = zeros(n.shape0, TensorOptions(g[0].scalar_type()).device(g[0].device()));
  return {base.scatter(n.dim, n.saved(0), g[0])};
}

const Formula kSum0{"SumBackward0", sum_bw}, kSum1{"SumBackward1", sum_bw};
const Formula kMean0{"MeanBackward0", mean_bw}, kMean1{"MeanBackward1", mean_bw};
const Formula kProd0{"ProdBackward0", prod_bw}, kProd1{"ProdBackward1", prod_bw};
const Formula kMax1{"MaxBackward1", extremum_bw}, kMin1{"MinBackward1", extremum_bw};
const Formula kAmax{"AmaxBackward0", extremum_bw}, kAmin{"AminBackward0", extremum_bw};
const Formula kMax0{"MaxBackward0", select_dim_bw}, kMin0{"MinBackward0", select_dim_bw};
const Formula kVar{"VarBackward0", var_bw}, kStd{"StdBackward0", std_bw};
const Formula kNorm0{"NormBackward0", norm_bw}, kNorm1{"NormBackward1", norm_bw};
const Formula kLogsumexp{"LogsumexpBackward0", logsumexp_bw};
const Formula kCumsum{"CumsumBackward0", cumsum_bw};
const Formula kSort{"SortBackward0", sort_bw}, kTopk{"TopkBackward0", sort_bw};

}  // namespace

void record_sum(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  autograd::set_history(out, reduce_node(full ? kSum0 : kSum1, x, mask, keepdim));
}

void record_mean(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                 const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = reduce_node(full ? kMean0 : kMean1, x, mask, keepdim);
  node->a = static_cast<double>(reduced_count(x.sizes(), mask));
  autograd::set_history(out, node);
}

void record_prod(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                 const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = reduce_node(full ? kProd0 : kProd1, x, mask, keepdim);
  node->save(x);
  autograd::set_history(out, node);
  node->save(out, /*is_output=*/true);
}

void record_extremum(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                     bool is_max, const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  const Formula& f = full ? (is_max ? kMax1 : kMin1) : (is_max ? kAmax : kAmin);
  auto node = reduce_node(f, x, mask, keepdim);
  node->save(x);
  autograd::set_history(out, node);
  node->save(out, /*is_output=*/true);
}

void record_select_dim(const Tensor& x, int64_t d, bool keepdim, bool is_max, const Tensor& values,
                       const Tensor& indices) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = autograd::make_node(is_max ? kMax0 : kMin0, {&x});
  node->shape0.assign(x.sizes().begin(), x.sizes().end());
  node->dim = d;
  node->flag = keepdim;
  node->save(indices);  // not differentiable, so saved as a plain input
  autograd::set_history(values, node);
}

void record_var_std(const Tensor& x, const std::vector<bool>& mask, bool keepdim, double divisor,
                    bool is_std, const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = reduce_node(is_std ? kStd : kVar, x, mask, keepdim);
  node->a = divisor;
  node->save(x);
  autograd::set_history(out, node);
  if (is_std) node->save(out, /*is_output=*/true);
}

void record_norm(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim, bool full,
                 const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = reduce_node(full ? kNorm0 : kNorm1, x, mask, keepdim);
  node->a = p;
  node->save(p == 0 ? Tensor() : x);
  autograd::set_history(out, node);
  node->save(p == 0 || p == 1 ? Tensor() : out, /*is_output=*/true);
}

void record_logsumexp(const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                      const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = reduce_node(kLogsumexp, x, mask, keepdim);
  node->save(x);
  autograd::set_history(out, node);
  node->save(out, /*is_output=*/true);
}

void record_cumsum(const Tensor& x, int64_t d, const Tensor& out) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = autograd::make_node(kCumsum, {&x});
  node->shape0.assign(x.sizes().begin(), x.sizes().end());
  node->dim = d;
  autograd::set_history(out, node);
}

void record_sort(const Tensor& x, int64_t d, bool is_topk, const Tensor& values,
                 const Tensor& indices) {
  if (!autograd::any_requires_grad(x)) return;
  auto node = autograd::make_node(is_topk ? kTopk : kSort, {&x});
  node->shape0.assign(x.sizes().begin(), x.sizes().end());
  node->dim = d;
  node->save(indices);
  autograd::set_history(values, node);
}

}  // namespace nabla::ops
