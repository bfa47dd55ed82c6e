// index_select, gather, scatter and scatter_add (schema rows: core/op_list/indexing.def)
// with their in-place forms and backward nodes. Shared helpers and notes:
// ops/indexing_utils.h.
#include <algorithm>
#include <string>
#include <tuple>

#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/functions.h"
#include "ops/indexing/indexing_utils.h"

namespace nabla {

using ops::empty_tensor;
using ops::indexed_copy_add_backward;
using ops::IndexedCopy;
using ops::record_indexed_copy;
using ops::wrap_dim;
using namespace ops::indexing;

namespace {

// Gather/scatter treat a 0-d tensor as having one dim of size 1 (LibTorch's
// ensure_nonempty_dim / ensure_nonempty_size).
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }
Tensor as_1d_if_scalar(const Tensor& t) { return t.dim() == 0 ? reshape_any(t, {1}) : t; }

// Raises unless every value of the int64 tensor `index` lies in [0, size).
void check_index_values(const Tensor& index, int64_t size, int64_t dim, const char* op) {
  // Broadcast (stride 0) dims repeat the same values: check one copy of them.
  DimVector distinct(index.sizes().begin(), index.sizes().end());
  for (int64_t d = 0; d < index.dim(); ++d)
    if (index.stride(d) == 0) distinct[static_cast<size_t>(d)] = 1;
  ops::check_index_range(ops::make_view(index, distinct, index.strides(), index.storage_offset()),
                         0, size, {op, "index", str("dimension ", dim, " with size ", size)});
}

// `t` placed at the leading corner of a zero tensor of `shape` (each t.size(d) <=
// shape[d]): the gradient of src in scatter when index is smaller than src.
Tensor embed(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  IndexList coords;
  for (int64_t d = 0; d < t.dim(); ++d) {
    DimVector s(t.dim(), 1);
    s[d] = t.size(d);
    coords.emplace_back(arange(t.size(d), t.options().dtype(kLong)).view(s));
  }
  return zeros_like_of(shape, t).index_put(coords, t);
}

// ---- Backward ----------------------------------------------------------------------------
// The index is never differentiated (Note [Gradients of repeated indices]).

// index_select and gather: IndexedCopy (op_utils.h), the index saved as its indices.

// grad_self [self] = zeros with g [.., k, ..] added at rows index [k] of dim
// (index_add as a scatter_add with the index broadcast along the other dims: the
// scatter kernel walks memory in order whichever dim is indexed).
variable_list index_select_backward(OpNode<IndexedCopy>& n, const variable_list& g) {
  const IndexedCopy& s = n.state;
  if (s.self_sizes.empty()) return {g[0]};  // 0-d self: the one element was selected once
  DimVector shape(g[0].dim(), 1);
  shape[static_cast<size_t>(s.dim)] = g[0].size(s.dim);
  Tensor index = n.get(s.indices).reshape(shape).expand(g[0].sizes());
  return {zeros_like_of(s.self_sizes, g[0]).scatter_add(s.dim, index, g[0])};
}
constexpr NodeType<IndexedCopy> kIndexSelectBackward{"IndexSelectBackward0", index_select_backward};
// grad_self [self] = zeros.scatter_add(dim, index, g [index])
constexpr NodeType<IndexedCopy> kGatherBackward{"GatherBackward0", indexed_copy_add_backward};

/// scatter and scatter_add with a src tensor: the index (when a formula reads it), src's
/// sizes and the (wrapped) dim.
struct ScatterState {
  SavedVariable index;
  DimVector src_sizes;
  int64_t dim = 0;
  auto saved() { return std::tie(index); }
};

// grad_src = g.gather [index], placed into src's shape (zeros where index is smaller).
Tensor scatter_src_grad(OpNode<ScatterState>& n, const Tensor& g) {
  const ScatterState& s = n.state;
  return embed(g.gather(s.dim, n.get(s.index)), s.src_sizes);
}

// scatter: grad_self = g with the written positions zeroed; grad_src as above.
variable_list scatter_backward(OpNode<ScatterState>& n, const variable_list& g) {
  Tensor gs, gsrc;
  if (n.needs_input_grad(0)) gs = g[0].scatter(n.state.dim, n.get(n.state.index), 0);
  if (n.needs_input_grad(1)) gsrc = scatter_src_grad(n, g[0]);
  return {gs, gsrc};
}
constexpr NodeType<ScatterState> kScatterBackward{"ScatterBackward0", scatter_backward};

// scatter_add: grad_self = g; grad_src as for scatter.
variable_list scatter_add_backward(OpNode<ScatterState>& n, const variable_list& g) {
  Tensor gsrc;
  if (n.needs_input_grad(1)) gsrc = scatter_src_grad(n, g[0]);
  return {n.needs_input_grad(0) ? g[0] : Tensor(), gsrc};
}
constexpr NodeType<ScatterState> kScatterAddBackward{"ScatterAddBackward0", scatter_add_backward};

/// scatter with a Scalar value: the index and the (wrapped) dim.
struct ScatterValueState {
  SavedVariable index;
  int64_t dim = 0;
  auto saved() { return std::tie(index); }
};
// grad_self = g with the written positions zeroed.
variable_list scatter_value_backward(OpNode<ScatterValueState>& n, const variable_list& g) {
  return {g[0].scatter(n.state.dim, n.get(n.state.index), 0)};
}
constexpr NodeType<ScatterValueState> kScatterValueBackward{"ScatterBackward1",
                                                            scatter_value_backward};

void record_scatter(bool accumulate, const Tensor& self, int64_t dim, const Tensor& index,
                    const Tensor& src, const Tensor& out) {
  const auto& type = accumulate ? kScatterAddBackward : kScatterBackward;
  if (auto node = autograd::record_node(type, {&self, &src})) {
    // scatter_add's gradient for self is g itself: there the index is read only for src.
    if (!accumulate || autograd::requires_grad(src)) node->state.index = autograd::save(index);
    node->state.src_sizes.assign(src.sizes().begin(), src.sizes().end());
    node->state.dim = dim;
    autograd::set_history(out, node);
  }
}

}  // namespace

// ---- index_select / gather / scatter ----------------------------------------------------

Tensor ops::index_select_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  check_defined_self(self, "index_select");
  ops::check_defined(index, "index_select (index)");
  ops::check_same_device(self, index, "index_select");
  int64_t d = wrap_dim(dim, self.dim(), "index_select");
  NABLA_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt,
              "index_select(): Expected dtype int32 or int64 for index, got ", index.scalar_type());
  NABLA_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector, got sizes ",
              index.sizes());
  Tensor idx = reshape_any(ops::cast(index, kLong).contiguous(), {-1});
  Tensor self1 = as_1d_if_scalar(self);
  check_index_values(idx, self1.size(d), d, "index_select()");
  Tensor out;
  if (self.dim() == 0) {
    NABLA_CHECK(idx.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                idx.numel(), " value(s)");
    out = no_grad([&] { return self.clone(); });
  } else {
    DimVector shape(self.sizes().begin(), self.sizes().end());
    shape[d] = idx.numel();
    out = empty_tensor(shape, self.scalar_type(), self.device());
    backend_for(self).index_select(out, self, d, idx);
  }
  record_indexed_copy(kIndexSelectBackward, self, d, out, idx);
  return out;
}

namespace {

// Shared checks of gather/scatter: int64 index with self's number of dims, no larger
// than self outside `dim` (and than src everywhere, when given). Returns the wrapped dim.
int64_t check_gather_scatter(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor* src, const char* op) {
  check_defined_self(self, op);
  ops::check_defined(index, op);
  ops::check_same_device(self, index, op);
  int64_t d = wrap_dim(dim, self.dim(), op);
  NABLA_CHECK(index.scalar_type() == kLong, op, ": Expected dtype int64 for index, got ",
              index.scalar_type());
  NABLA_CHECK(nonempty_dim(index) == nonempty_dim(self), op,
              ": Index tensor must have the same number of dimensions as self tensor (index sizes ",
              index.sizes(), ", self sizes ", self.sizes(), ")");
  if (src) {
    NABLA_CHECK(
        nonempty_dim(index) == nonempty_dim(*src), op,
        ": Index tensor must have the same number of dimensions as src tensor (index sizes ",
        index.sizes(), ", src sizes ", src->sizes(), ")");
  }
  for (int64_t k = 0; k < nonempty_dim(self); ++k) {
    bool ok = k == d || nonempty_size(index, k) <= nonempty_size(self, k);
    if (src) ok = ok && nonempty_size(index, k) <= nonempty_size(*src, k);
    NABLA_CHECK(ok, op, ": Expected index ", index.sizes(), " to be smaller than self ",
                self.sizes(), " apart from dimension ", d,
                src ? str(" and to be smaller size than src ", src->sizes()) : std::string());
  }
  check_index_values(index, nonempty_size(self, d), d, op);
  return d;
}

const Tensor& scatter_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           bool accumulate, const char* op) {
  ops::check_defined(src, op);
  NABLA_CHECK(src.scalar_type() == self.scalar_type(), op,
              ": Expected self.dtype to be equal to src.dtype (self ", self.scalar_type(), ", src ",
              src.scalar_type(), ")");
  int64_t d = check_gather_scatter(self, dim, index, &src, op);
  Tensor s = src.impl()->storage() == self.impl()->storage() ? src.clone() : src;
  backend_for(self).scatter(as_1d_if_scalar(self), d, as_1d_if_scalar(index), as_1d_if_scalar(s),
                            accumulate);
  ops::bump_version(self);
  return self;
}

const Tensor& scatter_value_impl(const Tensor& self, int64_t dim, const Tensor& index,
                                 const Scalar& value, const char* op) {
  int64_t d = check_gather_scatter(self, dim, index, nullptr, op);
  Tensor idx = as_1d_if_scalar(index);
  Tensor src = ops::scalar_tensor(value, self.scalar_type(), self.device()).expand(idx.sizes());
  backend_for(self).scatter(as_1d_if_scalar(self), d, idx, src, false);
  ops::bump_version(self);
  return self;
}

}  // namespace

Tensor ops::gather_impl(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  int64_t d = check_gather_scatter(self, dim, index, nullptr, "gather()");
  Tensor out = empty_tensor(index.sizes(), self.scalar_type(), self.device());
  backend_for(self).gather(as_1d_if_scalar(out), as_1d_if_scalar(self), d, as_1d_if_scalar(index));
  record_indexed_copy(kGatherBackward, self, d, out, index);
  return out;
}

// 16-bit floats go the way of autograd: the out-of-place op computes through float32
// (Note [16-bit compute]) and its result is written back.
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::any_requires_grad(*this, src) || isReducedFloatingType(scalar_type()))
    return ops::assign_with_history(*this, scatter(dim, index, src), "scatter_()");
  check_plain_write(*this, "scatter_()");
  return scatter_into(*this, dim, index, src, false, "scatter_()");
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  if (autograd::any_requires_grad(*this) || isReducedFloatingType(scalar_type()))
    return ops::assign_with_history(*this, scatter(dim, index, value), "scatter_()");
  check_plain_write(*this, "scatter_()");
  return scatter_value_impl(*this, dim, index, value, "scatter_()");
}
const Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::any_requires_grad(*this, src) || isReducedFloatingType(scalar_type()))
    return ops::assign_with_history(*this, scatter_add(dim, index, src), "scatter_add_()");
  check_plain_write(*this, "scatter_add_()");
  return scatter_into(*this, dim, index, src, true, "scatter_add_()");
}
Tensor ops::scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = no_grad([&] { return check_defined_self(self, "scatter()").clone(); });
  scatter_into(out, dim, index, src, false, "scatter()");
  record_scatter(false, self, wrap_dim(dim, self.dim(), "scatter()"), index, src, out);
  return out;
}
Tensor ops::scatter_impl(const Tensor& self, int64_t dim, const Tensor& index,
                         const Scalar& value) {
  Tensor out = no_grad([&] { return check_defined_self(self, "scatter()").clone(); });
  scatter_value_impl(out, dim, index, value, "scatter()");
  if (auto node = autograd::record_node(kScatterValueBackward, {&self})) {
    node->state.index = autograd::save(index);
    node->state.dim = wrap_dim(dim, self.dim(), "scatter()");
    autograd::set_history(out, node);
  }
  return out;
}
Tensor ops::scatter_add_impl(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor& src) {
  Tensor out = no_grad([&] { return check_defined_self(self, "scatter_add()").clone(); });
  scatter_into(out, dim, index, src, true, "scatter_add()");
  record_scatter(true, self, wrap_dim(dim, self.dim(), "scatter_add()"), index, src, out);
  return out;
}

}  // namespace nabla
