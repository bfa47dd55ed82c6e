// The autograd side of views (Note [Views and in-place], shape/views_backward.h): view
// tracking, as_strided's node, and in-place writes into views (CopySlices). Gradients
// between geometries are written with differentiable nabla ops, so create_graph gives
// higher orders; g is the gradient of the output.
#include "ops/shape/views_backward.h"

#include <algorithm>

#include "nabla/autograd/autograd.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla::ops {

using autograd::AutogradMeta;
using autograd::ViewCreation;

variable_list reshape_backward(OpNode<SizesState>& n, const variable_list& g) {
  return {g[0].reshape(n.state.self_sizes)};
}

namespace {

// ---- Geometry over storage -------------------------------------------------------------

struct Geometry {
  DimVector sizes, strides;
  int64_t offset = 0;
};

Geometry geometry_of(const Tensor& t) {
  return {DimVector(t.sizes().begin(), t.sizes().end()),
          DimVector(t.strides().begin(), t.strides().end()), t.storage_offset()};
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Largest storage position a geometry touches (requires numel > 0).
int64_t max_position(const Geometry& g) {
  int64_t m = g.offset;
  for (size_t i = 0; i < g.sizes.size(); ++i) m += (g.sizes[i] - 1) * g.strides[i];
  return m;
}

// True when two elements of the geometry share a storage position.
bool overlaps(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with size > 1
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return false;
    if (sizes[i] > 1) dims.emplace_back(strides[i], sizes[i]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t extent = 1;  // positions spanned by the inner dims so far
  for (auto [stride, size] : dims) {
    if (stride < extent) return true;
    extent = stride * (size - 1) + extent;
  }
  return false;
}

// Storage positions of every element of `g`, relative to `lo` (int64, shape g.sizes).
Tensor positions(const Geometry& g, int64_t lo, Device device) {
  NoGradGuard no_grad;
  Tensor pos = full({}, g.offset - lo, TensorOptions(kLong).device(device));
  const int64_t n = static_cast<int64_t>(g.sizes.size());
  for (int64_t k = 0; k < n; ++k) {
    DimVector shape(n, 1);
    shape[k] = g.sizes[k];
    pos = pos + arange(g.sizes[k], TensorOptions(kLong).device(device)).view(shape) * g.strides[k];
  }
  return pos.expand(g.sizes).contiguous();
}

// For each element of `to`, the sum of g's elements (g laid out as `from`) at the same
// storage position, zero where `from` has none. Differentiable in g.
Tensor take_region(const Tensor& g, const Geometry& from, const Geometry& to) {
  if (numel_of(to.sizes) == 0 || numel_of(from.sizes) == 0) return zeros(to.sizes, g.options());
  const int64_t from_numel = numel_of(from.sizes);
  // A contiguous `from` covers exactly [offset, offset + numel): read g in place.
  if (from.strides == contiguous_strides(from.sizes) && to.offset >= from.offset &&
      max_position(to) < from.offset + from_numel) {
    Tensor gc = g.contiguous();
    return gc.as_strided(to.sizes, to.strides, gc.storage_offset() + to.offset - from.offset);
  }
  const int64_t lo = std::min(from.offset, to.offset);
  const int64_t n = std::max(max_position(from), max_position(to)) - lo + 1;
  Tensor buf = zeros({n}, g.options());
  if (!overlaps(from.sizes, from.strides)) {
    buf.as_strided(from.sizes, from.strides, from.offset - lo).copy_(g);
  } else {  // several elements of g land on one position: add them up
    buf = buf.scatter_add(0, positions(from, lo, g.device()).view({-1}), g.reshape({-1}));
  }
  return buf.as_strided(to.sizes, to.strides, to.offset - lo);
}

// True for each element of `base` whose storage position `view` also covers.
Tensor region_mask(const Geometry& base, const Geometry& view, Device device) {
  NoGradGuard no_grad;
  if (numel_of(base.sizes) == 0 || numel_of(view.sizes) == 0)
    return zeros(base.sizes, TensorOptions(kBool).device(device));
  const int64_t lo = std::min(base.offset, view.offset);
  const int64_t n = std::max(max_position(base), max_position(view)) - lo + 1;
  Tensor buf = zeros({n}, TensorOptions(kBool).device(device));
  Tensor region = buf.as_strided(view.sizes, view.strides, view.offset - lo);
  backend_for(region).fill(region, true);  // the kernel: `view` may overlap itself
  return buf.as_strided(base.sizes, base.strides, base.offset - lo);
}

// ---- Nodes over two geometries -----------------------------------------------------------

// AsStridedBackward0 (input -> output) and CopySlices (base -> written view).
struct RegionState {
  Geometry from, to;
};

// The input's gradient: the output's, summed per storage position over the input's
// geometry.
variable_list as_strided_backward(OpNode<RegionState>& n, const variable_list& g) {
  return {take_region(g[0], n.state.to, n.state.from)};
}
constexpr NodeType<RegionState> kAsStridedBackward{"AsStridedBackward0", as_strided_backward};

// Inputs: [0] the base before the write, [1] the written value r. The written region
// gets its gradient through r; the rest of the base passes through.
variable_list copy_slices_backward(OpNode<RegionState>& n, const variable_list& g) {
  const Geometry &base = n.state.from, &view = n.state.to;
  Tensor g_base, g_r;
  if (n.needs_input_grad(0)) g_base = where(region_mask(base, view, g[0].device()), 0, g[0]);
  if (n.needs_input_grad(1)) g_r = take_region(g[0], base, view);
  return {g_base, g_r};
}
constexpr NodeType<RegionState> kCopySlices{"torch::autograd::CopySlices", copy_slices_backward};

// ---- View tracking ---------------------------------------------------------------------

// Registers `view` with its root base, dropping expired handles as the list grows.
void register_view(const Tensor& root, const Tensor& view) {
  AutogradMeta& m = root.unsafeGetTensorImpl()->ensure_autograd_meta();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto& v = m.views;
  if (v.size() >= 8 && (v.size() & (v.size() - 1)) == 0)
    v.erase(std::remove_if(v.begin(), v.end(), [](const auto& w) { return w.expired(); }), v.end());
  v.push_back(view.impl());
}

// Makes `out` a tracked view of in's root; `creation` unless in's own is stricter.
void track_as(const Tensor& in, const Tensor& out, ViewCreation creation, bool do_register) {
  AutogradMeta* im = in.unsafeGetTensorImpl()->autograd_meta();
  const bool in_is_view = im && im->view_base.defined();
  Tensor root = in_is_view ? im->view_base : in;
  if (in_is_view && im->view_creation != ViewCreation::kDefault) creation = im->view_creation;
  AutogradMeta& om = out.unsafeGetTensorImpl()->ensure_autograd_meta();
  om.view_base = root;
  om.view_creation = creation;
  if (creation == ViewCreation::kNoGradMode || creation == ViewCreation::kInferenceMode)
    om.view_version = out.unsafeGetTensorImpl()->version();
  if (in_is_view && im->view_func_error) {
    // A view of a view without derivative cannot be rebuilt either.
    om.view_func_error = im->view_func_error;
    om.view_version = out.unsafeGetTensorImpl()->version();
    return;
  }
  if (do_register) register_view(root, out);
}

void check_not_overlapping(const Geometry& g, const char* op, const char* what) {
  NABLA_CHECK(!overlaps(g.sizes, g.strides), op, ": ", what, " with sizes ", IntArrayRef(g.sizes),
              " and strides ", IntArrayRef(g.strides),
              " has elements sharing memory; nabla computes gradients through views only for "
              "non-overlapping bases (LibTorch supports this case)");
}

// A view made with grad mode off of a base requiring grad is remembered to refuse a later
// in-place write with grad (Note [Views and in-place]); like LibTorch's, it reports
// requires_grad while its base does (autograd::requires_grad).
void track_no_grad_view(const Tensor& in, const Tensor& out) {
  track_as(in, out,
           ::nabla::detail::inference_mode_enabled() ? ViewCreation::kInferenceMode
                                                     : ViewCreation::kNoGradMode,
           false);
}

// Gives each live view of `root` an AsStridedBackward0 node over root's current history.
void refresh_views(const Tensor& root) {
  std::vector<std::shared_ptr<TensorImpl>> live;
  {
    AutogradMeta* m = root.unsafeGetTensorImpl()->autograd_meta();
    if (!m) return;
    std::lock_guard<std::mutex> lock(m->mutex);
    auto& v = m->views;
    v.erase(std::remove_if(v.begin(), v.end(), [](const auto& w) { return w.expired(); }), v.end());
    for (const auto& w : v)
      if (auto p = w.lock()) live.push_back(std::move(p));
  }
  if (live.empty()) return;
  autograd::Edge edge = autograd::gradient_edge(root);
  Geometry base = geometry_of(root);
  if (edge.is_valid()) check_not_overlapping(base, "in-place", "a base tensor with live views");
  for (auto& impl : live) {
    Tensor view(impl);
    AutogradMeta& vm = impl->ensure_autograd_meta();
    std::shared_ptr<autograd::Node> old = std::move(vm.grad_fn);
    vm.output_nr = 0;
    if (edge.is_valid()) {
      auto node = ::nabla::detail::make_pooled<OpNode<RegionState>>(kAsStridedBackward);
      node->add_next_edge(edge);
      node->state = {base, geometry_of(view)};
      autograd::set_history(view, node);
    }
    autograd::release_node(std::move(old));
  }
}

}  // namespace

// ---- Recording -------------------------------------------------------------------------

namespace view_tracking {

bool track_view(const Tensor& in, const Tensor& out) {
  const bool needs_grad = autograd::requires_grad(in);
  if (!GradMode::is_enabled()) {
    if (needs_grad) track_no_grad_view(in, out);
    return false;
  }
  track_as(in, out, ViewCreation::kDefault, true);
  return needs_grad;
}

bool track_views(const Tensor& in, const std::vector<Tensor>& outs) {
  const bool needs_grad = autograd::requires_grad(in);
  if (!GradMode::is_enabled()) {
    if (needs_grad)
      for (const Tensor& o : outs) track_no_grad_view(in, o);
    return false;
  }
  auto creation = needs_grad ? ViewCreation::kMultiOutput : ViewCreation::kDefault;
  for (const Tensor& o : outs) track_as(in, o, creation, true);
  return needs_grad;
}

bool inplace_view_needs_node(const Tensor& self, const char* op) {
  if (!autograd::any_requires_grad(self)) return false;
  NABLA_CHECK(!self.is_leaf(), op,
              ": a leaf Variable that requires grad is being used in an in-place operation.");
  return true;
}

void take_geometry(const Tensor& self, const Tensor& v) {
  self.unsafeGetTensorImpl()->set_geometry(v.sizes(), v.strides(), v.storage_offset());
}

void track_view_without_derivative(const Tensor& in, const Tensor& out, bool multi_output,
                                   std::shared_ptr<const std::string> error) {
  const bool needs_grad = autograd::requires_grad(in);
  if (!GradMode::is_enabled()) {
    if (!needs_grad) return;
    track_no_grad_view(in, out);
  } else {
    track_as(in, out,
             multi_output && needs_grad ? ViewCreation::kMultiOutput : ViewCreation::kDefault,
             false);
  }
  AutogradMeta& m = out.unsafeGetTensorImpl()->ensure_autograd_meta();
  m.view_func_error = std::move(error);
  m.view_version = out.unsafeGetTensorImpl()->version();
}

}  // namespace view_tracking

void record_as_strided(const Tensor& in, const Tensor& out) {
  if (autograd::any_requires_grad(in))
    check_not_overlapping(geometry_of(in), "as_strided",
                          "the input (of a differentiable as_strided)");
  if (auto node = record_view(kAsStridedBackward, in, out))
    node->state = {geometry_of(in), geometry_of(out)};
}

// ---- In-place writes -------------------------------------------------------------------

void check_inplace_autograd(const Tensor& self, const char* op) {
  AutogradMeta* m = self.unsafeGetTensorImpl()->autograd_meta();
  const bool no_grad_view = m && m->view_base.defined() &&
                            (m->view_creation == ViewCreation::kNoGradMode ||
                             m->view_creation == ViewCreation::kInferenceMode);
  NABLA_CHECK(no_grad_view || !(self.is_leaf() && self.requires_grad()), op,
              ": a leaf Variable that requires grad is being used in an in-place operation.");
  if (!m || !m->view_base.defined()) return;
  switch (m->view_creation) {
    case ViewCreation::kInferenceMode:
      NABLA_CHECK(!GradMode::is_enabled(), op,
                  ": A view was created in inference mode and is being modified inplace in "
                  "normal mode. Given that this use case is ambiguous and error-prone, it is "
                  "forbidden; clone the view in normal mode, or make both the view and the "
                  "in-place write in the same mode.");
      return;
    case ViewCreation::kNoGradMode:
      NABLA_CHECK(!GradMode::is_enabled(), op,
                  ": A view was created in no_grad mode and is being modified inplace with grad "
                  "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                  "forbidden. You can clarify your code by moving both the view and the inplace "
                  "either both inside the no_grad block (if you don't want the inplace to be "
                  "tracked) or both outside (if you want the inplace to be tracked).");
      return;
    case ViewCreation::kMultiOutput:
      NABLA_CHECK(false, op, ": Output ", m->output_nr, " of ",
                  m->grad_fn ? m->grad_fn->name() : std::string("a multi-output view op"),
                  " is a view and is being modified inplace. This view is the output of a "
                  "function that returns multiple views. Such functions do not allow the output "
                  "views to be modified inplace. You should replace the inplace operation by an "
                  "out-of-place one.");
      return;
    case ViewCreation::kDefault:
      break;
  }
  const Tensor& base = m->view_base;
  NABLA_CHECK(!(base.is_leaf() && base.requires_grad()), op,
              ": a view of a leaf Variable that requires grad is being used in an in-place "
              "operation.");
  NABLA_CHECK(!overlaps(self.sizes(), self.strides()), op,
              ": unsupported operation: more than one element of the written-to tensor refers "
              "to a single memory location. Please clone() the tensor before performing the "
              "operation (sizes ",
              self.sizes(), ", strides ", self.strides(), ").");
}

void rebase_history(const Tensor& self, const Tensor& result) {
  const bool result_has_graph = result.defined() && result.grad_fn();
  AutogradMeta& m = self.unsafeGetTensorImpl()->ensure_autograd_meta();
  if (m.view_base.defined() && m.view_creation == ViewCreation::kDefault) {
    Tensor root = m.view_base;  // a copy: refresh_views may replace self's meta fields
    if (!result_has_graph && !autograd::requires_grad(root)) return;
    NABLA_CHECK(!m.view_func_error, "in-place: ", m.view_func_error ? *m.view_func_error : "");
    Geometry base = geometry_of(root), view = geometry_of(self);
    check_not_overlapping(base, "in-place", "the base of the written view");
    auto node = ::nabla::detail::make_pooled<OpNode<RegionState>>(kCopySlices);
    autograd::detail::connect(*node, {&root, &result});
    node->state = {std::move(base), std::move(view)};
    autograd::set_history(root, node);
    refresh_views(root);  // self is among them
    return;
  }
  if (result_has_graph) {
    std::shared_ptr<autograd::Node> old = std::move(m.grad_fn);
    const uint32_t old_nr = m.output_nr;
    m.grad_fn = result.grad_fn();
    m.output_nr = result.output_nr();
    // retain_grad follows the tensor: .grad() is the gradient of its newest version, as
    // LibTorch's (hooks registered before the in-place op stay on the old version).
    if (m.retains_grad && old) {
      old->remove_retains_grad(old_nr);
      m.grad_fn->set_retains_grad(m.output_nr, self.impl());
    }
    autograd::release_node(std::move(old));
  }
  if (!m.views.empty()) refresh_views(self);
}

}  // namespace nabla::ops
