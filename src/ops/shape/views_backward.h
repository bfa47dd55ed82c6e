#pragma once
// The autograd side of views: recording a view op's node while tracking the view, and
// in-place writes into views (shape/views_backward.cpp). Each view op's state and formula sit
// beside its forward (shape/reshape.cpp, shape/transpose.cpp, shape/select.cpp).
//
// Note [Views and in-place]
// A view shares its base's storage, so an in-place op on the view also changes the base,
// and the base's history must say so (PyTorch's CopySlices):
//  * A view made while grad mode is on remembers its root base (AutogradMeta::view_base;
//    a view of a view remembers the root), and the root keeps weak handles to its live
//    views (AutogradMeta::views). Views made under no_grad are not tracked, except that
//    one of a base requiring grad is marked kNoGradMode (kInferenceMode inside
//    InferenceMode) so that writing it with grad is refused, as in LibTorch; such a view
//    reports requires_grad while its base does, as a leaf without an accumulator (a
//    gradient reaching it is dropped, as LibTorch drops it).
//  * In-place op on a tracked view v of root b, with result r = op(v, ...) computed out
//    of place (so r has the op's node): b's new grad_fn is a CopySlices node with edges
//    to b's old history and to r. Its backward sends the gradient of the region v covers
//    to r and the rest to old b. v and b's other live views get an AsStridedBackward0
//    node over b's new history (views made before the write would otherwise point at a
//    history that no longer describes their values).
//  * In-place op on a root with live views: the root's history is replaced, then its
//    views are rebuilt the same way.
// Regions are mapped between geometries through storage positions (the span buffer in
// shape/views_backward.cpp), which needs the base (and an as_strided input) to be
// non-overlapping; the few geometries that are not raise a nabla::Error naming the op.
#include <memory>
#include <string>
#include <vector>

#include "nabla/autograd/record.h"

namespace nabla::ops {

namespace view_tracking {
/// Tracks `out` as a view of `in` (Note [Views and in-place]); true when a node must be
/// recorded (grad mode on and `in` requiring grad).
bool track_view(const Tensor& in, const Tensor& out);
/// The same for the several views of one op (split, unbind), marked kMultiOutput.
bool track_views(const Tensor& in, const std::vector<Tensor>& outs);
/// Whether an in-place view op on `self` takes part in autograd; a leaf that requires
/// grad is refused, naming `op`.
bool inplace_view_needs_node(const Tensor& self, const char* op);
/// Gives `self` the geometry of `v`.
void take_geometry(const Tensor& self, const Tensor& v);
/// Tracks `out` as a view of `in` made by an op without derivative (a custom operator's
/// ADInplaceOrView fallback, nabla/ops/library.h): as track_view (track_views when
/// `multi_output`) records no node, but not registered with the root, whose in-place
/// writes therefore leave it alone; writing it with grad, or its grad_fn() once its
/// storage changed, raises `error` (AutogradMeta::view_func_error).
void track_view_without_derivative(const Tensor& in, const Tensor& out, bool multi_output,
                                   std::shared_ptr<const std::string> error);
}  // namespace view_tracking

/// The state of the ops that only reshape (view, reshape, squeeze(), matmul's final
/// reshapes): the input's sizes, which the gradient takes back.
struct SizesState {
  DimVector self_sizes;
};
autograd::variable_list reshape_backward(autograd::OpNode<SizesState>& n,
                                         const autograd::variable_list& g);

/// `t` (contiguous, a fresh result) seen with `shape` as the output of a node of `type`,
/// without view tracking: the result owns its elements (matmul's final squeeze).
Tensor reshape_result(const autograd::NodeType<SizesState>& type, const Tensor& t,
                      IntArrayRef shape);
/// reshape_result as LibTorch's _unsafe_view (UnsafeViewBackward0): reshape's copy, the
/// final reshapes of matmul and kron.
Tensor unsafe_view(const Tensor& t, IntArrayRef shape);

/// Records `out`, a view of `in` made by a view op, as the output of a node of `type`, and
/// tracks it as a view. Returns the node (fill its state after this returns), or null
/// when `in` needs no gradient. Call once per view op, after the view exists.
template <class State>
std::shared_ptr<autograd::OpNode<State>> record_view(const autograd::NodeType<State>& type,
                                                     const Tensor& in, const Tensor& out) {
  if (!view_tracking::track_view(in, out)) return nullptr;
  auto node = autograd::record_node(type, {&in});
  autograd::set_history(out, node);
  return node;
}

/// The same for an op returning several views of `in` (split, unbind): one node, one
/// output slot per view, in order; each view is refused in-place writes with grad.
template <class State>
std::shared_ptr<autograd::OpNode<State>> record_views(const autograd::NodeType<State>& type,
                                                      const Tensor& in,
                                                      const std::vector<Tensor>& outs) {
  if (!view_tracking::track_views(in, outs)) return nullptr;
  auto node = autograd::record_node(type, {&in});
  for (const Tensor& o : outs) autograd::set_history(o, node);
  return node;
}

/// An in-place view op (squeeze_, unsqueeze_, transpose_, t_): gives `self` the geometry
/// of `v` (a view of self) and, when self takes part in autograd, a node of `type` over
/// its previous history whose state `fill(state)` sets before the geometry changes. A
/// leaf that requires grad is refused, naming `op`.
template <class State, class Fill>
void set_view_geometry(const autograd::NodeType<State>& type, const Tensor& self, const Tensor& v,
                       const char* op, Fill&& fill) {
  std::shared_ptr<autograd::OpNode<State>> node;
  if (view_tracking::inplace_view_needs_node(self, op)) {
    node = autograd::record_node(type, {&self});  // an edge to the history before the change
    fill(node->state);
  }
  view_tracking::take_geometry(self, v);
  if (node) autograd::set_history(self, node);
}

/// Records as_strided (AsStridedBackward0); raises when the gradient would need
/// overlapping geometry (see the Note).
void record_as_strided(const Tensor& in, const Tensor& out);

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
