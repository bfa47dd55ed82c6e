// Reductions over dims: sum, mean, prod, max/min (full and per dim), amax/amin,
// argmax/argmin, all/any. Dtype rules and empty-input errors are LibTorch 1.13's; the
// kernels are the backend's reduce and arg_reduce (Note [Reduction layout]).
#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/functions.h"
#include "ops/reduce_backward.h"
#include "ops/reduce_utils.h"

namespace nabla {

namespace ops {

std::vector<bool> reduce_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<bool> mask(ndim, dims.empty());
  std::vector<bool> seen(std::max<int64_t>(ndim, 1), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    NABLA_CHECK(!seen[w], op, ": dim ", w, " appears multiple times in the list of dims (got ",
                dims, ")");
    seen[w] = true;
    if (w < ndim) mask[w] = true;
  }
  return mask;
}

DimVector reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim) {
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d])
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

int64_t reduced_count(IntArrayRef sizes, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask[d]) n *= sizes[d];
  return n;
}

bool reduces_empty_dim(IntArrayRef sizes, const std::vector<bool>& mask) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask[d] && sizes[d] == 0) return true;
  return false;
}

Tensor reduce_to(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                 ScalarType dtype) {
  Tensor in = cast(x, dtype);
  Tensor out = empty_tensor(reduced_shape(x.sizes(), mask, true), dtype, x.device());
  DimVector dims;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(static_cast<int64_t>(d));
  backend_for(x).reduce(op, out, in, dims);
  return keepdim ? out : contiguous_view(out, reduced_shape(x.sizes(), mask, false));
}

Tensor contiguous_view(const Tensor& t, IntArrayRef shape) {
  NABLA_ASSERT(t.is_contiguous() && checked_numel(shape, "view") == t.numel(),
               "contiguous_view: bad shape ", shape, " for ", t.sizes());
  return make_view(t, shape, contiguous_strides(shape), t.storage_offset());
}

ScalarType sum_dtype(ScalarType in, optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return isIntegralType(in, /*include_bool=*/true) ? kLong : in;
}

}  // namespace ops

namespace {

using ops::reduce_mask;
using ops::reduce_to;

// mean: floating results only, as LibTorch (no silent integer division).
ScalarType mean_dtype(const Tensor& x, optional<ScalarType> dtype) {
  if (dtype) {
    NABLA_CHECK(isFloatingType(*dtype),
                "mean(): could not infer output dtype. Optional dtype must "
                "be either a floating point or complex dtype. Got: ",
                *dtype);
    return *dtype;
  }
  NABLA_CHECK(x.is_floating_point(),
              "mean(): could not infer output dtype. Input dtype must be "
              "either a floating point or complex dtype. Got: ",
              x.scalar_type());
  return x.scalar_type();
}

// Full max/min/amax/amin need at least one element.
void check_nonempty_full(const Tensor& x, const char* op) {
  NABLA_CHECK(x.numel() != 0, op,
              ": Expected reduction dim to be specified for input.numel() == 0. "
              "Specify the reduction dim with the 'dim' argument. (got sizes ",
              x.sizes(), ")");
}

void check_nonempty_dims(const Tensor& x, const std::vector<bool>& mask, const char* op) {
  for (int64_t d = 0; d < x.dim(); ++d)
    NABLA_CHECK(!mask[d] || x.size(d) != 0, op, ": Expected reduction dim ", d,
                " to have non-zero size (got sizes ", x.sizes(), ")");
}

Tensor amax_amin(const Tensor& x, IntArrayRef dim, bool keepdim, bool is_max, const char* op) {
  ops::check_defined(x, op);
  auto mask = reduce_mask(dim, x.dim(), op);
  if (dim.empty()) check_nonempty_full(x, op);
  check_nonempty_dims(x, mask, op);
  Tensor out = reduce_to(is_max ? ReduceOp::Max : ReduceOp::Min, x, mask, keepdim, x.scalar_type());
  ops::record_extremum(x, mask, keepdim, /*full=*/false, is_max, out);
  return out;
}

// (values, indices) of the max/min along one dim; ties give the first index, NaN wins.
std::tuple<Tensor, Tensor> arg_reduce(const Tensor& x, int64_t dim, bool keepdim, bool is_max,
                                      const char* op) {
  ops::check_defined(x, op);
  int64_t d = ops::wrap_dim(dim, x.dim(), op);
  if (x.dim() == 0) {
    Tensor values;
    {
      NoGradGuard no_grad;  // recorded as max(dim) below, not as a clone
      values = x.clone();
    }
    Tensor indices = ops::scalar_tensor(0, kLong, x.device());
    ops::record_select_dim(x, d, keepdim, is_max, values, indices);
    return {values, indices};
  }
  NABLA_CHECK(x.size(d) != 0, op, ": Expected reduction dim ", d,
              " to have non-zero size (got sizes ", x.sizes(), ")");
  std::vector<bool> mask(x.dim(), false);
  mask[d] = true;
  DimVector kshape = ops::reduced_shape(x.sizes(), mask, true);
  Tensor values = ops::empty_tensor(kshape, x.scalar_type(), x.device());
  Tensor indices = ops::empty_tensor(kshape, kLong, x.device());
  backend_for(x).arg_reduce(is_max, indices, values, x, d);
  if (!keepdim) {
    DimVector shape = ops::reduced_shape(x.sizes(), mask, false);
    values = ops::contiguous_view(values, shape);
    indices = ops::contiguous_view(indices, shape);
  }
  ops::record_select_dim(x, d, keepdim, is_max, values, indices);
  return {values, indices};
}

Tensor argmax_argmin(const Tensor& x, optional<int64_t> dim, bool keepdim, bool is_max,
                     const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.scalar_type() != kBool, op, ": not implemented for 'Bool' tensors (got sizes ",
              x.sizes(), "); convert to an integer dtype first");
  if (dim) {
    NoGradGuard no_grad;  // only the (non-differentiable) indices are returned
    return std::get<1>(arg_reduce(x, *dim, keepdim, is_max, op));
  }
  NABLA_CHECK(x.numel() != 0, op,
              ": Expected reduction dim to be specified for input.numel() == 0 "
              "(got sizes ",
              x.sizes(), ")");
  NoGradGuard no_grad;  // indices are not differentiable: record nothing
  Tensor flat = x.dim() == 0 ? ops::make_view(x, {1}, {1}, x.storage_offset()) : x.reshape({-1});
  Tensor index = std::get<1>(arg_reduce(flat, 0, false, is_max, op));
  if (!keepdim) return index;
  return ops::contiguous_view(index, DimVector(x.dim(), 1));  // LibTorch keeps every dim as size 1
}

Tensor logical_reduce(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool is_all) {
  Tensor r = reduce_to(is_all ? ReduceOp::All : ReduceOp::Any, x, mask, keepdim, kBool);
  return x.scalar_type() == kByte ? r.to(kByte) : r;  // uint8 in, uint8 out (LibTorch 1.13)
}

}  // namespace

Tensor Tensor::sum(optional<ScalarType> dtype) const {
  auto mask = ops::all_dims(dim());
  Tensor out = reduce_to(ReduceOp::Sum, *this, mask, false, ops::sum_dtype(scalar_type(), dtype));
  ops::record_sum(*this, mask, false, /*full=*/true, out);
  return out;
}
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) const {
  auto mask = reduce_mask(dim, this->dim(), "sum");
  Tensor out = reduce_to(ReduceOp::Sum, *this, mask, keepdim, ops::sum_dtype(scalar_type(), dtype));
  ops::record_sum(*this, mask, keepdim, /*full=*/false, out);
  return out;
}

namespace {
Tensor mean_impl(const Tensor& x, IntArrayRef dim, bool keepdim, optional<ScalarType> dtype,
                 bool full) {
  ScalarType t = mean_dtype(x, dtype);
  auto mask = reduce_mask(dim, x.dim(), "mean");
  Tensor out = reduce_to(ReduceOp::Sum, x, mask, keepdim, t);
  // count == 0 gives 0 / 0 = nan, as LibTorch. In place: `out` is a fresh tensor.
  Tensor count = ops::scalar_tensor(static_cast<double>(ops::reduced_count(x.sizes(), mask)), t);
  backend_for(out).binary(BinaryOp::Div, out, out, ops::expand_to(count, out.sizes()), 1);
  ops::record_mean(x, mask, keepdim, full, out);
  return out;
}
}  // namespace

Tensor Tensor::mean(optional<ScalarType> dtype) const {
  return mean_impl(*this, {}, false, dtype, /*full=*/true);
}
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) const {
  return mean_impl(*this, dim, keepdim, dtype, /*full=*/false);
}

Tensor Tensor::prod(optional<ScalarType> dtype) const {
  auto mask = ops::all_dims(dim());
  Tensor out = reduce_to(ReduceOp::Prod, *this, mask, false, ops::sum_dtype(scalar_type(), dtype));
  ops::record_prod(*this, mask, false, /*full=*/true, out);
  return out;
}
Tensor Tensor::prod(int64_t dim, bool keepdim, optional<ScalarType> dtype) const {
  auto mask = reduce_mask({dim}, this->dim(), "prod");
  Tensor out =
      reduce_to(ReduceOp::Prod, *this, mask, keepdim, ops::sum_dtype(scalar_type(), dtype));
  ops::record_prod(*this, mask, keepdim, /*full=*/false, out);
  return out;
}

Tensor Tensor::max() const {
  check_nonempty_full(*this, "max()");
  auto mask = ops::all_dims(dim());
  Tensor out = reduce_to(ReduceOp::Max, *this, mask, false, scalar_type());
  ops::record_extremum(*this, mask, false, /*full=*/true, /*is_max=*/true, out);
  return out;
}
Tensor Tensor::min() const {
  check_nonempty_full(*this, "min()");
  auto mask = ops::all_dims(dim());
  Tensor out = reduce_to(ReduceOp::Min, *this, mask, false, scalar_type());
  ops::record_extremum(*this, mask, false, /*full=*/true, /*is_max=*/false, out);
  return out;
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return arg_reduce(*this, dim, keepdim, true, "max()");
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return arg_reduce(*this, dim, keepdim, false, "min()");
}
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const {
  return amax_amin(*this, dim, keepdim, true, "amax()");
}
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const {
  return amax_amin(*this, dim, keepdim, false, "amin()");
}
Tensor Tensor::argmax(optional<int64_t> dim, bool keepdim) const {
  return argmax_argmin(*this, dim, keepdim, true, "argmax()");
}
Tensor Tensor::argmin(optional<int64_t> dim, bool keepdim) const {
  return argmax_argmin(*this, dim, keepdim, false, "argmin()");
}

Tensor Tensor::all() const { return logical_reduce(*this, ops::all_dims(dim()), false, true); }
Tensor Tensor::any() const { return logical_reduce(*this, ops::all_dims(dim()), false, false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return logical_reduce(*this, reduce_mask({dim}, this->dim(), "all"), keepdim, true);
}
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return logical_reduce(*this, reduce_mask({dim}, this->dim(), "any"), keepdim, false);
}

// ---- Free functions ------------------------------------------------------------------------
Tensor sum(const Tensor& x, optional<ScalarType> dtype) { return x.sum(dtype); }
Tensor sum(const Tensor& x, IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) {
  return x.sum(dim, keepdim, dtype);
}
Tensor mean(const Tensor& x, optional<ScalarType> dtype) { return x.mean(dtype); }
Tensor mean(const Tensor& x, IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) {
  return x.mean(dim, keepdim, dtype);
}
Tensor prod(const Tensor& x, optional<ScalarType> dtype) { return x.prod(dtype); }
Tensor prod(const Tensor& x, int64_t dim, bool keepdim, optional<ScalarType> dtype) {
  return x.prod(dim, keepdim, dtype);
}
Tensor max(const Tensor& x) { return x.max(); }
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return x.max(dim, keepdim);
}
Tensor min(const Tensor& x) { return x.min(); }
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return x.min(dim, keepdim);
}
Tensor amax(const Tensor& x, IntArrayRef dim, bool keepdim) { return x.amax(dim, keepdim); }
Tensor amin(const Tensor& x, IntArrayRef dim, bool keepdim) { return x.amin(dim, keepdim); }
Tensor argmax(const Tensor& x, optional<int64_t> dim, bool keepdim) {
  return x.argmax(dim, keepdim);
}
Tensor argmin(const Tensor& x, optional<int64_t> dim, bool keepdim) {
  return x.argmin(dim, keepdim);
}
Tensor all(const Tensor& x) { return x.all(); }
Tensor any(const Tensor& x) { return x.any(); }

}  // namespace nabla
