// Derivatives of the view ops and the autograd side of in-place writes into views
// (Note [Views and in-place], views_backward.h). Formulas use differentiable nabla ops
// only, so create_graph gives higher orders; g is the gradient of the output.
#include "ops/views_backward.h"

#include <algorithm>

#include "nabla/autograd/autograd.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla::ops {

using autograd::AutogradMeta;
using autograd::Formula;
using autograd::FormulaNode;
using autograd::variable_list;
using autograd::ViewCreation;

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

// Node attributes holding two geometries: shape0/dims/a (input or base) and
// shape1/list/b (output or view). Offsets fit a double exactly (< 2^53).
void save_geometries(FormulaNode& n, const Geometry& in, const Geometry& out) {
  n.shape0 = in.sizes;
  n.dims = in.strides;
  n.a = static_cast<double>(in.offset);
  n.shape1 = out.sizes;
  n.list.assign(out.strides.begin(), out.strides.end());
  n.b = static_cast<double>(out.offset);
}
Geometry in_geometry(const FormulaNode& n) { return {n.shape0, n.dims, static_cast<int64_t>(n.a)}; }
Geometry out_geometry(const FormulaNode& n) {
  return {n.shape1, DimVector(n.list.begin(), n.list.end()), static_cast<int64_t>(n.b)};
}

// ---- Formulas -------------------------------------------------------------------------

// zeros of the input's sizes with g written through the view `view_fn` takes of it.
template <class ViewFn>
Tensor scatter_into_zeros(FormulaNode& n, const Tensor& g, ViewFn view_fn) {
  Tensor z = zeros(n.shape0, g.options());
  view_fn(z).copy_(g);
  return z;
}

variable_list reshape_bw(FormulaNode& n, const variable_list& g) {
  return {g[0].reshape(n.shape0)};
}
variable_list transpose_bw(FormulaNode& n, const variable_list& g) {
  return {g[0].transpose(n.list[0], n.list[1])};
}
variable_list t_bw(FormulaNode&, const variable_list& g) { return {g[0].t()}; }
variable_list permute_bw(FormulaNode& n, const variable_list& g) {
  DimVector inverse(n.dims.size());
  for (size_t i = 0; i < n.dims.size(); ++i) inverse[n.dims[i]] = static_cast<int64_t>(i);
  return {g[0].permute(inverse)};
}
variable_list slice_bw(FormulaNode& n, const variable_list& g) {
  return {scatter_into_zeros(
      n, g[0], [&](const Tensor& z) { return z.slice(n.dim, n.list[0], n.list[1], n.list[2]); })};
}
variable_list select_bw(FormulaNode& n, const variable_list& g) {
  return {scatter_into_zeros(n, g[0], [&](const Tensor& z) { return z.select(n.dim, n.list[0]); })};
}
variable_list expand_bw(FormulaNode& n, const variable_list& g) { return {sum_to(g[0], n.shape0)}; }
variable_list squeeze_dim_bw(FormulaNode& n, const variable_list& g) {
  // squeeze(dim) left a dim of size != 1 (or a 0-d tensor) unchanged.
  if (n.shape0.empty() || n.shape0[n.dim] != 1) return {g[0]};
  return {g[0].unsqueeze(n.dim)};
}
variable_list unsqueeze_bw(FormulaNode& n, const variable_list& g) { return {g[0].squeeze(n.dim)}; }
variable_list diagonal_bw(FormulaNode& n, const variable_list& g) {
  return {scatter_into_zeros(
      n, g[0], [&](const Tensor& z) { return z.diagonal(n.list[0], n.list[1], n.list[2]); })};
}
// Windows may overlap (step < size): each input element sums the gradients of every
// window position that reads it. list = {dim, size, step}; shape0 is the input's shape.
variable_list unfold_bw(FormulaNode& n, const variable_list& g) {
  if (n.shape0.empty()) return {g[0].sum()};  // a 0-d input unfolds into one window of 1
  const int64_t d = n.list[0], size = n.list[1], step = n.list[2];
  const int64_t windows = g[0].size(d);
  Tensor gm = g[0].movedim(-1, d + 1).flatten(d, d + 1);  // [..., windows * size, ...]
  Tensor idx = (arange(windows, TensorOptions(kLong)).mul(step).unsqueeze(1) +
                arange(size, TensorOptions(kLong)).unsqueeze(0))
                   .reshape({-1});
  DimVector idx_shape(gm.dim(), 1);
  idx_shape[d] = idx.numel();
  Tensor grad = zeros(IntArrayRef(n.shape0), g[0].options());
  return {grad.scatter_add(d, idx.view(idx_shape).expand(gm.sizes()), gm)};
}
variable_list unbind_bw(FormulaNode& n, const variable_list& g) { return {stack(g, n.dim)}; }
variable_list split_bw(FormulaNode& n, const variable_list& g) { return {cat(g, n.dim)}; }

variable_list as_strided_bw(FormulaNode& n, const variable_list& g) {
  return {take_region(g[0], out_geometry(n), in_geometry(n))};
}

// Inputs: [0] the base before the write, [1] the written value r. The written region
// gets its gradient through r; the rest of the base passes through.
variable_list copy_slices_bw(FormulaNode& n, const variable_list& g) {
  Geometry base = in_geometry(n), view = out_geometry(n);
  Tensor g_base, g_r;
  if (n.needs_input_grad(0)) g_base = where(region_mask(base, view, g[0].device()), 0, g[0]);
  if (n.needs_input_grad(1)) g_r = take_region(g[0], base, view);
  return {g_base, g_r};
}

const Formula kAsStrided{"AsStridedBackward0", as_strided_bw};
const Formula kCopySlices{"CopySlices", copy_slices_bw};

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
void track_view(const Tensor& in, const Tensor& out, ViewCreation creation, bool do_register) {
  AutogradMeta* im = in.unsafeGetTensorImpl()->autograd_meta();
  const bool in_is_view = im && im->view_base.defined();
  Tensor root = in_is_view ? im->view_base : in;
  if (in_is_view && im->view_creation != ViewCreation::kDefault) creation = im->view_creation;
  AutogradMeta& om = out.unsafeGetTensorImpl()->ensure_autograd_meta();
  om.view_base = root;
  om.view_creation = creation;
  if (do_register) register_view(root, out);
}

void check_not_overlapping(const Geometry& g, const char* op, const char* what) {
  NABLA_CHECK(!overlaps(g.sizes, g.strides), op, ": ", what, " with sizes ", IntArrayRef(g.sizes),
              " and strides ", IntArrayRef(g.strides),
              " has elements sharing memory; nabla computes gradients through views only for "
              "non-overlapping bases (LibTorch supports this case)");
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
      auto node = std::make_shared<FormulaNode>(kAsStrided);
      node->add_next_edge(edge);
      save_geometries(*node, base, geometry_of(view));
      autograd::set_history(view, node);
    }
    autograd::release_node(std::move(old));
  }
}

}  // namespace

namespace view_formulas {
const Formula kView{"ViewBackward0", reshape_bw};
const Formula kReshapeAlias{"ReshapeAliasBackward0", reshape_bw};
const Formula kUnsafeView{"UnsafeViewBackward0", reshape_bw};
const Formula kTranspose{"TransposeBackward0", transpose_bw};
const Formula kTranspose1{"TransposeBackward1", transpose_bw};
const Formula kT{"TBackward0", t_bw};
const Formula kPermute{"PermuteBackward0", permute_bw};
const Formula kSlice{"SliceBackward0", slice_bw};
const Formula kSelect{"SelectBackward0", select_bw};
const Formula kExpand{"ExpandBackward0", expand_bw};
const Formula kSqueeze0{"SqueezeBackward0", reshape_bw};
const Formula kSqueeze1{"SqueezeBackward1", squeeze_dim_bw};
const Formula kSqueeze2{"SqueezeBackward2", reshape_bw};
const Formula kSqueeze3{"SqueezeBackward3", squeeze_dim_bw};
const Formula kUnsqueeze0{"UnsqueezeBackward0", unsqueeze_bw};
const Formula kUnsqueeze1{"UnsqueezeBackward1", unsqueeze_bw};
const Formula kDiagonal{"DiagonalBackward0", diagonal_bw};
const Formula kUnbind{"UnbindBackward0", unbind_bw};
const Formula kUnfold{"UnfoldBackward0", unfold_bw};
const Formula kSplit{"SplitBackward0", split_bw};
const Formula kSplitWithSizes{"SplitWithSizesBackward0", split_bw};
}  // namespace view_formulas

// ---- Recording -------------------------------------------------------------------------

std::shared_ptr<FormulaNode> record_view(const Formula& f, const Tensor& in, const Tensor& out) {
  const bool needs_grad = autograd::requires_grad(in);
  if (!GradMode::is_enabled()) {
    // Remembered only to refuse a later in-place write with grad (Note [Views and in-place]).
    if (needs_grad) track_view(in, out, ViewCreation::kNoGradMode, false);
    return nullptr;
  }
  track_view(in, out, ViewCreation::kDefault, true);
  if (!needs_grad) return nullptr;
  auto node = autograd::make_node(f, {&in});
  node->shape0.assign(in.sizes().begin(), in.sizes().end());
  autograd::set_history(out, node);
  return node;
}

std::shared_ptr<FormulaNode> record_views(const Formula& f, const Tensor& in,
                                          const std::vector<Tensor>& outs) {
  const bool needs_grad = autograd::requires_grad(in);
  if (!GradMode::is_enabled()) {
    if (needs_grad)
      for (const Tensor& o : outs) track_view(in, o, ViewCreation::kNoGradMode, false);
    return nullptr;
  }
  auto creation = needs_grad ? ViewCreation::kMultiOutput : ViewCreation::kDefault;
  for (const Tensor& o : outs) track_view(in, o, creation, true);
  if (!needs_grad) return nullptr;
  auto node = autograd::make_node(f, {&in});
  node->shape0.assign(in.sizes().begin(), in.sizes().end());
  for (const Tensor& o : outs) autograd::set_history(o, node);
  return node;
}

void record_as_strided(const Tensor& in, const Tensor& out) {
  if (autograd::any_requires_grad(in))
    check_not_overlapping(geometry_of(in), "as_strided",
                          "the input (of a differentiable as_strided)");
  auto node = record_view(kAsStrided, in, out);
  if (node) save_geometries(*node, geometry_of(in), geometry_of(out));
}

std::shared_ptr<FormulaNode> set_view_geometry(const Formula& f, const Tensor& self,
                                               const Tensor& v, int64_t dim, const char* op) {
  std::shared_ptr<FormulaNode> node;
  if (autograd::any_requires_grad(self)) {
    NABLA_CHECK(!self.is_leaf(), op,
                ": a leaf Variable that requires grad is being used in an in-place operation.");
    node = autograd::make_node(f, {&self});  // edge to the history before the change
    node->shape0.assign(self.sizes().begin(), self.sizes().end());
    node->dim = dim;
  }
  self.unsafeGetTensorImpl()->set_geometry(v.sizes(), v.strides(), v.storage_offset());
  if (node) autograd::set_history(self, node);
  return node;
}

// ---- In-place writes -------------------------------------------------------------------

void check_inplace_autograd(const Tensor& self, const char* op) {
  NABLA_CHECK(!(self.is_leaf() && self.requires_grad()), op,
              ": a leaf Variable that requires grad is being used in an in-place operation.");
  AutogradMeta* m = self.unsafeGetTensorImpl()->autograd_meta();
  if (!m || !m->view_base.defined()) return;
  switch (m->view_creation) {
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
    Geometry base = geometry_of(root), view = geometry_of(self);
    check_not_overlapping(base, "in-place", "the base of the written view");
    auto node = autograd::make_node(kCopySlices, {&root, &result});
    save_geometries(*node, base, view);
    autograd::set_history(root, node);
    refresh_views(root);  // self is among them
    return;
  }
  if (result_has_graph) {
    std::shared_ptr<autograd::Node> old = std::move(m.grad_fn);
    m.grad_fn = result.grad_fn();
    m.output_nr = result.output_nr();
    autograd::release_node(std::move(old));
  }
  if (!m.views.empty()) refresh_views(self);
}

}  // namespace nabla::ops
