#pragma once
// Graph recording for the view ops (forwards in views.cpp, formulas in views_backward.cpp)
// and the autograd side of in-place writes into views.
//
// Note [Views and in-place]
// A view shares its base's storage, so an in-place op on the view also changes the base,
// and the base's history must say so (PyTorch's CopySlices):
//  * A view made while grad mode is on remembers its root base (AutogradMeta::view_base;
//    a view of a view remembers the root), and the root keeps weak handles to its live
//    views (AutogradMeta::views). Views made under no_grad are not tracked, except that
//    one of a base requiring grad is marked kNoGradMode so that writing it with grad
//    is refused, as in LibTorch.
//  * In-place op on a tracked view v of root b, with result r = op(v, ...) computed out
//    of place (so r has the op's node): b's new grad_fn is a CopySlices node with edges
//    to b's old history and to r. Its backward sends the gradient of the region v covers
//    to r and the rest to old b. v and b's other live views get an AsStridedBackward0
//    node over b's new history (views made before the write would otherwise point at a
//    history that no longer describes their values).
//  * In-place op on a root with live views: the root's history is replaced, then its
//    views are rebuilt the same way.
// Regions are mapped between geometries through storage positions (the span buffer in
// views_backward.cpp), which needs the base (and an as_strided input) to be
// non-overlapping; the few geometries that are not raise a nabla::Error naming the op.
#include <memory>

#include "autograd/formula.h"

namespace nabla::ops {

// ---- Formulas of the view ops ----------------------------------------------------------
// Each lists the node attributes it reads. shape0 is always the input's sizes.
namespace view_formulas {
using autograd::Formula;
extern const Formula kView;            // ViewBackward0: g.reshape(shape0)
extern const Formula kReshapeAlias;    // ReshapeAliasBackward0: as kView
extern const Formula kUnsafeView;      // UnsafeViewBackward0: as kView (reshape that copied)
extern const Formula kTranspose;       // TransposeBackward0: list = {dim0, dim1}
extern const Formula kTranspose1;      // TransposeBackward1 (transpose_): list = {dim0, dim1}
extern const Formula kT;               // TBackward0
extern const Formula kPermute;         // PermuteBackward0: dims = the permutation
extern const Formula kSlice;           // SliceBackward0: dim, list = {start, end, step}
extern const Formula kSelect;          // SelectBackward0: dim, list = {index}
extern const Formula kExpand;          // ExpandBackward0
extern const Formula kSqueeze0;        // SqueezeBackward0 (all dims)
extern const Formula kSqueeze1;        // SqueezeBackward1: dim
extern const Formula kSqueeze2;        // SqueezeBackward2 (squeeze_())
extern const Formula kSqueeze3;        // SqueezeBackward3 (squeeze_(dim)): dim
extern const Formula kUnsqueeze0;      // UnsqueezeBackward0: dim
extern const Formula kUnsqueeze1;      // UnsqueezeBackward1 (unsqueeze_): dim
extern const Formula kDiagonal;        // DiagonalBackward0: list = {offset, dim1, dim2}
extern const Formula kUnfold;          // UnfoldBackward0: list = {dim, size, step}
extern const Formula kUnbind;          // UnbindBackward0 (one output per slice): dim
extern const Formula kSplit;           // SplitBackward0: dim
extern const Formula kSplitWithSizes;  // SplitWithSizesBackward0: dim
}  // namespace view_formulas

/// Records `out`, a view of `in` made by a view op, and tracks it as a view (Note
/// [Views and in-place]). Returns the node to fill with attributes, or null when `in`
/// needs no gradient. Call once per view op, after the view exists.
std::shared_ptr<autograd::FormulaNode> record_view(const autograd::Formula& f, const Tensor& in,
                                                   const Tensor& out);
/// The same with a typed node of `type` (record.h). TEMPORARY (issue 13, indexing
/// helper): tracks `out` through the Formula overload above, then replaces the node it
/// recorded with one of `type`; the views helper's typed version replaces this.
template <class State>
std::shared_ptr<autograd::OpNode<State>> record_view(const autograd::NodeType<State>& type,
                                                     const Tensor& in, const Tensor& out) {
  static constexpr autograd::Formula kTracking{"", nullptr};
  if (!record_view(kTracking, in, out)) return nullptr;
  auto node = autograd::record_node(type, {&in});
  autograd::set_history(out, node);
  return node;
}
/// The same for an op returning several views of `in` (split, unbind): one node, one
/// output slot per view, in order; each view is refused in-place writes with grad.
std::shared_ptr<autograd::FormulaNode> record_views(const autograd::Formula& f, const Tensor& in,
                                                    const std::vector<Tensor>& outs);
/// Records as_strided (AsStridedBackward0); raises when the gradient would need
/// overlapping geometry (see the Note).
void record_as_strided(const Tensor& in, const Tensor& out);
/// An in-place view op (squeeze_, unsqueeze_): gives `self` the geometry of `v` (a view
/// of self) and, when self takes part in autograd, the node `f` (with shape0 = the old
/// sizes and `dim`) over its previous history. A leaf that requires grad is refused,
/// naming `op`.
/// Returns the node (null without autograd) so callers can add attributes.
std::shared_ptr<autograd::FormulaNode> set_view_geometry(const autograd::Formula& f,
                                                         const Tensor& self, const Tensor& v,
                                                         int64_t dim, const char* op);

// ---- In-place writes under autograd (used by ops::assign_with_history) -----------------
/// Raises when `self` may not be written in place with grad: a leaf that requires grad,
/// a view of one, a view made under no_grad of a base that requires grad, or one of
/// several views of one node. `op` names the in-place op.
void check_inplace_autograd(const Tensor& self, const char* op);
/// After an in-place op wrote `result`'s value into `self`: makes self's history
/// result's (through CopySlices when self is a tracked view) and rebuilds the histories
/// of the views that share the written base. `result` is undefined or has no grad_fn
/// when the written value needs no gradient.
void rebase_history(const Tensor& self, const Tensor& result);

}  // namespace nabla::ops
