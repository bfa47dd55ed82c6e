// Reductions and scans of LibTorch composed from nabla's ops or computed row by row:
// nansum/nanmean, count_nonzero, cumprod, logcumsumexp, cummax/cummin, diff, median,
// nanmedian, mode, aminmax, histc, bincount, msort, trace, dist, renorm.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/composite.h"
#include "ops/reduce_utils.h"

namespace nabla {

using autograd::FormulaNode;
using autograd::variable_list;

namespace {

// `x` with `dim` moved last, as a contiguous float64 copy: rows of the scan are contiguous.
struct Rows {
  Tensor data;  // [rows, n] float64
  int64_t rows = 0, n = 0;
};
Rows rows_of(const Tensor& x, int64_t dim) {
  // A copy even when x is already contiguous float64: the scans write into it.
  Tensor t = (x.dim() == 0 ? x.view({1}) : x.movedim(dim, -1))
                 .detach()
                 .to(kDouble, false, /*copy=*/true)
                 .contiguous();
  Rows r;
  r.n = t.dim() == 0 ? 1 : t.size(-1);
  r.rows = r.n == 0 ? 0 : t.numel() / r.n;
  r.data = t.reshape({r.rows, r.n});
  return r;
}
// Values [rows, n] back to x's layout (dim moved back), in `dtype`.
Tensor from_rows(const Tensor& values, const Tensor& x, int64_t dim, ScalarType dtype) {
  if (x.dim() == 0) return values.view({}).to(dtype);
  DimVector moved(x.sizes().begin(), x.sizes().end());
  moved.erase(moved.begin() + dim);
  moved.push_back(x.size(dim));
  return values.view(moved).movedim(-1, dim).contiguous().to(dtype);
}

// cumprod's gradient, exact with zeros: d/dx_k = P(k-1) * S_k with P the prefix product
// and S_k = g_k + x_{k+1} S_{k+1} (O(n) per row). Under create_graph the differentiable
// form reverse_cumsum(g * out) / x is used (it needs x without zeros).
variable_list cumprod_bw(FormulaNode& n, const variable_list& g) {
  Tensor x = n.saved(0);
  const int64_t d = static_cast<int64_t>(n.a);  // with_formula stores the dim as the constant
  if (GradMode::is_enabled()) {
    NABLA_CHECK(!x.eq(0).any().item<bool>(),
                "cumprod: second derivatives through inputs holding zeros are not "
                "supported");
    Tensor out = x.cumprod(d);
    return {(g[0] * out).flip({d}).cumsum(d).flip({d}) / x};
  }
  Rows xr = rows_of(x, d), gr = rows_of(g[0], d);
  Tensor res = zeros({xr.rows, xr.n}, TensorOptions(kDouble));
  const double* xp = xr.data.data_ptr<double>();
  const double* gp = gr.data.data_ptr<double>();
  double* rp = res.data_ptr<double>();
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
const autograd::Formula kCumprod{"CumprodBackward0", cumprod_bw};

// Running extreme and its index along a row (ties take the later index, as LibTorch).
std::tuple<Tensor, Tensor> cum_extreme(const Tensor& x, int64_t dim, bool is_max, const char* op) {
  ops::check_defined(x, op);
  const int64_t d = ops::wrap_dim(dim, x.dim(), op);
  Rows xr = rows_of(x, d);
  Tensor idx = empty({xr.rows, xr.n}, TensorOptions(kLong));
  const double* xp = xr.data.data_ptr<double>();
  int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t r = 0; r < xr.rows; ++r) {
    int64_t best = 0;
    for (int64_t k = 0; k < xr.n; ++k) {
      const double v = xp[r * xr.n + k], b = xp[r * xr.n + best];
      if (std::isnan(v) || (!std::isnan(b) && (is_max ? v >= b : v <= b))) best = k;
      ip[r * xr.n + k] = best;
    }
  }
  Tensor indices = from_rows(idx, x, d, kLong);
  if (x.dim() == 0) return {x.clone(), indices};
  return {x.gather(d, indices), indices};  // the gather gives the gradient (a scatter-add)
}

// Median of each row (lower median; NaN if the row has one, unless ignore_nan).
std::tuple<Tensor, Tensor> median_impl(const Tensor& x, int64_t dim, bool keepdim, bool ignore_nan,
                                       const char* op) {
  ops::check_defined(x, op);
  const int64_t d = ops::wrap_dim(dim, x.dim(), op);
  const int64_t n = x.dim() == 0 ? 1 : x.size(d);
  NABLA_CHECK(n > 0, op, ": cannot compute the median of an empty dimension (dim ", d, " of sizes ",
              x.sizes(), ")");
  auto [sorted, order] =
      x.dim() == 0 ? std::tuple<Tensor, Tensor>{x.view({1}), zeros({1}, TensorOptions(kLong))}
                   : x.sort(d);
  const int64_t sd = x.dim() == 0 ? 0 : d;
  // NaN sorts last: the count of non-NaN values per row picks the position.
  Tensor valid = sorted.isnan().logical_not().sum({sd}, true);
  Tensor pos = ignore_nan ? ((valid - 1).clamp_min(0) / 2).floor().to(kLong)
                          : nabla::where(valid < n, valid, full_like(valid, (n - 1) / 2));
  if (!ignore_nan) pos = pos.to(kLong);
  Tensor values = sorted.gather(sd, pos), indices = order.gather(sd, pos);
  if (x.dim() == 0) return {values.view({}), indices.view({})};
  if (!keepdim) return {values.squeeze(d), indices.squeeze(d)};
  return {values, indices};
}

}  // namespace

Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) const {
  ops::check_defined(*this, "nansum");
  Tensor z = is_floating_point() ? nabla::where(isnan(), zeros_like(*this), *this) : *this;
  return dim.empty() ? (keepdim ? z.sum(IntArrayRef{}, true, dtype) : z.sum(dtype))
                     : z.sum(dim, keepdim, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) const {
  ops::check_defined(*this, "nanmean");
  NABLA_CHECK(is_floating_point(),
              "nanmean(): expected input to have floating point dtype but got ", scalar_type());
  Tensor count = isnan().logical_not().sum(dim, keepdim);
  return nansum(dim, keepdim, dtype) / count;
}

Tensor Tensor::count_nonzero(IntArrayRef dim) const {
  ops::check_defined(*this, "count_nonzero");
  return ne(0).sum(dim, false, kLong);
}
Tensor Tensor::count_nonzero(optional<int64_t> dim) const {
  if (dim) return count_nonzero(IntArrayRef{*dim});
  return ne(0).sum(kLong);
}

Tensor Tensor::cumprod(int64_t dim, optional<ScalarType> dtype) const {
  ops::check_defined(*this, "cumprod");
  const int64_t d = ops::wrap_dim(dim, this->dim(), "cumprod");
  const ScalarType t = ops::sum_dtype(scalar_type(), dtype);
  const Tensor x = ops::cast(*this, t);
  return ops::with_formula(
      kCumprod, {&x},
      [&] {
        Rows xr = rows_of(x, d);
        double* p = xr.data.data_ptr<double>();
        for (int64_t r = 0; r < xr.rows; ++r)
          for (int64_t k = 1; k < xr.n; ++k) p[r * xr.n + k] *= p[r * xr.n + k - 1];
        return from_rows(xr.data, x, d, t);
      },
      static_cast<double>(d));
}
const Tensor& Tensor::cumprod_(int64_t dim, optional<ScalarType> dtype) const {
  return ops::inplace_from(*this, "cumprod_",
                           [&](const Tensor& x) { return x.cumprod(dim, dtype); });
}

Tensor Tensor::logcumsumexp(int64_t dim) const {
  ops::check_defined(*this, "logcumsumexp");
  const int64_t d = ops::wrap_dim(dim, this->dim(), "logcumsumexp");
  if (numel() == 0) return clone();
  Tensor m = amax({d}, true).detach();
  m = nabla::where(m.isinf(), zeros_like(m), m);
  return (*this - m).exp().cumsum(d).log() + m;
}

std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return cum_extreme(*this, dim, true, "cummax");
}
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return cum_extreme(*this, dim, false, "cummin");
}

Tensor Tensor::diff(int64_t n, int64_t dim, const optional<Tensor>& prepend,
                    const optional<Tensor>& append) const {
  ops::check_defined(*this, "diff");
  NABLA_CHECK(this->dim() >= 1, "diff expects input to be at least one-dimensional");
  NABLA_CHECK(n >= 0, "order must be non-negative but got ", n);
  const int64_t d = ops::wrap_dim(dim, this->dim(), "diff");
  std::vector<Tensor> parts;
  if (prepend && prepend->defined()) parts.push_back(*prepend);
  parts.push_back(*this);
  if (append && append->defined()) parts.push_back(*append);
  Tensor x = parts.size() == 1 ? *this : cat(parts, d);
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const int64_t len = x.size(d) - 1;
    Tensor hi = x.narrow(d, 1, len), lo = x.narrow(d, 0, len);
    x = x.scalar_type() == kBool ? hi.logical_xor(lo) : hi - lo;
  }
  return x;
}

Tensor Tensor::median() const {
  ops::check_defined(*this, "median");
  if (numel() == 0)
    return full({}, std::numeric_limits<double>::quiet_NaN(), TensorOptions(scalar_type()));
  return std::get<0>(median_impl(reshape({-1}), 0, false, false, "median"));
}
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return median_impl(*this, dim, keepdim, false, "median");
}
Tensor Tensor::nanmedian() const {
  ops::check_defined(*this, "nanmedian");
  if (numel() == 0)
    return full({}, std::numeric_limits<double>::quiet_NaN(), TensorOptions(scalar_type()));
  return std::get<0>(median_impl(reshape({-1}), 0, false, true, "nanmedian"));
}
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return median_impl(*this, dim, keepdim, true, "nanmedian");
}

std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  ops::check_defined(*this, "mode");
  const int64_t d = ops::wrap_dim(dim, this->dim(), "mode");
  const int64_t sd = this->dim() == 0 ? 0 : d;
  Tensor x = this->dim() == 0 ? view({1}) : *this;
  NABLA_CHECK(x.size(sd) > 0, "mode(): expected a non-empty dimension ", d, " (sizes ", sizes(),
              ")");
  auto [sorted, order] = x.sort(sd);
  Rows sr = rows_of(sorted, sd), orr = rows_of(order, sd);
  Tensor pos = empty({sr.rows, 1}, TensorOptions(kLong));
  const double* sp = sr.data.data_ptr<double>();
  const double* op = orr.data.data_ptr<double>();
  int64_t* pp = pos.data_ptr<int64_t>();
  for (int64_t r = 0; r < sr.rows; ++r) {
    const double* v = sp + r * sr.n;
    int64_t best = 0, best_len = 0;
    for (int64_t k = 0; k < sr.n;) {
      int64_t e = k;
      while (e + 1 < sr.n && v[e + 1] == v[k]) ++e;
      if (e - k + 1 > best_len) {  // the smallest value wins ties (strictly longer runs only)
        best_len = e - k + 1;
        // The run's largest original index, as LibTorch's CPU kernel reports it.
        int64_t last = k;
        for (int64_t j = k; j <= e; ++j)
          if (op[r * sr.n + j] > op[r * sr.n + last]) last = j;
        best = last;
      }
      k = e + 1;
    }
    pp[r] = best;
  }
  DimVector pshape(sorted.sizes().begin(), sorted.sizes().end());
  pshape[sd] = 1;
  // rows_of moved sd last; bring the position back as a size-1 dim at sd.
  DimVector moved(pshape.begin(), pshape.end());
  moved.erase(moved.begin() + sd);
  moved.push_back(1);
  Tensor p = pos.view(moved).movedim(-1, sd);
  Tensor values = sorted.gather(sd, p), indices = order.gather(sd, p);
  if (this->dim() == 0) return {values.view({}), indices.view({})};
  if (!keepdim) return {values.squeeze(d), indices.squeeze(d)};
  return {values, indices};
}

std::tuple<Tensor, Tensor> Tensor::aminmax(optional<int64_t> dim, bool keepdim) const {
  ops::check_defined(*this, "aminmax");
  NABLA_CHECK(numel() > 0 || dim,
              "aminmax(): cannot compute aminmax over an empty tensor without a dim");
  if (!dim) {
    Tensor lo = min(), hi = max();
    if (keepdim) {
      DimVector ones_shape(static_cast<size_t>(this->dim()), 1);
      return {lo.view(ones_shape), hi.view(ones_shape)};
    }
    return {lo, hi};
  }
  return {amin({*dim}, keepdim), amax({*dim}, keepdim)};
}

Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  ops::check_defined(*this, "histc");
  NABLA_CHECK(is_floating_point(), "histc: \"histogram_cpu\" not implemented for '", scalar_type(),
              "'");
  NABLA_CHECK(bins > 0, "histc: bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.toDouble(), hi = max.toDouble();
  NABLA_CHECK(lo <= hi, "histc: max must be larger than min");
  Tensor flat = detach().to(kDouble).contiguous().view({-1});
  const double* p = flat.data_ptr<double>();
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
  return tensor(counts, TensorOptions(kDouble)).to(scalar_type());
}

Tensor Tensor::bincount(const optional<Tensor>& weights, int64_t minlength) const {
  ops::check_defined(*this, "bincount");
  NABLA_CHECK(dim() == 1 && !is_floating_point() && scalar_type() != kBool,
              "bincount only supports 1-d non-negative integral inputs (got ", dim(), " dims of ",
              scalar_type(), ")");
  NABLA_CHECK(minlength >= 0, "bincount: minlength should be >= 0");
  const bool weighted = weights && weights->defined();
  if (weighted)
    NABLA_CHECK(weights->dim() == 1 && weights->size(0) == size(0),
                "bincount: weights should be 1-d and have the same length as input (got ",
                weights->sizes(), ")");
  Tensor idx = to(kLong).contiguous();
  const int64_t* ip = idx.data_ptr<int64_t>();
  int64_t len = minlength;
  for (int64_t i = 0; i < numel(); ++i) {
    NABLA_CHECK(ip[i] >= 0, "bincount only supports 1-d non-negative integral inputs (found ",
                ip[i], ")");
    len = std::max(len, ip[i] + 1);
  }
  // LibTorch: float weights count in float32, others in float64; no weights in int64.
  const ScalarType out_type =
      !weighted ? kLong : (weights->scalar_type() == kFloat ? kFloat : kDouble);
  std::vector<double> acc(static_cast<size_t>(len), 0.0);
  Tensor w = weighted ? weights->detach().to(kDouble).contiguous() : Tensor();
  for (int64_t i = 0; i < numel(); ++i)
    acc[static_cast<size_t>(ip[i])] += weighted ? w.data_ptr<double>()[i] : 1.0;
  return tensor(acc, TensorOptions(kDouble)).to(out_type);
}

Tensor Tensor::msort() const { return std::get<0>(sort(0)); }

Tensor Tensor::trace() const {
  ops::check_defined(*this, "trace");
  NABLA_CHECK(dim() == 2, "trace: expected a matrix, but got tensor with dim ", dim());
  return diagonal().sum();
}

Tensor Tensor::dist(const Tensor& other, const Scalar& p) const { return (*this - other).norm(p); }

Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  ops::check_defined(*this, "renorm");
  NABLA_CHECK(this->dim() > 1, "renorm: input needs at least 2 dimensions, got ", this->dim(),
              " dimensions");
  NABLA_CHECK(maxnorm.toDouble() >= 0, "renorm: expected maxnorm to be >= 0 but got ",
              maxnorm.toDouble());
  const int64_t d = ops::wrap_dim(dim, this->dim(), "renorm");
  std::vector<int64_t> others;
  for (int64_t i = 0; i < this->dim(); ++i)
    if (i != d) others.push_back(i);
  Tensor norms = norm(p, others, true);
  const double mx = maxnorm.toDouble();
  Tensor factor = nabla::where(norms > mx, mx / (norms + 1e-7), ones_like(norms));
  return *this * factor;
}
const Tensor& Tensor::renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ops::inplace_from(*this, "renorm_",
                           [&](const Tensor& x) { return x.renorm(p, dim, maxnorm); });
}

namespace {
// The slices of x along dim as rows of doubles (row i is slice i, flattened).
Rows slices_of(const Tensor& x, int64_t d) {
  Tensor t = x.detach().movedim(d, 0).to(kDouble).contiguous();
  Rows r;
  r.rows = t.size(0);
  r.n = r.rows == 0 ? 0 : t.numel() / r.rows;
  r.data = t.reshape({r.rows, r.n});
  return r;
}
// Groups of equal slices (in `order`) into unique values, inverse indices and counts.
std::tuple<Tensor, Tensor, Tensor> gather_unique(const Tensor& x, int64_t d, const Rows& r,
                                                 const std::vector<int64_t>& order, bool inverse,
                                                 bool counts) {
  const double* p = r.data.data_ptr<double>();
  auto same = [&](int64_t a, int64_t b) {
    return std::equal(p + a * r.n, p + (a + 1) * r.n, p + b * r.n);
  };
  std::vector<int64_t> firsts, count, inv(static_cast<size_t>(r.rows));
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || !same(order[i], order[i - 1])) {
      firsts.push_back(order[i]);
      count.push_back(0);
    }
    ++count.back();
    inv[static_cast<size_t>(order[i])] = static_cast<int64_t>(firsts.size()) - 1;
  }
  Tensor values = x.index_select(d, tensor(firsts, TensorOptions(kLong)));
  Tensor inv_t = inverse ? tensor(inv, TensorOptions(kLong)) : empty({0}, TensorOptions(kLong));
  Tensor cnt_t = counts ? tensor(count, TensorOptions(kLong)) : empty({0}, TensorOptions(kLong));
  return {values, inv_t, cnt_t};
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, bool,
                                              bool return_inverse, bool return_counts) {
  ops::check_defined(x, "unique_dim");
  const int64_t d = ops::wrap_dim(dim, x.dim(), "unique_dim");
  NoGradGuard no_grad;
  Rows r = slices_of(x, d);
  std::vector<int64_t> order(static_cast<size_t>(r.rows));
  for (int64_t i = 0; i < r.rows; ++i) order[static_cast<size_t>(i)] = i;
  const double* p = r.data.data_ptr<double>();
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(p + a * r.n, p + (a + 1) * r.n, p + b * r.n,
                                        p + (b + 1) * r.n);
  });
  return gather_unique(x, d, r, order, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse,
                                                      bool return_counts, optional<int64_t> dim) {
  ops::check_defined(x, "unique_consecutive");
  NoGradGuard no_grad;
  const Tensor input = dim ? x : x.reshape({-1});
  const int64_t d = dim ? ops::wrap_dim(*dim, x.dim(), "unique_consecutive") : 0;
  Rows r = slices_of(input, d);
  std::vector<int64_t> order(static_cast<size_t>(r.rows));
  for (int64_t i = 0; i < r.rows; ++i) order[static_cast<size_t>(i)] = i;
  auto [values, inverse, counts] = gather_unique(input, d, r, order, return_inverse, return_counts);
  if (return_inverse && !dim) inverse = inverse.view(x.sizes());
  return {values, inverse, counts};
}

}  // namespace nabla
