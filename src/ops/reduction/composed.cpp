// Reductions and scans of LibTorch composed from nabla's ops or computed row by row:
// nansum/nanmean, count_nonzero, cumprod, logcumsumexp, cummax/cummin, diff, aminmax,
// histc, bincount, trace, dist, renorm, with their nodes (diff's and bincount's registry
// entries here; the others' schema rows are in core/op_list/reduction.def). Ops that
// LibTorch records as one node compute their value without history and record that node.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/composite.h"
#include "ops/reduction/reduce_utils.h"
#include "ops/registry/registry_impl.h"

namespace nabla {

namespace {

using autograd::save;
using ops::from_rows;
using ops::ReducedDims;
using ops::Rows;
using ops::rows_of;
using ops::with_node;

using ops::zero_like_scalar;

// ---- nansum ---------------------------------------------------------------------------------

struct NansumState {
  ReducedDims reduced;
  SavedVariable self;
  auto saved() { return std::tie(self); }
};
// grad_self = grad (reduced dims restored) where self is not NaN, else 0.
variable_list nansum_backward(OpNode<NansumState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self);
  Tensor g = n.state.reduced.restore(grads[0]).expand(n.state.reduced.self_sizes);
  return {g.where(x.isnan().logical_not(), zero_like_scalar(g))};
}
constexpr NodeType<NansumState> kNansumBackward0{"NansumBackward0", nansum_backward};

// ---- cumprod --------------------------------------------------------------------------------

struct ScanState {
  SavedVariable self, result;  // result: logcumsumexp only
  int64_t dim = 0;             // wrapped
  auto saved() { return std::tie(self, result); }
};

// cumprod's gradient, exact with zeros: d/dx_k = P(k-1) * S_k with P the prefix product
// and S_k = g_k + x_{k+1} S_{k+1} (O(n) per row). Under create_graph the differentiable
// form reverse_cumsum(g * out) / x is used (it needs x without zeros).
variable_list cumprod_backward(OpNode<ScanState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self);
  const int64_t d = n.state.dim;
  if (GradMode::is_enabled()) {
    NABLA_CHECK(!x.eq(0).any().item<bool>(),
                "cumprod: second derivatives through inputs holding zeros are not "
                "supported");
    Tensor out = x.cumprod(d);
    return {(grads[0] * out).flip({d}).cumsum(d).flip({d}) / x};
  }
  Rows xr = rows_of(x, d), gr = rows_of(grads[0], d);
  Tensor res = zeros({xr.rows, xr.n}, TensorOptions(kDouble));
  const double* xp = ops::host_ptr<double>(xr.data);
  const double* gp = ops::host_ptr<double>(gr.data);
  double* rp = ops::host_ptr<double>(res);
  for (int64_t r = 0; r < xr.rows; ++r) {
    const double* xi = xp + r * xr.n;
    const double* gi = gp + r * xr.n;
    double* ri = rp + r * xr.n;
    double s = 0;
    for (int64_t k = xr.n - 1; k >= 0; --k) {
      s = gi[k] + (k + 1 < xr.n ? xi[k + 1] * s : 0);
      ri[k] = s;
    }
    double prefix = 1;
    for (int64_t k = 0; k < xr.n; ++k) {
      ri[k] *= prefix;
      prefix *= xi[k];
    }
  }
  return {from_rows(res, x, d, x.scalar_type())};
}
constexpr NodeType<ScanState> kCumprodBackward0{"CumprodBackward0", cumprod_backward};

// ---- logcumsumexp ---------------------------------------------------------------------------

// The suffix logcumsumexp along d (each position: log sum_{j >= i} exp(t_j)).
Tensor reverse_logcumsumexp(const Tensor& t, int64_t d) {
  return t.flip({d}).logcumsumexp(d).flip({d});
}
// d out_j / d x_i = exp(x_i - out_j) for i <= j, so grad_i = sum_{j >= i} g_j exp(x_i - out_j).
// Summed in log space for stability, the positive and negative parts of g apart (a log
// needs a positive argument): grad = exp(x + rlcse(t+)) - exp(x + rlcse(t-)) with
// t = log|g| - out where g has that sign. Elsewhere t is a constant e^1000 below every
// term of its row (not -inf, whose inf - inf would poison the second derivative, nor
// the lowest double, whose sums lose every digit), so it adds nothing and gets no
// gradient.
variable_list logcumsumexp_backward(OpNode<ScanState>& n, const variable_list& grads) {
  Tensor x = n.get(n.state.self), out = n.get(n.state.result), g = grads[0];
  const int64_t d = n.state.dim;
  if (x.dim() == 0 || x.numel() == 0) return {g};
  Tensor one = ops::scalar_tensor(1, g.scalar_type(), g.device());
  Tensor abs_g = g.abs();
  Tensor t = one.where(abs_g == 0, abs_g).log() - out;  // log|g| - out (log 1 where g == 0)
  Tensor none = t.detach().amin({d}, true) - 1000;
  auto part = [&](const Tensor& has_sign) {
    return (x + reverse_logcumsumexp(t.where(has_sign, none), d)).exp();
  };
  return {part(g > 0) - part(g < 0)};
}
constexpr NodeType<ScanState> kLogcumsumexpBackward0{"LogcumsumexpBackward0",
                                                     logcumsumexp_backward};

// ---- cummax, cummin -------------------------------------------------------------------------

constexpr NodeType<ops::IndexedCopy> kCummaxBackward0{"CummaxBackward0",
                                                      ops::indexed_copy_add_backward};
constexpr NodeType<ops::IndexedCopy> kCumminBackward0{"CumminBackward0",
                                                      ops::indexed_copy_add_backward};

// Running extreme and its index along a row (ties take the later index, as LibTorch).
std::tuple<Tensor, Tensor> cum_extreme(const Tensor& x, int64_t dim, bool is_max, const char* op) {
  ops::check_defined(x, op);
  const int64_t d = ops::wrap_dim(dim, x.dim(), op);
  Rows xr = rows_of(x, d);
  Tensor idx = empty({xr.rows, xr.n}, TensorOptions(kLong));
  const double* xp = ops::host_ptr<double>(xr.data);
  int64_t* ip = ops::host_ptr<int64_t>(idx);
  for (int64_t r = 0; r < xr.rows; ++r) {
    int64_t best = 0;
    for (int64_t k = 0; k < xr.n; ++k) {
      const double v = xp[r * xr.n + k], b = xp[r * xr.n + best];
      if (std::isnan(v) || (!std::isnan(b) && (is_max ? v >= b : v <= b))) best = k;
      ip[r * xr.n + k] = best;
    }
  }
  Tensor indices = from_rows(idx, x, d, kLong);
  Tensor values = no_grad([&] { return x.dim() == 0 ? x.clone() : x.gather(d, indices); });
  ops::record_indexed_copy(is_max ? kCummaxBackward0 : kCumminBackward0, x, d, values, indices);
  return {values, indices};
}

// ---- trace, dist, renorm --------------------------------------------------------------------

struct TraceState {
  int64_t rows = 0, cols = 0;
};
// grad_self [rows, cols] = grad (0-d) on the diagonal.
variable_list trace_backward(OpNode<TraceState>& n, const variable_list& grads) {
  const Tensor& g = grads[0];
  return {g * eye(n.state.rows, n.state.cols, TensorOptions(g.scalar_type()).device(g.device()))};
}
constexpr NodeType<TraceState> kTraceBackward0{"TraceBackward0", trace_backward};

struct DistState {
  SavedVariable self, other, result;
  double p = 2;
  auto saved() { return std::tie(self, other, result); }
};
// dist = norm_p(self - other): grad_self = norm_grad(self - other), grad_other = -that.
variable_list dist_backward(OpNode<DistState>& n, const variable_list& grads) {
  Tensor a = n.get(n.state.self), b = n.get(n.state.other);
  Tensor diff = a - b;
  ReducedDims every(diff, ops::all_dims(diff.dim()), false);
  Tensor g = ops::norm_grad(every, diff, n.get(n.state.result), grads[0], n.state.p);
  if (!g.defined()) return {Tensor(), Tensor()};  // p = 0
  return {n.needs_input_grad(0) ? ops::grad_to(g, a.sizes()) : Tensor(),
          n.needs_input_grad(1) ? ops::grad_to(-g, b.sizes()) : Tensor()};
}
constexpr NodeType<DistState> kDistBackward0{"DistBackward0", dist_backward};

struct RenormState {
  SavedVariable self;
  double p = 2, maxnorm = 0;
  int64_t dim = 0;  // wrapped
  auto saved() { return std::tie(self); }
};
// Every dim but `dim`.
std::vector<int64_t> other_dims(int64_t ndim, int64_t dim) {
  std::vector<int64_t> others;
  for (int64_t i = 0; i < ndim; ++i)
    if (i != dim) others.push_back(i);
  return others;
}
// out = x * f(norm) with f = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1:
// grad = f grad - maxnorm / (norm + 1e-7)^2 * norm_grad(sum(grad * x)) where the norm is
// over maxnorm, else grad (LibTorch's renorm_backward).
variable_list renorm_backward(OpNode<RenormState>& n, const variable_list& grads) {
  const RenormState& s = n.state;
  Tensor x = n.get(s.self);
  const Tensor& g = grads[0];
  std::vector<bool> mask(static_cast<size_t>(x.dim()), true);
  mask[static_cast<size_t>(s.dim)] = false;
  ReducedDims slices(x, mask, /*keepdim=*/true);
  Tensor norm = x.norm(s.p, other_dims(x.dim(), s.dim), true);
  Tensor nb = ops::norm_grad(slices, x, norm, slices.sum_keep(g * x), s.p);
  Tensor inv = (norm + 1e-7).reciprocal();
  Tensor scaled = inv * s.maxnorm * (nb.defined() ? g - inv * nb : g);
  return {scaled.where(norm > s.maxnorm, g)};
}
constexpr NodeType<RenormState> kRenormBackward0{"RenormBackward0", renorm_backward};

}  // namespace

Tensor ops::nansum_impl(const Tensor& self, IntArrayRef dim, bool keepdim,
                        optional<ScalarType> dtype) {
  ops::check_defined(self, "nansum");
  auto mask = ops::reduce_mask(dim, self.dim(), "nansum");
  return with_node(
      kNansumBackward0, {&self},
      [&] {
        Tensor z =
            self.is_floating_point() ? nabla::where(self.isnan(), zeros_like(self), self) : self;
        return ops::reduce_to(ReduceOp::Sum, z, mask, keepdim,
                              ops::sum_dtype(self.scalar_type(), dtype));
      },
      [&](NansumState& s, const Tensor&) {
        s.reduced = ReducedDims(self, mask, keepdim);
        s.self = save(self);
      });
}
// LibTorch's nanmean is nansum / count (its node: DivBackward0).
Tensor ops::nanmean_impl(const Tensor& self, IntArrayRef dim, bool keepdim,
                         optional<ScalarType> dtype) {
  ops::check_defined(self, "nanmean");
  NABLA_CHECK(self.is_floating_point(),
              "nanmean(): expected input to have floating point dtype but got ",
              self.scalar_type());
  Tensor count = self.isnan().logical_not().sum(dim, keepdim);
  return self.nansum(dim, keepdim, dtype) / count;
}

Tensor ops::count_nonzero_impl(const Tensor& self, IntArrayRef dim) {
  ops::check_defined(self, "count_nonzero");
  return self.ne(0).sum(dim, false, kLong);
}
Tensor ops::count_nonzero_impl(const Tensor& self, optional<int64_t> dim) {
  if (dim) return nabla::count_nonzero(self, IntArrayRef{*dim});
  return self.ne(0).sum(kLong);
}

Tensor ops::cumprod_impl(const Tensor& self, int64_t dim, optional<ScalarType> dtype) {
  ops::check_defined(self, "cumprod");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "cumprod");
  const ScalarType t = ops::sum_dtype(self.scalar_type(), dtype);
  const Tensor x = ops::cast(self, t);
  return with_node(
      kCumprodBackward0, {&x},
      [&] {
        Rows xr = rows_of(x, d);
        double* p = ops::host_ptr<double>(xr.data);
        for (int64_t r = 0; r < xr.rows; ++r)
          for (int64_t k = 1; k < xr.n; ++k) p[r * xr.n + k] *= p[r * xr.n + k - 1];
        return from_rows(xr.data, x, d, t);
      },
      [&](ScanState& s, const Tensor&) {
        s.self = save(x);
        s.dim = d;
      });
}

// log(cumsum(exp(x - m))) + m with m the row's max (0 where infinite), without history.
Tensor ops::logcumsumexp_impl(const Tensor& self, int64_t dim) {
  ops::check_defined(self, "logcumsumexp");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "logcumsumexp");
  return with_node(
      kLogcumsumexpBackward0, {&self},
      [&] {
        if (self.numel() == 0) return self.clone();
        Tensor m = self.amax({d}, true);
        m = nabla::where(m.isinf(), zeros_like(m), m);
        return (self - m).exp().cumsum(d).log() + m;
      },
      [&](ScanState& s, const Tensor& out) {
        s.self = save(self);
        s.result = autograd::save_output(out);
        s.dim = d;
      });
}

std::tuple<Tensor, Tensor> ops::cummax_impl(const Tensor& self, int64_t dim) {
  return cum_extreme(self, dim, true, "cummax");
}
std::tuple<Tensor, Tensor> ops::cummin_impl(const Tensor& self, int64_t dim) {
  return cum_extreme(self, dim, false, "cummin");
}

// Differences along dim (composed of narrow and sub, as LibTorch: its node is SubBackward0).
Tensor ops::diff_impl(const Tensor& self, int64_t n, int64_t dim, const optional<Tensor>& prepend,
                      const optional<Tensor>& append) {
  ops::check_defined(self, "diff");
  NABLA_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  NABLA_CHECK(n >= 0, "order must be non-negative but got ", n);
  const int64_t d = ops::wrap_dim(dim, self.dim(), "diff");
  std::vector<Tensor> parts;
  if (prepend && prepend->defined()) parts.push_back(*prepend);
  parts.push_back(self);
  if (append && append->defined()) parts.push_back(*append);
  Tensor x = parts.size() == 1 ? self : cat(parts, d);
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const int64_t len = x.size(d) - 1;
    Tensor hi = x.narrow(d, 1, len), lo = x.narrow(d, 0, len);
    x = x.scalar_type() == kBool ? hi.logical_xor(lo) : hi - lo;
  }
  return x;
}

std::tuple<Tensor, Tensor> ops::aminmax_impl(const Tensor& self, optional<int64_t> dim,
                                             bool keepdim) {
  ops::check_defined(self, "aminmax");
  NABLA_CHECK(self.numel() > 0 || dim,
              "aminmax(): cannot compute aminmax over an empty tensor without a dim");
  if (!dim) {
    Tensor lo = self.min(), hi = self.max();
    if (keepdim) {
      DimVector ones_shape(static_cast<size_t>(self.dim()), 1);
      return {lo.view(ones_shape), hi.view(ones_shape)};
    }
    return {lo, hi};
  }
  return {self.amin({*dim}, keepdim), self.amax({*dim}, keepdim)};
}

Tensor ops::histc_impl(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  ops::check_defined(self, "histc");
  NABLA_CHECK(self.is_floating_point(), "histc: \"histogram_cpu\" not implemented for '",
              self.scalar_type(), "'");
  NABLA_CHECK(bins > 0, "histc: bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.toDouble(), hi = max.toDouble();
  NABLA_CHECK(lo <= hi, "histc: max must be larger than min");
  // Counted on the host (Note [Host reads]); the counts go back to this tensor's device.
  Tensor flat = self.detach().to(Device(kCPU), kDouble).contiguous().view({-1});
  const double* p = ops::host_ptr<double>(flat);
  const int64_t n = flat.numel();
  if (lo == hi && n > 0) {
    lo = *std::min_element(p, p + n);
    hi = *std::max_element(p, p + n);
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  NABLA_CHECK(std::isfinite(lo) && std::isfinite(hi), "histc: range of [", lo, ", ", hi,
              "] is not finite");
  std::vector<double> counts(static_cast<size_t>(bins), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const double v = p[i];
    if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
    int64_t b = static_cast<int64_t>((v - lo) * static_cast<double>(bins) / (hi - lo));
    if (b == bins) b = bins - 1;  // the last bin includes max
    counts[static_cast<size_t>(b)] += 1;
  }
  return tensor(counts, TensorOptions(kDouble)).to(self.device(), self.scalar_type());
}

Tensor ops::bincount_impl(const Tensor& self, const optional<Tensor>& weights, int64_t minlength) {
  ops::check_defined(self, "bincount");
  NABLA_CHECK(self.dim() == 1 && !self.is_floating_point() && self.scalar_type() != kBool,
              "bincount only supports 1-d non-negative integral inputs (got ", self.dim(),
              " dims of ", self.scalar_type(), ")");
  NABLA_CHECK(minlength >= 0, "bincount: minlength should be >= 0");
  const bool weighted = weights && weights->defined();
  if (weighted)
    NABLA_CHECK(weights->dim() == 1 && weights->size(0) == self.size(0),
                "bincount: weights should be 1-d and have the same length as input (got ",
                weights->sizes(), ")");
  Tensor idx =
      self.to(Device(kCPU), kLong).contiguous();  // counted on the host (Note [Host reads])
  const int64_t* ip = ops::host_ptr<int64_t>(idx);
  int64_t len = minlength;
  for (int64_t i = 0; i < self.numel(); ++i) {
    NABLA_CHECK(ip[i] >= 0, "bincount only supports 1-d non-negative integral inputs (found ",
                ip[i], ")");
    len = std::max(len, ip[i] + 1);
  }
  // LibTorch: float weights count in float32, others in float64; no weights in int64.
  const ScalarType out_type =
      !weighted ? kLong : (weights->scalar_type() == kFloat ? kFloat : kDouble);
  std::vector<double> acc(static_cast<size_t>(len), 0.0);
  Tensor w = weighted ? weights->detach().to(Device(kCPU), kDouble).contiguous() : Tensor();
  for (int64_t i = 0; i < self.numel(); ++i)
    acc[static_cast<size_t>(ip[i])] += weighted ? ops::host_ptr<double>(w)[i] : 1.0;
  return tensor(acc, TensorOptions(kDouble)).to(self.device(), out_type);
}

Tensor ops::trace_impl(const Tensor& self) {
  ops::check_defined(self, "trace");
  NABLA_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return with_node(
      kTraceBackward0, {&self}, [&] { return self.diagonal().sum(); },
      [&](TraceState& s, const Tensor&) {
        s.rows = self.size(0);
        s.cols = self.size(1);
      });
}

Tensor ops::dist_impl(const Tensor& self, const Tensor& other, const Scalar& p) {
  ops::check_defined(self, "dist");
  ops::check_defined(other, "dist (other)");
  return with_node(
      kDistBackward0, {&self, &other}, [&] { return (self - other).norm(p); },
      [&](DistState& s, const Tensor& out) {
        s.self = save(self);
        s.other = save(other);
        s.result = autograd::save_output(out);
        s.p = p.toDouble();
      });
}

Tensor ops::renorm_impl(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  ops::check_defined(self, "renorm");
  NABLA_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(),
              " dimensions");
  NABLA_CHECK(maxnorm.toDouble() >= 0, "renorm: expected maxnorm to be >= 0 but got ",
              maxnorm.toDouble());
  const int64_t d = ops::wrap_dim(dim, self.dim(), "renorm");
  const double mx = maxnorm.toDouble();
  return with_node(
      kRenormBackward0, {&self},
      [&] {
        Tensor norms = self.norm(p, other_dims(self.dim(), d), true);
        Tensor factor = nabla::where(norms > mx, mx / (norms + 1e-7), ones_like(norms));
        return self * factor;
      },
      [&](RenormState& s, const Tensor&) {
        s.self = save(self);
        s.p = p.toDouble();
        s.maxnorm = mx;
        s.dim = d;
      });
}

}  // namespace nabla
