// Reductions over dims: sum, mean, prod, max/min (full and per dim), amax/amin,
// argmax/argmin, all/any (schema rows: core/op_list/reduction.def), with their backward
// nodes. Dtype rules and
// empty-input errors are LibTorch 1.13's; the kernels are the backend's reduce and
// arg_reduce (Note [Reduction layout]); node states hold Note [Reduced dims].
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/elementwise/float32_compute.h"
#include "ops/reduction/reduce_utils.h"

namespace nabla {

namespace {

// ---- sum, mean: states and formulas ---------------------------------------------------------

struct SumState {
  ReducedDims reduced;
};
struct MeanState {
  ReducedDims reduced;
  int64_t count = 0;  // elements per output
};

// grad_self [self_sizes] = grad [out] with the reduced dims restored, expanded.
variable_list sum_backward(OpNode<SumState>& n, const variable_list& grads) {
  const ReducedDims& r = n.state.reduced;
  return {r.restore(grads[0]).expand(r.self_sizes)};
}
// grad_self = grad / count, expanded (divided first: fewer flops).
variable_list mean_backward(OpNode<MeanState>& n, const variable_list& grads) {
  const ReducedDims& r = n.state.reduced;
  return {r.restore(grads[0] / static_cast<double>(n.state.count)).expand(r.self_sizes)};
}
// LibTorch numbers the overload without dims 0 and the one with dims 1.
constexpr NodeType<SumState> kSumBackward0{"SumBackward0", sum_backward};
constexpr NodeType<SumState> kSumBackward1{"SumBackward1", sum_backward};
constexpr NodeType<MeanState> kMeanBackward0{"MeanBackward0", mean_backward};
constexpr NodeType<MeanState> kMeanBackward1{"MeanBackward1", mean_backward};

// ---- prod -----------------------------------------------------------------------------------

// Without zeros d out / d x_i = out / x_i. With zeros that quotient is 0/0, so the product
// of the nonzero elements (pz) is used instead: one zero gives pz at the zero and 0
// elsewhere, two or more give 0 everywhere. The zero elements themselves enter as factors
// (zs, always 0 in value) so that the second derivative is right too.
variable_list prod_backward(OpNode<ReducedSelfResult>& n, const variable_list& grads) {
  const ReducedDims& r = n.state.reduced;
  Tensor x = n.get(n.state.self), out = n.get(n.state.result);
  Tensor gk = r.restore(grads[0]);
  Tensor is_zero = x == 0;
  if (!is_zero.any().item<bool>()) return {gk * r.restore(out) / x};
  Tensor one = ops::scalar_tensor(1, x.scalar_type(), x.device());
  Tensor zero = ops::zero_like_scalar(x);
  Tensor count = r.sum_keep(is_zero);   // zeros per output
  Tensor x_nz = one.where(is_zero, x);  // zeros replaced by 1
  // The nonzero product; a reduction over every dim gives it 0-d, as the forward.
  Tensor pz = r.every_dim() ? x_nz.prod() : x_nz.prod(r.dims[0], true);
  Tensor zs = r.sum_keep(x * is_zero);  // sum of the zero elements (value 0)
  // Nonzero elements: pz / x_i times (1 without zeros, the zero itself with one, else 0).
  Tensor at_nonzero = one.where(count == 0, zs.where(count == 1, zero));
  // Zero elements: pz times (1 with one zero, the other zero with two, else 0).
  Tensor at_zero = one.where(count == 1, (zs - x).where(count == 2, zero));
  return {gk * (pz * at_zero).where(is_zero, pz / x_nz * at_nonzero)};
}
constexpr NodeType<ReducedSelfResult> kProdBackward0{"ProdBackward0", prod_backward};
constexpr NodeType<ReducedSelfResult> kProdBackward1{"ProdBackward1", prod_backward};

// ---- max / min / amax / amin ----------------------------------------------------------------
// Ties share the gradient evenly; max(dim) / min(dim) send it to the returned index.

variable_list extremum_backward(OpNode<ReducedSelfResult>& n, const variable_list& grads) {
  return {ops::evenly_distribute(n.state.reduced, n.get(n.state.self), n.get(n.state.result),
                                 grads[0])};
}
constexpr NodeType<ReducedSelfResult> kMaxBackward1{"MaxBackward1", extremum_backward};
constexpr NodeType<ReducedSelfResult> kMinBackward1{"MinBackward1", extremum_backward};
constexpr NodeType<ReducedSelfResult> kAmaxBackward0{"AmaxBackward0", extremum_backward};
constexpr NodeType<ReducedSelfResult> kAminBackward0{"AminBackward0", extremum_backward};
constexpr NodeType<ops::ValueSelecting> kMaxBackward0{"MaxBackward0",
                                                      ops::value_selecting_backward};
constexpr NodeType<ops::ValueSelecting> kMinBackward0{"MinBackward0",
                                                      ops::value_selecting_backward};

// ---- Forwards -------------------------------------------------------------------------------

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

Tensor sum_over(const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                optional<ScalarType> dtype, const NodeType<SumState>& type) {
  Tensor out = reduce_to(ReduceOp::Sum, x, mask, keepdim, ops::sum_dtype(x.scalar_type(), dtype));
  if (auto node = autograd::record_node(type, {&x})) {
    node->state.reduced = ReducedDims(x, mask, keepdim);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor mean_over(const Tensor& x, IntArrayRef dim, bool keepdim, optional<ScalarType> dtype,
                 const NodeType<MeanState>& type) {
  ScalarType t = mean_dtype(x, dtype);
  auto mask = reduce_mask(dim, x.dim(), "mean");
  // 16-bit floats: the sum and the division in float32, one rounding (Note [16-bit compute]).
  const ScalarType wide = ops::kernel_dtype(t);
  Tensor out = reduce_to(ReduceOp::Sum, x, mask, keepdim, wide);
  // count == 0 gives 0 / 0 = nan, as LibTorch. In place: `out` is a fresh tensor.
  const int64_t count = ops::reduced_count(x.sizes(), mask);
  Tensor divisor = ops::constant_scalar(static_cast<double>(count), wide, out.device());
  backend_for(out).binary(BinaryOp::Div, out, out, ops::expand_to(divisor, out.sizes()), 1);
  out = ops::cast(out, t);
  if (auto node = autograd::record_node(type, {&x})) {
    node->state.reduced = ReducedDims(x, mask, keepdim);
    node->state.count = count;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor prod_over(const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                 optional<ScalarType> dtype, const NodeType<ReducedSelfResult>& type) {
  Tensor out = reduce_to(ReduceOp::Prod, x, mask, keepdim, ops::sum_dtype(x.scalar_type(), dtype));
  ops::record_self_result(type, x, mask, keepdim, out);
  return out;
}

Tensor extremum(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool is_max,
                const NodeType<ReducedSelfResult>& type) {
  Tensor out = reduce_to(is_max ? ReduceOp::Max : ReduceOp::Min, x, mask, keepdim, x.scalar_type());
  ops::record_self_result(type, x, mask, keepdim, out);
  return out;
}

Tensor amax_amin(const Tensor& x, IntArrayRef dim, bool keepdim, bool is_max, const char* op) {
  ops::check_defined(x, op);
  auto mask = reduce_mask(dim, x.dim(), op);
  if (dim.empty()) check_nonempty_full(x, op);
  check_nonempty_dims(x, mask, op);
  return extremum(x, mask, keepdim, is_max, is_max ? kAmaxBackward0 : kAminBackward0);
}

// (values, indices) of the max/min along one dim; ties give the first index, NaN wins.
std::tuple<Tensor, Tensor> arg_reduce(const Tensor& x, int64_t dim, bool keepdim, bool is_max,
                                      const char* op) {
  ops::check_defined(x, op);
  int64_t d = ops::wrap_dim(dim, x.dim(), op);
  const auto& type = is_max ? kMaxBackward0 : kMinBackward0;
  if (x.dim() == 0) {
    Tensor values = no_grad([&] { return x.clone(); });  // recorded as max(dim) below
    Tensor indices = ops::scalar_tensor(0, kLong, x.device());
    ops::record_value_selecting(type, x, d, keepdim, values, indices);
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
  ops::record_value_selecting(type, x, d, keepdim, values, indices);
  return {values, indices};
}

Tensor argmax_argmin(const Tensor& x, optional<int64_t> dim, bool keepdim, bool is_max,
                     const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.scalar_type() != kBool, op, ": not implemented for 'Bool' tensors (got sizes ",
              x.sizes(), "); convert to an integer dtype first");
  NoGradGuard no_grad;  // indices are not differentiable: record nothing
  if (dim) return std::get<1>(arg_reduce(x, *dim, keepdim, is_max, op));
  NABLA_CHECK(x.numel() != 0, op,
              ": Expected reduction dim to be specified for input.numel() == 0 "
              "(got sizes ",
              x.sizes(), ")");
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

Tensor ops::sum_impl(const Tensor& self, optional<ScalarType> dtype) {
  return sum_over(self, ops::all_dims(self.dim()), false, dtype, kSumBackward0);
}
Tensor ops::sum_impl(const Tensor& self, IntArrayRef dim, bool keepdim,
                     optional<ScalarType> dtype) {
  return sum_over(self, reduce_mask(dim, self.dim(), "sum"), keepdim, dtype, kSumBackward1);
}
Tensor ops::mean_impl(const Tensor& self, optional<ScalarType> dtype) {
  return mean_over(self, {}, false, dtype, kMeanBackward0);
}
Tensor ops::mean_impl(const Tensor& self, IntArrayRef dim, bool keepdim,
                      optional<ScalarType> dtype) {
  return mean_over(self, dim, keepdim, dtype, kMeanBackward1);
}
Tensor ops::prod_impl(const Tensor& self, optional<ScalarType> dtype) {
  return prod_over(self, ops::all_dims(self.dim()), false, dtype, kProdBackward0);
}
Tensor ops::prod_impl(const Tensor& self, int64_t dim, bool keepdim, optional<ScalarType> dtype) {
  return prod_over(self, reduce_mask({dim}, self.dim(), "prod"), keepdim, dtype, kProdBackward1);
}

Tensor ops::max_impl(const Tensor& self) {
  check_nonempty_full(self, "max()");
  return extremum(self, ops::all_dims(self.dim()), false, true, kMaxBackward1);
}
Tensor ops::min_impl(const Tensor& self) {
  check_nonempty_full(self, "min()");
  return extremum(self, ops::all_dims(self.dim()), false, false, kMinBackward1);
}
std::tuple<Tensor, Tensor> ops::max_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_reduce(self, dim, keepdim, true, "max()");
}
std::tuple<Tensor, Tensor> ops::min_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_reduce(self, dim, keepdim, false, "min()");
}
Tensor ops::amax_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_amin(self, dim, keepdim, true, "amax()");
}
Tensor ops::amin_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_amin(self, dim, keepdim, false, "amin()");
}
Tensor ops::argmax_impl(const Tensor& self, optional<int64_t> dim, bool keepdim) {
  return argmax_argmin(self, dim, keepdim, true, "argmax()");
}
Tensor ops::argmin_impl(const Tensor& self, optional<int64_t> dim, bool keepdim) {
  return argmax_argmin(self, dim, keepdim, false, "argmin()");
}

Tensor ops::all_impl(const Tensor& self) {
  return logical_reduce(self, ops::all_dims(self.dim()), false, true);
}
Tensor ops::any_impl(const Tensor& self) {
  return logical_reduce(self, ops::all_dims(self.dim()), false, false);
}
Tensor ops::all_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return logical_reduce(self, reduce_mask({dim}, self.dim(), "all"), keepdim, true);
}
Tensor ops::any_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return logical_reduce(self, reduce_mask({dim}, self.dim(), "any"), keepdim, false);
}

}  // namespace nabla
