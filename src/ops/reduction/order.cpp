// Order statistics of LibTorch computed from a sort: median, nanmedian, mode, msort, and
// the unique slices (unique_dim, unique_consecutive), with their nodes (their schema
// rows: core/op_list/reduction.def). Values are computed without history; each
// differentiable op then records one node with LibTorch's name (formulas shared with
// max / max(dim), reduction/reduce_utils.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/reduction/reduce_utils.h"

namespace nabla {

namespace {

using ops::ReducedSelfResult;
using ops::Rows;
using ops::ValueSelecting;

// median() / nanmedian(): the gradient is shared among the elements equal to the value.
autograd::variable_list median_all_backward(autograd::OpNode<ReducedSelfResult>& n,
                                            const autograd::variable_list& grads) {
  return {ops::evenly_distribute(n.state.reduced, n.get(n.state.self), n.get(n.state.result),
                                 grads[0])};
}
constexpr NodeType<ReducedSelfResult> kMedianBackward0{"MedianBackward0", median_all_backward};
constexpr NodeType<ReducedSelfResult> kNanmedianBackward0{"NanmedianBackward0",
                                                          median_all_backward};
// The overloads with a dim send the gradient to the returned index.
constexpr NodeType<ValueSelecting> kMedianBackward1{"MedianBackward1",
                                                    ops::value_selecting_backward};
constexpr NodeType<ValueSelecting> kNanmedianBackward1{"NanmedianBackward1",
                                                       ops::value_selecting_backward};
constexpr NodeType<ValueSelecting> kModeBackward0{"ModeBackward0", ops::value_selecting_backward};

// Median of each row along the wrapped dim d (lower median; NaN if the row has one,
// unless ignore_nan), without history.
std::tuple<Tensor, Tensor> median_values(const Tensor& x, int64_t d, bool keepdim,
                                         bool ignore_nan) {
  NoGradGuard no_grad;
  const int64_t n = x.dim() == 0 ? 1 : x.size(d);
  auto [sorted, order] =
      x.dim() == 0 ? std::tuple<Tensor, Tensor>{x.view({1}), zeros({1}, x.options().dtype(kLong))}
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

std::tuple<Tensor, Tensor> median_dim(const Tensor& x, int64_t dim, bool keepdim, bool ignore_nan,
                                      const char* op) {
  ops::check_defined(x, op);
  const int64_t d = ops::wrap_dim(dim, x.dim(), op);
  NABLA_CHECK(x.dim() == 0 || x.size(d) > 0, op,
              ": cannot compute the median of an empty dimension (dim ", d, " of sizes ", x.sizes(),
              ")");
  auto [values, indices] = median_values(x, d, keepdim, ignore_nan);
  ops::record_value_selecting(ignore_nan ? kNanmedianBackward1 : kMedianBackward1, x, d, keepdim,
                              values, indices);
  return {values, indices};
}

Tensor median_all(const Tensor& x, bool ignore_nan, const char* op) {
  ops::check_defined(x, op);
  Tensor out =
      x.numel() == 0
          ? full({}, std::numeric_limits<double>::quiet_NaN(), TensorOptions(x.scalar_type()))
          : std::get<0>(median_values(x.detach().reshape({-1}), 0, false, ignore_nan));
  ops::record_self_result(ignore_nan ? kNanmedianBackward0 : kMedianBackward0, x,
                          ops::all_dims(x.dim()), false, out);
  return out;
}

// (values, indices) of the most frequent value of each row along the wrapped dim d.
std::tuple<Tensor, Tensor> mode_values(const Tensor& self, int64_t d, bool keepdim) {
  const int64_t sd = self.dim() == 0 ? 0 : d;
  Tensor x = self.dim() == 0 ? self.view({1}) : self;
  NABLA_CHECK(x.size(sd) > 0, "mode(): expected a non-empty dimension ", d, " (sizes ",
              self.sizes(), ")");
  auto [sorted, order] = x.sort(sd);
  Rows sr = ops::rows_of(sorted, sd), orr = ops::rows_of(order, sd);
  Tensor pos = empty({sr.rows, 1}, TensorOptions(kLong));
  const double* sp = ops::host_ptr<double>(sr.data);
  const double* op = ops::host_ptr<double>(orr.data);
  int64_t* pp = ops::host_ptr<int64_t>(pos);
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
  Tensor p = pos.view(moved).movedim(-1, sd).to(sorted.device());
  Tensor values = sorted.gather(sd, p), indices = order.gather(sd, p);
  if (self.dim() == 0) return {values.view({}), indices.view({})};
  if (!keepdim) return {values.squeeze(d), indices.squeeze(d)};
  return {values, indices};
}

}  // namespace

Tensor ops::median_impl(const Tensor& self) { return median_all(self, false, "median"); }
std::tuple<Tensor, Tensor> ops::median_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim(self, dim, keepdim, false, "median");
}
Tensor ops::nanmedian_impl(const Tensor& self) { return median_all(self, true, "nanmedian"); }
std::tuple<Tensor, Tensor> ops::nanmedian_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim(self, dim, keepdim, true, "nanmedian");
}

std::tuple<Tensor, Tensor> ops::mode_impl(const Tensor& self, int64_t dim, bool keepdim) {
  ops::check_defined(self, "mode");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "mode");
  auto [values, indices] = no_grad([&] { return mode_values(self, d, keepdim); });
  ops::record_value_selecting(kModeBackward0, self, d, keepdim, values, indices);
  return {values, indices};
}

Tensor ops::msort_impl(const Tensor& self) { return std::get<0>(self.sort(0)); }

namespace {
// The slices of x along dim as rows of doubles (row i is slice i, flattened).
ops::Rows slices_of(const Tensor& x, int64_t d) {
  Tensor t = x.detach().movedim(d, 0).to(Device(kCPU), kDouble).contiguous();  // read on the host
  ops::Rows r;
  r.rows = t.size(0);
  r.n = r.rows == 0 ? 0 : t.numel() / r.rows;
  r.data = t.reshape({r.rows, r.n});
  return r;
}
// Groups of equal slices (in `order`) into unique values, inverse indices and counts.
std::tuple<Tensor, Tensor, Tensor> gather_unique(const Tensor& x, int64_t d, const ops::Rows& r,
                                                 const std::vector<int64_t>& order, bool inverse,
                                                 bool counts) {
  const double* p = ops::host_ptr<double>(r.data);
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
  const TensorOptions on = TensorOptions(kLong).device(x.device());
  Tensor values = x.index_select(d, tensor(firsts, on));
  Tensor inv_t = inverse ? tensor(inv, on) : empty({0}, on);
  Tensor cnt_t = counts ? tensor(count, on) : empty({0}, on);
  return {values, inv_t, cnt_t};
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> ops::unique_dim_impl(const Tensor& x, int64_t dim, bool sorted,
                                                        bool return_inverse, bool return_counts) {
  ops::check_defined(x, "unique_dim");
  const int64_t d = ops::wrap_dim(dim, x.dim(), "unique_dim");
  NoGradGuard no_grad;
  ops::Rows r = slices_of(x, d);
  std::vector<int64_t> order(static_cast<size_t>(r.rows));
  for (int64_t i = 0; i < r.rows; ++i) order[static_cast<size_t>(i)] = i;
  const double* p = ops::host_ptr<double>(r.data);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(p + a * r.n, p + (a + 1) * r.n, p + b * r.n,
                                        p + (b + 1) * r.n);
  });
  return gather_unique(x, d, r, order, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> ops::unique_consecutive_impl(const Tensor& x,
                                                                bool return_inverse,
                                                                bool return_counts,
                                                                optional<int64_t> dim) {
  ops::check_defined(x, "unique_consecutive");
  NoGradGuard no_grad;
  const Tensor input = dim ? x : x.reshape({-1});
  const int64_t d = dim ? ops::wrap_dim(*dim, x.dim(), "unique_consecutive") : 0;
  ops::Rows r = slices_of(input, d);
  std::vector<int64_t> order(static_cast<size_t>(r.rows));
  for (int64_t i = 0; i < r.rows; ++i) order[static_cast<size_t>(i)] = i;
  auto [values, inverse, counts] = gather_unique(input, d, r, order, return_inverse, return_counts);
  if (return_inverse && !dim) inverse = inverse.view(x.sizes());
  return {values, inverse, counts};
}

}  // namespace nabla
