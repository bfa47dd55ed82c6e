// Scans and orderings along one dim: cumsum, sort, argsort, topk.
#include "nabla/ops/functions.h"
#include "ops/reduce_backward.h"
#include "ops/reduce_utils.h"

namespace nabla {

namespace {

// Kernels take a dim; a 0-d tensor is handled as one element of a 1-d tensor.
Tensor as_1d_if_scalar(const Tensor& t) {
  return t.dim() == 0 ? ops::make_view(t, {1}, {1}, t.storage_offset()) : t;
}

// Sorted (values, indices) of the first `k` elements along `dim` in the given order.
std::tuple<Tensor, Tensor> sorted_prefix(const Tensor& x, int64_t d, int64_t k, bool descending) {
  DimVector shape(x.sizes().begin(), x.sizes().end());
  if (x.dim() > 0) shape[d] = k;
  Tensor values = ops::empty_tensor(shape, x.scalar_type(), x.device());
  Tensor indices = ops::empty_tensor(shape, kLong, x.device());
  backend_for(x).sort(as_1d_if_scalar(values), as_1d_if_scalar(indices), as_1d_if_scalar(x),
                      x.dim() == 0 ? 0 : d, descending);
  return {values, indices};
}

}  // namespace

Tensor Tensor::cumsum(int64_t dim, optional<ScalarType> dtype) const {
  ops::check_defined(*this, "cumsum");
  int64_t d = ops::wrap_dim(dim, this->dim(), "cumsum");
  ScalarType t = ops::sum_dtype(scalar_type(), dtype);
  NABLA_CHECK(t != kBool, "cumsum: not implemented for 'Bool' output dtype (got input ",
              scalar_type(), " of sizes ", sizes(), "); use an integer dtype");
  Tensor in = ops::cast(*this, t);
  Tensor out = ops::empty_tensor(sizes(), t, device());
  backend_for(*this).cumsum(as_1d_if_scalar(out), as_1d_if_scalar(in), this->dim() == 0 ? 0 : d);
  ops::record_cumsum(*this, d, out);
  return out;
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  ops::check_defined(*this, "sort");
  int64_t d = ops::wrap_dim(dim, this->dim(), "sort");
  auto result = sorted_prefix(*this, d, this->dim() == 0 ? 1 : size(d), descending);
  ops::record_sort(*this, d, /*is_topk=*/false, std::get<0>(result), std::get<1>(result));
  return result;
}

Tensor Tensor::argsort(int64_t dim, bool descending) const {
  ops::check_defined(*this, "argsort");
  int64_t d = ops::wrap_dim(dim, this->dim(), "argsort");
  return std::get<1>(sorted_prefix(*this, d, this->dim() == 0 ? 1 : size(d), descending));
}

// Ties are returned in index order (LibTorch leaves their order unspecified); the result
// is always sorted, which `sorted = false` permits.
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  ops::check_defined(*this, "topk");
  int64_t d = ops::wrap_dim(dim, this->dim(), "topk");
  int64_t n = this->dim() == 0 ? 1 : size(d);
  NABLA_CHECK(k >= 0 && k <= n, "topk: selected index k out of range (k = ", k, ", but dim ", d,
              " of a tensor of sizes ", sizes(), " has ", n, " elements)");
  auto result = sorted_prefix(*this, d, k, largest);
  ops::record_sort(*this, d, /*is_topk=*/true, std::get<0>(result), std::get<1>(result));
  return result;
}

std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  ops::check_defined(*this, "kthvalue");
  int64_t d = ops::wrap_dim(dim, this->dim(), "kthvalue");
  int64_t n = this->dim() == 0 ? 1 : size(d);
  NABLA_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", d,
              " (k = ", k, ", the dimension has ", n, " elements; sizes ", sizes(), ")");
  auto [values, indices] = topk(k, d, /*largest=*/false);
  if (this->dim() == 0) return {values.view({}), indices.view({})};
  Tensor v = values.select(d, k - 1), i = indices.select(d, k - 1);
  if (keepdim) return {v.unsqueeze(d), i.unsqueeze(d)};
  return {v, i};
}

// ---- Free functions ------------------------------------------------------------------------
std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  return x.kthvalue(k, dim, keepdim);
}
Tensor cumsum(const Tensor& x, int64_t dim, optional<ScalarType> dtype) {
  return x.cumsum(dim, dtype);
}
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  return x.sort(dim, descending);
}
Tensor argsort(const Tensor& x, int64_t dim, bool descending) { return x.argsort(dim, descending); }
std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  return x.topk(k, dim, largest, sorted);
}

}  // namespace nabla
