// Derivatives of the indexing ops, written with differentiable nabla ops (mostly the
// indexing ops themselves) so create_graph gives higher orders. g is the gradient of the
// output; index tensors and masks get no gradient.
//
// Note [Gradients of repeated indices]
// A position read several times (duplicate indices in index/gather/index_select) gets
// the sum of the gradients of every read, so the formulas scatter with accumulation
// (index_put(..., accumulate=true), scatter_add) into zeros. For writes without
// accumulation (index_put, scatter) each written value gets the gradient of its target
// position, as in PyTorch, which is only the true derivative when indices are unique.
#include "ops/indexing_backward.h"

#include "autograd/formula.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"
#include "ops/views_backward.h"

namespace nabla::ops {

using autograd::Formula;
using autograd::FormulaNode;
using autograd::variable_list;

namespace {

using IndexList = std::vector<optional<Tensor>>;

// Index lists are saved as saved(0 .. n.dim), an undefined tensor for each "whole dim".
void save_indices(FormulaNode& n, const IndexList& indices) {
  n.dim = static_cast<int64_t>(indices.size());
  for (const auto& t : indices) n.save(t.has_value() ? *t : Tensor());
}
IndexList saved_indices(FormulaNode& n) {
  IndexList out;
  for (int64_t i = 0; i < n.dim; ++i) {
    Tensor t = n.saved(static_cast<size_t>(i));
    out.emplace_back(t.defined() ? optional<Tensor>(t) : nullopt);
  }
  return out;
}

Tensor zeros_of(IntArrayRef shape, const Tensor& like) { return zeros(shape, like.options()); }

// `t` placed at the leading corner of a zero tensor of `shape` (each t.size(d) <=
// shape[d]): the gradient of src in scatter when index is smaller than src.
Tensor embed(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  IndexList coords;
  for (int64_t d = 0; d < t.dim(); ++d) {
    DimVector s(t.dim(), 1);
    s[d] = t.size(d);
    coords.emplace_back(arange(t.size(d), TensorOptions(kLong)).view(s));
  }
  return zeros_of(shape, t).index_put(coords, t);
}

// ---- index / index_put ---------------------------------------------------------------
// Index, IndexPut saved: the index list; IndexPut: shape1 = values' shape, flag = accumulate.

variable_list alias_bw(FormulaNode&, const variable_list& g) { return {g[0]}; }

// grad_self [self] = zeros.index_put(indices, g [index result], accumulate)
variable_list index_bw(FormulaNode& n, const variable_list& g) {
  return {zeros_of(n.shape0, g[0]).index_put(saved_indices(n), g[0], /*accumulate=*/true)};
}

// grad_self = g with the written positions zeroed (kept when accumulating);
// grad_values = g [index result] summed to values' shape.
variable_list index_put_bw(FormulaNode& n, const variable_list& g) {
  IndexList idx = saved_indices(n);
  Tensor gs, gv;
  if (n.needs_input_grad(0))
    gs = n.flag ? g[0] : g[0].index_put(idx, zeros_of({}, g[0]), /*accumulate=*/false);
  if (n.needs_input_grad(1)) gv = sum_to(g[0].index(idx), n.shape1);
  return {gs, gv};
}

// ---- index_select / gather / scatter ---------------------------------------------------
// Saved: [0] = index; n.dim = the (wrapped) dim; shape0 = self's shape, shape1 = src's.

// grad_self [self] = zeros with g [.., k, ..] added at rows index [k] of dim
// (index_add as a scatter_add with the index broadcast along the other dims: the
// scatter kernel walks memory in order whichever dim is indexed).
variable_list index_select_bw(FormulaNode& n, const variable_list& g) {
  if (n.shape0.empty()) return {g[0]};  // 0-d self: the one element was selected once
  DimVector shape(g[0].dim(), 1);
  shape[static_cast<size_t>(n.dim)] = g[0].size(n.dim);
  Tensor index = n.saved(0).reshape(shape).expand(g[0].sizes());
  return {zeros_of(n.shape0, g[0]).scatter_add(n.dim, index, g[0])};
}

// grad_self [self] = zeros.scatter_add(dim, index, g [index])
variable_list gather_bw(FormulaNode& n, const variable_list& g) {
  return {zeros_of(n.shape0, g[0]).scatter_add(n.dim, n.saved(0), g[0])};
}

// scatter: grad_self = g with the written positions zeroed; grad_src = g.gather [index],
// placed into src's shape (zeros where index is smaller than src).
variable_list scatter_bw(FormulaNode& n, const variable_list& g) {
  Tensor index = n.saved(0), gs, gsrc;
  if (n.needs_input_grad(0)) gs = g[0].scatter(n.dim, index, 0);
  if (n.num_outputs() > 1 && n.needs_input_grad(1))
    gsrc = embed(g[0].gather(n.dim, index), n.shape1);
  return {gs, gsrc};
}

// scatter_add: grad_self = g; grad_src as for scatter.
variable_list scatter_add_bw(FormulaNode& n, const variable_list& g) {
  Tensor gsrc;
  if (n.needs_input_grad(1)) gsrc = embed(g[0].gather(n.dim, n.saved(0)), n.shape1);
  return {n.needs_input_grad(0) ? g[0] : Tensor(), gsrc};
}

// ---- masks -----------------------------------------------------------------------------
// Saved: [0] = mask; shape0 = self's shape, shape1 = the broadcast shape of self and mask.

// grad_self = g [broadcast] with masked positions zeroed, summed to self's shape;
// grad_value (0-d) = the sum of g over the masked positions.
variable_list masked_fill_bw(FormulaNode& n, const variable_list& g) {
  Tensor mask = n.saved(0), gs, gv;
  if (n.needs_input_grad(0)) gs = sum_to(g[0].masked_fill(mask, 0), n.shape0);
  if (n.num_outputs() > 1 && n.needs_input_grad(1)) {
    gv = g[0].masked_select(mask).sum();
    if (gv.scalar_type() != n.dtype0) gv = gv.to(n.dtype0);
  }
  return {gs, gv};
}

// grad_self = zeros [broadcast] with g [count] written at the true mask positions (in
// masked_select's row-major order), summed to self's shape.
variable_list masked_select_bw(FormulaNode& n, const variable_list& g) {
  // 0-d self and mask: g holds the one element (mask true) or nothing (false).
  if (n.shape1.empty()) return {g[0].sum()};
  Tensor mask = n.saved(0).expand(n.shape1);
  Tensor full = zeros_of(n.shape1, g[0]).index_put({mask}, g[0], /*accumulate=*/true);
  return {sum_to(full, n.shape0)};
}

const Formula kAlias{"AliasBackward0", alias_bw};
const Formula kIndex{"IndexBackward0", index_bw};
const Formula kIndexPut{"IndexPutBackward0", index_put_bw};
const Formula kIndexSelect{"IndexSelectBackward0", index_select_bw};
const Formula kGather{"GatherBackward0", gather_bw};
const Formula kScatterSrc{"ScatterBackward0", scatter_bw};
const Formula kScatterValue{"ScatterBackward1", scatter_bw};
const Formula kScatterAdd{"ScatterAddBackward0", scatter_add_bw};
const Formula kMaskedFillScalar{"MaskedFillBackward0", masked_fill_bw};
const Formula kMaskedFillTensor{"MaskedFillBackward1", masked_fill_bw};
const Formula kMaskedSelect{"MaskedSelectBackward0", masked_select_bw};

DimVector shape_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end()); }

}  // namespace

void record_alias(const Tensor& self, const Tensor& out) {
  record_view(kAlias, self, out);  // a view like any other (Note [Views and in-place])
}

void record_index(const Tensor& self, const IndexList& indices, const Tensor& out) {
  if (!autograd::any_requires_grad(self)) return;
  auto node = autograd::make_node(kIndex, {&self});
  node->shape0 = shape_of(self);
  save_indices(*node, indices);
  autograd::set_history(out, node);
}

void record_index_put(const Tensor& self, const IndexList& indices, const Tensor& values,
                      bool accumulate, const Tensor& out) {
  if (!autograd::any_requires_grad(self, values)) return;
  auto node = autograd::make_node(kIndexPut, {&self, &values});
  node->flag = accumulate;
  node->shape1 = shape_of(values);
  // Without accumulation self's gradient needs the indices too.
  if (!accumulate || autograd::requires_grad(values)) save_indices(*node, indices);
  autograd::set_history(out, node);
}

void record_index_select(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  if (!autograd::any_requires_grad(self)) return;
  auto node = autograd::make_node(kIndexSelect, {&self});
  node->dim = dim;
  node->shape0 = shape_of(self);
  node->save(index);
  autograd::set_history(out, node);
}

void record_gather(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  if (!autograd::any_requires_grad(self)) return;
  auto node = autograd::make_node(kGather, {&self});
  node->dim = dim;
  node->shape0 = shape_of(self);
  node->save(index);
  autograd::set_history(out, node);
}

void record_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    bool accumulate, const Tensor& out) {
  if (!autograd::any_requires_grad(self, src)) return;
  const Formula& f = accumulate ? kScatterAdd : src.defined() ? kScatterSrc : kScatterValue;
  auto node =
      src.defined() ? autograd::make_node(f, {&self, &src}) : autograd::make_node(f, {&self});
  node->dim = dim;
  if (src.defined()) node->shape1 = shape_of(src);
  // scatter_add's gradient for self is g itself: the index is read only for src.
  bool need_index = accumulate ? autograd::requires_grad(src) : true;
  node->save(need_index ? index : Tensor());
  autograd::set_history(out, node);
}

void record_masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value,
                        const Tensor& out) {
  if (!autograd::any_requires_grad(self, value)) return;
  auto node = value.defined() ? autograd::make_node(kMaskedFillTensor, {&self, &value})
                              : autograd::make_node(kMaskedFillScalar, {&self});
  node->shape0 = shape_of(self);
  if (value.defined()) node->dtype0 = value.scalar_type();
  node->save(mask);
  autograd::set_history(out, node);
}

void record_masked_select(const Tensor& self, const Tensor& mask, const Tensor& out) {
  if (!autograd::any_requires_grad(self)) return;
  auto node = autograd::make_node(kMaskedSelect, {&self});
  node->shape0 = shape_of(self);
  node->shape1 = ops::broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  node->save(mask);
  autograd::set_history(out, node);
}

}  // namespace nabla::ops
