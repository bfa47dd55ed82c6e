// Reductions over dims: sum, mean, prod, max/min (full and per dim), amax/amin,
// argmax/argmin, all/any, with their backward nodes and registry entries. Dtype rules and
// empty-input errors are LibTorch 1.13's; the kernels are the backend's reduce and
// arg_reduce (Note [Reduction layout]); node states hold Note [Reduced dims].
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/elementwise/float32_compute.h"
#include "ops/reduction/reduce_utils.h"
#include "ops/registry/registry_impl.h"

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

Tensor sum_impl(const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                optional<ScalarType> dtype, const NodeType<SumState>& type) {
  Tensor out = reduce_to(ReduceOp::Sum, x, mask, keepdim, ops::sum_dtype(x.scalar_type(), dtype));
  if (auto node = autograd::record_node(type, {&x})) {
    node->state.reduced = ReducedDims(x, mask, keepdim);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor mean_impl(const Tensor& x, IntArrayRef dim, bool keepdim, optional<ScalarType> dtype,
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

Tensor prod_impl(const Tensor& x, const std::vector<bool>& mask, bool keepdim,
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

Tensor Tensor::sum(optional<ScalarType> dtype) const {
  NABLA_TRACED("sum", {*this}, {"dtype", dtype});
  return sum_impl(*this, ops::all_dims(dim()), false, dtype, kSumBackward0);
}
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) const {
  NABLA_TRACED("sum", {*this}, {"dim", dim}, {"keepdim", keepdim}, {"dtype", dtype});
  return sum_impl(*this, reduce_mask(dim, this->dim(), "sum"), keepdim, dtype, kSumBackward1);
}
Tensor Tensor::mean(optional<ScalarType> dtype) const {
  NABLA_TRACED("mean", {*this}, {"dtype", dtype});
  return mean_impl(*this, {}, false, dtype, kMeanBackward0);
}
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, optional<ScalarType> dtype) const {
  NABLA_TRACED("mean", {*this}, {"dim", dim}, {"keepdim", keepdim}, {"dtype", dtype});
  return mean_impl(*this, dim, keepdim, dtype, kMeanBackward1);
}
Tensor Tensor::prod(optional<ScalarType> dtype) const {
  NABLA_TRACED("prod", {*this}, {"dtype", dtype});
  return prod_impl(*this, ops::all_dims(dim()), false, dtype, kProdBackward0);
}
Tensor Tensor::prod(int64_t dim, bool keepdim, optional<ScalarType> dtype) const {
  NABLA_TRACED("prod", {*this}, {"dim", dim}, {"keepdim", keepdim}, {"dtype", dtype});
  return prod_impl(*this, reduce_mask({dim}, this->dim(), "prod"), keepdim, dtype, kProdBackward1);
}

Tensor Tensor::max() const {
  NABLA_TRACED("max", {*this});
  check_nonempty_full(*this, "max()");
  return extremum(*this, ops::all_dims(dim()), false, true, kMaxBackward1);
}
Tensor Tensor::min() const {
  NABLA_TRACED("min", {*this});
  check_nonempty_full(*this, "min()");
  return extremum(*this, ops::all_dims(dim()), false, false, kMinBackward1);
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  NABLA_TRACED("max", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return arg_reduce(*this, dim, keepdim, true, "max()");
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  NABLA_TRACED("min", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return arg_reduce(*this, dim, keepdim, false, "min()");
}
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const {
  NABLA_TRACED("amax", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return amax_amin(*this, dim, keepdim, true, "amax()");
}
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const {
  NABLA_TRACED("amin", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return amax_amin(*this, dim, keepdim, false, "amin()");
}
Tensor Tensor::argmax(optional<int64_t> dim, bool keepdim) const {
  NABLA_TRACED("argmax", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return argmax_argmin(*this, dim, keepdim, true, "argmax()");
}
Tensor Tensor::argmin(optional<int64_t> dim, bool keepdim) const {
  NABLA_TRACED("argmin", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return argmax_argmin(*this, dim, keepdim, false, "argmin()");
}

Tensor Tensor::all() const {
  NABLA_TRACED("all", {*this});
  return logical_reduce(*this, ops::all_dims(dim()), false, true);
}
Tensor Tensor::any() const {
  NABLA_TRACED("any", {*this});
  return logical_reduce(*this, ops::all_dims(dim()), false, false);
}
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  NABLA_TRACED("all", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return logical_reduce(*this, reduce_mask({dim}, this->dim(), "all"), keepdim, true);
}
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  NABLA_TRACED("any", {*this}, {"dim", dim}, {"keepdim", keepdim});
  return logical_reduce(*this, reduce_mask({dim}, this->dim(), "any"), keepdim, false);
}

// ---- Free functions -------------------------------------------------------------------------
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

// ---- Registry entries -----------------------------------------------------------------------

namespace nabla::ops {

namespace {
// Ops whose overload without a dim has no keepdim (max(), all()).
void check_no_keepdim(const AttrReader& a, const char* name) {
  NABLA_CHECK(!a.b("keepdim"), name, ": keepdim = true needs a dim");
}
}  // namespace

void registry::add_reduction_ops(std::vector<OpSchema>& t) {
  const AttrSpec dims = optional_attr("dim", AttrType::IntList);
  const AttrSpec dim = optional_attr("dim", AttrType::Int);
  const AttrSpec keepdim = attr("keepdim", AttrType::Bool, false);
  const AttrSpec dtype = optional_attr("dtype", AttrType::Dtype);
  // sum / mean without `dim` are the overloads without dims (SumBackward0); with it (an
  // empty list included) the overloads over dims (SumBackward1), as LibTorch.
  t.push_back(op("sum", 1, 1, {dims, keepdim, dtype}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim") && !a.b("keepdim")) return {x[0].sum(dtype_of(a))};
    return {x[0].sum(a.has("dim") ? IntArrayRef(a.ints("dim")) : IntArrayRef(), a.b("keepdim"),
                     dtype_of(a))};
  }));
  t.push_back(op("mean", 1, 1, {dims, keepdim, dtype}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim") && !a.b("keepdim")) return {x[0].mean(dtype_of(a))};
    return {x[0].mean(a.has("dim") ? IntArrayRef(a.ints("dim")) : IntArrayRef(), a.b("keepdim"),
                      dtype_of(a))};
  }));
  t.push_back(op("prod", 1, 1, {dim, keepdim, dtype}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim")) {
      check_no_keepdim(a, "prod");
      return {x[0].prod(dtype_of(a))};
    }
    return {x[0].prod(a.i("dim"), a.b("keepdim"), dtype_of(a))};
  }));
  // max / min: one output without `dim`; (values, indices) with it.
  t.push_back(op("max", 1, 1, {dim, keepdim}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim")) {
      check_no_keepdim(a, "max");
      return {x[0].max()};
    }
    return outputs(x[0].max(a.i("dim"), a.b("keepdim")));
  }));
  t.push_back(op("min", 1, 1, {dim, keepdim}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim")) {
      check_no_keepdim(a, "min");
      return {x[0].min()};
    }
    return outputs(x[0].min(a.i("dim"), a.b("keepdim")));
  }));
  const AttrSpec dims_or_all = attr("dim", AttrType::IntList, std::vector<int64_t>{});
  t.push_back(op("amax", 1, 1, {dims_or_all, keepdim}, [](const V& x, const AttrReader& a) -> V {
    return {x[0].amax(a.ints("dim"), a.b("keepdim"))};
  }));
  t.push_back(op("amin", 1, 1, {dims_or_all, keepdim}, [](const V& x, const AttrReader& a) -> V {
    return {x[0].amin(a.ints("dim"), a.b("keepdim"))};
  }));
  t.push_back(op("argmax", 1, 1, {dim, keepdim}, [](const V& x, const AttrReader& a) -> V {
    return {x[0].argmax(a.has("dim") ? optional<int64_t>(a.i("dim")) : nullopt, a.b("keepdim"))};
  }));
  t.push_back(op("argmin", 1, 1, {dim, keepdim}, [](const V& x, const AttrReader& a) -> V {
    return {x[0].argmin(a.has("dim") ? optional<int64_t>(a.i("dim")) : nullopt, a.b("keepdim"))};
  }));
  t.push_back(op("all", 1, 1, {dim, keepdim}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim")) {
      check_no_keepdim(a, "all");
      return {x[0].all()};
    }
    return {x[0].all(a.i("dim"), a.b("keepdim"))};
  }));
  t.push_back(op("any", 1, 1, {dim, keepdim}, [](const V& x, const AttrReader& a) -> V {
    if (!a.has("dim")) {
      check_no_keepdim(a, "any");
      return {x[0].any()};
    }
    return {x[0].any(a.i("dim"), a.b("keepdim"))};
  }));
}

}  // namespace nabla::ops
