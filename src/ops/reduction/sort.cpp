// Scans and orderings along one dim: cumsum, sort, argsort, topk, kthvalue (schema rows:
// core/op_list/reduction.def), with their backward nodes.
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/reduction/reduce_utils.h"

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

Tensor ops::cumsum_impl(const Tensor& self, int64_t dim, optional<ScalarType> dtype) {
  ops::check_defined(self, "cumsum");
  int64_t d = ops::wrap_dim(dim, self.dim(), "cumsum");
  ScalarType t = ops::sum_dtype(self.scalar_type(), dtype);
  NABLA_CHECK(t != kBool, "cumsum: not implemented for 'Bool' output dtype (got input ",
              self.scalar_type(), " of sizes ", self.sizes(), "); use an integer dtype");
  Tensor in = ops::cast(self, t);
  Tensor out = ops::empty_tensor(self.sizes(), t, self.device());
  backend_for(self).cumsum(as_1d_view_if_scalar(out), as_1d_view_if_scalar(in),
                           self.dim() == 0 ? 0 : d);
  if (auto node = autograd::record_node(kCumsumBackward0, {&self})) {
    node->state.dim = d;
    node->state.length = self.dim() == 0 ? 1 : self.size(d);
    autograd::set_history(out, node);
  }
  return out;
}

std::tuple<Tensor, Tensor> ops::sort_impl(const Tensor& self, int64_t dim, bool descending) {
  ops::check_defined(self, "sort");
  int64_t d = ops::wrap_dim(dim, self.dim(), "sort");
  auto result = sorted_prefix(self, d, self.dim() == 0 ? 1 : self.size(d), descending);
  ops::record_indexed_copy(kSortBackward0, self, d, std::get<0>(result), std::get<1>(result));
  return result;
}

Tensor ops::argsort_impl(const Tensor& self, int64_t dim, bool descending) {
  ops::check_defined(self, "argsort");
  int64_t d = ops::wrap_dim(dim, self.dim(), "argsort");
  return std::get<1>(sorted_prefix(self, d, self.dim() == 0 ? 1 : self.size(d), descending));
}

// Ties are returned in index order (LibTorch leaves their order unspecified); the result
// is always sorted, which `sorted = false` permits.
std::tuple<Tensor, Tensor> ops::topk_impl(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                          bool sorted) {
  ops::check_defined(self, "topk");
  // LibTorch's kernel has no bool version (a 0-d input does not reach it).
  NABLA_CHECK(self.scalar_type() != kBool || self.dim() == 0,
              "topk: \"topk_cpu\" not implemented for 'Bool' (got sizes ", self.sizes(), ")");
  int64_t d = ops::wrap_dim(dim, self.dim(), "topk");
  int64_t n = self.dim() == 0 ? 1 : self.size(d);
  NABLA_CHECK(k >= 0 && k <= n, "topk: selected index k out of range (k = ", k, ", but dim ", d,
              " of a tensor of sizes ", self.sizes(), " has ", n, " elements)");
  auto result = sorted_prefix(self, d, k, largest);
  ops::record_indexed_copy(kTopkBackward0, self, d, std::get<0>(result), std::get<1>(result));
  return result;
}

std::tuple<Tensor, Tensor> ops::kthvalue_impl(const Tensor& self, int64_t k, int64_t dim,
                                              bool keepdim) {
  ops::check_defined(self, "kthvalue");
  int64_t d = ops::wrap_dim(dim, self.dim(), "kthvalue");
  int64_t n = self.dim() == 0 ? 1 : self.size(d);
  NABLA_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", d,
              " (k = ", k, ", the dimension has ", n, " elements; sizes ", self.sizes(), ")");
  Tensor values, indices;
  {
    NoGradGuard no_grad;  // recorded as one KthvalueBackward0 below
    auto [v, i] = sorted_prefix(self, d, k, /*descending=*/false);
    if (self.dim() == 0) {
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
  ops::record_value_selecting(kKthvalueBackward0, self, d, keepdim, values, indices);
  return {values, indices};
}

}  // namespace nabla
