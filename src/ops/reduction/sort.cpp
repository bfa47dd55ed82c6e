// Scans and orderings along one dim: cumsum, sort, argsort, topk, kthvalue, with their
// backward nodes and registry entries.
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/reduction/reduce_utils.h"
#include "ops/registry/registry_impl.h"

namespace nabla {

namespace {

// ---- Backward nodes -------------------------------------------------------------------------

struct CumsumState {
  int64_t dim = 0;     // wrapped
  int64_t length = 1;  // size along dim (1 for a 0-d input)
};
// The gradient of a prefix sum is the suffix sum of the gradient.
variable_list cumsum_backward(OpNode<CumsumState>& n, const variable_list& grads) {
  const int64_t d = n.state.dim;
  if (n.state.length <= 1) return {grads[0]};
  return {grads[0].flip({d}).cumsum(d).flip({d})};
}
constexpr NodeType<CumsumState> kCumsumBackward0{"CumsumBackward0", cumsum_backward};

constexpr NodeType<ops::IndexedCopy> kSortBackward0{"SortBackward0", ops::indexed_copy_backward};
constexpr NodeType<ops::IndexedCopy> kTopkBackward0{"TopkBackward0", ops::indexed_copy_backward};
constexpr NodeType<ops::ValueSelecting> kKthvalueBackward0{"KthvalueBackward0",
                                                           ops::value_selecting_backward};

// ---- Forwards -------------------------------------------------------------------------------

// Kernels take a dim; a 0-d tensor is handled as one element of a 1-d tensor.
Tensor as_1d_view_if_scalar(const Tensor& t) {
  return t.dim() == 0 ? ops::make_view(t, {1}, {1}, t.storage_offset()) : t;
}

// Sorted (values, indices) of the first `k` elements along `dim` in the given order.
std::tuple<Tensor, Tensor> sorted_prefix(const Tensor& x, int64_t d, int64_t k, bool descending) {
  DimVector shape(x.sizes().begin(), x.sizes().end());
  if (x.dim() > 0) shape[d] = k;
  Tensor values = ops::empty_tensor(shape, x.scalar_type(), x.device());
  Tensor indices = ops::empty_tensor(shape, kLong, x.device());
  backend_for(x).sort(as_1d_view_if_scalar(values), as_1d_view_if_scalar(indices),
                      as_1d_view_if_scalar(x), x.dim() == 0 ? 0 : d, descending);
  return {values, indices};
}

}  // namespace

Tensor Tensor::cumsum(int64_t dim, optional<ScalarType> dtype) const {
  NABLA_TRACED("cumsum", {*this}, {"dim", dim}, {"dtype", dtype});
  ops::check_defined(*this, "cumsum");
  int64_t d = ops::wrap_dim(dim, this->dim(), "cumsum");
  ScalarType t = ops::sum_dtype(scalar_type(), dtype);
  NABLA_CHECK(t != kBool, "cumsum: not implemented for 'Bool' output dtype (got input ",
              scalar_type(), " of sizes ", sizes(), "); use an integer dtype");
  Tensor in = ops::cast(*this, t);
  Tensor out = ops::empty_tensor(sizes(), t, device());
  backend_for(*this).cumsum(as_1d_view_if_scalar(out), as_1d_view_if_scalar(in),
                            this->dim() == 0 ? 0 : d);
  if (auto node = autograd::record_node(kCumsumBackward0, {this})) {
    node->state.dim = d;
    node->state.length = this->dim() == 0 ? 1 : size(d);
    autograd::set_history(out, node);
  }
  return out;
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  NABLA_TRACED("sort", {*this}, {"dim", dim}, {"descending", descending});
  ops::check_defined(*this, "sort");
  int64_t d = ops::wrap_dim(dim, this->dim(), "sort");
  auto result = sorted_prefix(*this, d, this->dim() == 0 ? 1 : size(d), descending);
  ops::record_indexed_copy(kSortBackward0, *this, d, std::get<0>(result), std::get<1>(result));
  return result;
}

Tensor Tensor::argsort(int64_t dim, bool descending) const {
  NABLA_TRACED("argsort", {*this}, {"dim", dim}, {"descending", descending});
  ops::check_defined(*this, "argsort");
  int64_t d = ops::wrap_dim(dim, this->dim(), "argsort");
  return std::get<1>(sorted_prefix(*this, d, this->dim() == 0 ? 1 : size(d), descending));
}

// Ties are returned in index order (LibTorch leaves their order unspecified); the result
// is always sorted, which `sorted = false` permits.
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  NABLA_TRACED("topk", {*this}, {"k", k}, {"dim", dim}, {"largest", largest}, {"sorted", sorted});
  ops::check_defined(*this, "topk");
  // LibTorch's kernel has no bool version (a 0-d input does not reach it).
  NABLA_CHECK(scalar_type() != kBool || this->dim() == 0,
              "topk: \"topk_cpu\" not implemented for 'Bool' (got sizes ", sizes(), ")");
  int64_t d = ops::wrap_dim(dim, this->dim(), "topk");
  int64_t n = this->dim() == 0 ? 1 : size(d);
  NABLA_CHECK(k >= 0 && k <= n, "topk: selected index k out of range (k = ", k, ", but dim ", d,
              " of a tensor of sizes ", sizes(), " has ", n, " elements)");
  auto result = sorted_prefix(*this, d, k, largest);
  ops::record_indexed_copy(kTopkBackward0, *this, d, std::get<0>(result), std::get<1>(result));
  return result;
}

std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  NABLA_TRACED("kthvalue", {*this}, {"k", k}, {"dim", dim}, {"keepdim", keepdim});
  ops::check_defined(*this, "kthvalue");
  int64_t d = ops::wrap_dim(dim, this->dim(), "kthvalue");
  int64_t n = this->dim() == 0 ? 1 : size(d);
  NABLA_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", d,
              " (k = ", k, ", the dimension has ", n, " elements; sizes ", sizes(), ")");
  Tensor values, indices;
  {
    NoGradGuard no_grad;  // recorded as one KthvalueBackward0 below
    auto [v, i] = sorted_prefix(*this, d, k, /*descending=*/false);
    if (this->dim() == 0) {
      values = v.view({});
      indices = i.view({});
    } else {
      values = v.select(d, k - 1).clone();
      indices = i.select(d, k - 1).clone();
      if (keepdim) {
        values = values.unsqueeze(d);
        indices = indices.unsqueeze(d);
      }
    }
  }
  ops::record_value_selecting(kKthvalueBackward0, *this, d, keepdim, values, indices);
  return {values, indices};
}

// ---- Free functions -------------------------------------------------------------------------
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

// ---- Registry entries -----------------------------------------------------------------------

namespace nabla::ops {

void registry::add_sort_ops(std::vector<OpSchema>& t) {
  const AttrSpec last_dim = attr("dim", AttrType::Int, int64_t(-1));
  const AttrSpec descending = attr("descending", AttrType::Bool, false);
  t.push_back(op("cumsum", 1, 1,
                 {required_attr("dim", AttrType::Int), optional_attr("dtype", AttrType::Dtype)},
                 [](const V& x, const AttrReader& a) -> V {
                   return {x[0].cumsum(a.i("dim"), a.has("dtype")
                                                       ? optional<ScalarType>(a.dtype("dtype"))
                                                       : nullopt)};
                 }));
  t.push_back(op("sort", 1, 1, {last_dim, descending}, [](const V& x, const AttrReader& a) -> V {
    return outputs(x[0].sort(a.i("dim"), a.b("descending")));
  }));
  t.push_back(op("argsort", 1, 1, {last_dim, descending}, [](const V& x, const AttrReader& a) -> V {
    return {x[0].argsort(a.i("dim"), a.b("descending"))};
  }));
  t.push_back(op("topk", 1, 1,
                 {required_attr("k", AttrType::Int), last_dim,
                  attr("largest", AttrType::Bool, true), attr("sorted", AttrType::Bool, true)},
                 [](const V& x, const AttrReader& a) -> V {
                   return outputs(x[0].topk(a.i("k"), a.i("dim"), a.b("largest"), a.b("sorted")));
                 }));
  t.push_back(
      op("kthvalue", 1, 1,
         {required_attr("k", AttrType::Int), last_dim, attr("keepdim", AttrType::Bool, false)},
         [](const V& x, const AttrReader& a) -> V {
           return outputs(x[0].kthvalue(a.i("k"), a.i("dim"), a.b("keepdim")));
         }));
}

}  // namespace nabla::ops
