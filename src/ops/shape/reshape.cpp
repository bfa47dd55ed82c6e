// Views that reshape: view, reshape, flatten/unflatten, expand, squeeze/unsqueeze (and
// their in-place forms) and as_strided. New geometry over the same storage, no copy (seed
// 004 "views share Storage"); each records its node and is tracked as a view for in-place
// writes (Note [Views and in-place], shape/views_backward.h). Backward formulas use
// differentiable ops; g is the gradient of the output.
#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "ops/op_utils.h"
#include "ops/shape/views_backward.h"

namespace nabla {

using ops::make_view;
using ops::record_view;
using ops::reshape_backward;
using ops::SizesState;
using ops::wrap_dim;

namespace {

// ---- Backward nodes -----------------------------------------------------------------------

// view, reshape, squeeze(): SizesState and reshape_backward (shape/views_backward.h).
constexpr NodeType<SizesState> kViewBackward{"ViewBackward0", reshape_backward};
constexpr NodeType<SizesState> kReshapeAliasBackward{"ReshapeAliasBackward0", reshape_backward};
// reshape that had to copy (LibTorch's _unsafe_view of a clone)
constexpr NodeType<SizesState> kUnsafeViewBackward{"UnsafeViewBackward0", reshape_backward};
constexpr NodeType<SizesState> kSqueezeBackward0{"SqueezeBackward0", reshape_backward};
constexpr NodeType<SizesState> kSqueezeBackward2{"SqueezeBackward2",
                                                 reshape_backward};  // squeeze_()

// grad [broadcast sizes] summed back to self [self_sizes].
variable_list expand_backward(OpNode<SizesState>& n, const variable_list& g) {
  return {ops::sum_to(g[0], n.state.self_sizes)};
}
constexpr NodeType<SizesState> kExpandBackward{"ExpandBackward0", expand_backward};

// squeeze(dim) leaves a dim of size != 1 (or a 0-d tensor) unchanged.
struct SqueezeDimState {
  int64_t dim = 0;
  bool squeezed = false;
};
variable_list squeeze_dim_backward(OpNode<SqueezeDimState>& n, const variable_list& g) {
  return {n.state.squeezed ? g[0].unsqueeze(n.state.dim) : g[0]};
}
constexpr NodeType<SqueezeDimState> kSqueezeBackward1{"SqueezeBackward1", squeeze_dim_backward};
constexpr NodeType<SqueezeDimState> kSqueezeBackward3{"SqueezeBackward3",  // squeeze_(dim)
                                                      squeeze_dim_backward};

struct UnsqueezeState {
  int64_t dim = 0;
};
variable_list unsqueeze_backward(OpNode<UnsqueezeState>& n, const variable_list& g) {
  return {g[0].squeeze(n.state.dim)};
}
constexpr NodeType<UnsqueezeState> kUnsqueezeBackward0{"UnsqueezeBackward0", unsqueeze_backward};
constexpr NodeType<UnsqueezeState> kUnsqueezeBackward1{"UnsqueezeBackward1",  // unsqueeze_
                                                       unsqueeze_backward};

void record_sizes(const NodeType<SizesState>& type, const Tensor& in, const Tensor& out) {
  if (auto node = record_view(type, in, out))
    node->state.self_sizes.assign(in.sizes().begin(), in.sizes().end());
}

// ---- Geometry -----------------------------------------------------------------------------

// Resolves one -1 in `shape` against `numel`; raises for bad shapes.
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape.begin(), shape.end());
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      NABLA_CHECK(infer < 0, op, ": only one dimension can be inferred, got shape ", shape);
      infer = static_cast<int>(i);
    } else {
      NABLA_CHECK(shape[i] >= 0, op, ": invalid shape dimension ", shape[i], " in ", shape);
      NABLA_CHECK(!__builtin_mul_overflow(known, shape[i], &known), op, ": shape ", shape,
                  " has more elements than int64 holds (its product overflows int64)");
    }
  }
  if (infer >= 0) {
    NABLA_CHECK(known != 0 && numel % known == 0, op, ": shape ", shape,
                " is invalid for input of size ", numel);
    out[infer] = numel / known;
  } else {
    NABLA_CHECK(known == numel, op, ": shape ", shape, " is invalid for input of size ", numel);
  }
  return out;
}

// Strides for viewing (sizes, strides) as `shape` without a copy, if possible
// (the chunk-matching rule of at::detail::computeStride).
bool view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef shape,
                  DimVector& out) {
  out.assign(shape.size(), 0);
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0 || old_sizes.empty()) {  // nothing to preserve: any layout is a view
    out = contiguous_strides(shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 ||
        (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor squeeze_view(const Tensor& t) {
  DimVector sz, st;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] != 1) {
      sz.push_back(t.sizes()[i]);
      st.push_back(t.strides()[i]);
    }
  return make_view(t, sz, st, t.storage_offset());
}

// `d` wrapped; a dim of size != 1 (or a 0-d tensor) is left as is.
bool squeezes(const Tensor& t, int64_t d) { return t.dim() > 0 && t.sizes()[d] == 1; }
Tensor squeeze_dim_view(const Tensor& t, int64_t d) {
  if (!squeezes(t, d)) return make_view(t, t.sizes(), t.strides(), t.storage_offset());
  DimVector sz(t.sizes().begin(), t.sizes().end()), st(t.strides().begin(), t.strides().end());
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(t, sz, st, t.storage_offset());
}

// `d` wrapped against dim() + 1.
Tensor unsqueeze_view(const Tensor& t, int64_t d) {
  DimVector sz(t.sizes().begin(), t.sizes().end()), st(t.strides().begin(), t.strides().end());
  int64_t new_stride = d < t.dim() ? sz[d] * st[d] : 1;
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, new_stride);
  return make_view(t, sz, st, t.storage_offset());
}

}  // namespace

// ---- Forwards -----------------------------------------------------------------------------

Tensor ops::view_impl(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "view");
  DimVector st;
  NABLA_CHECK(view_strides(self.sizes(), self.strides(), shape, st), "view: size ", shape,
              " is not compatible with input tensor's size ", self.sizes(), " and stride ",
              self.strides(),
              " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) "
              "instead.");
  Tensor out = make_view(self, shape, st, self.storage_offset());
  record_sizes(kViewBackward, self, out);
  return out;
}

Tensor ops::reshape_impl(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "reshape");
  DimVector st;
  if (view_strides(self.sizes(), self.strides(), shape, st)) {
    Tensor out = make_view(self, shape, st, self.storage_offset());
    record_sizes(kReshapeAliasBackward, self, out);
    return out;
  }
  // As LibTorch: _unsafe_view(clone()); the result owns its copy, so it is no view.
  return ops::unsafe_view(self.clone(MemoryFormat::Contiguous), shape);
}

Tensor ops::reshape_result(const NodeType<SizesState>& type, const Tensor& t, IntArrayRef shape) {
  Tensor out = make_view(t, shape, contiguous_strides(shape), t.storage_offset());
  if (auto node = autograd::record_node(type, {&t})) {
    node->state.self_sizes.assign(t.sizes().begin(), t.sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}
Tensor ops::unsafe_view(const Tensor& t, IntArrayRef shape) {
  return reshape_result(kUnsafeViewBackward, t, shape);
}

Tensor ops::expand_as_impl(const Tensor& self, const Tensor& other) {
  return self.expand(other.sizes());
}

Tensor ops::expand_impl(const Tensor& self, IntArrayRef size, bool implicit) {
  int64_t n = static_cast<int64_t>(size.size());
  NABLA_CHECK(n >= self.dim(), "expand: the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", self.dim(),
              ")");
  DimVector sz(n), st(n);
  int64_t lead = n - self.dim();
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t j = i - lead;
    int64_t want = size[i];
    if (j >= 0) {
      int64_t have = self.sizes()[j];
      if (want == -1) want = have;
      NABLA_CHECK(have == want || have == 1, "expand: the expanded size of the tensor (", want,
                  ") must match the existing size (", have, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", size, ".  Tensor sizes: ", self.sizes());
      sz[i] = want;
      st[i] = have == want ? self.strides()[j] : 0;
    } else {
      NABLA_CHECK(want >= 0, "expand: the expanded size of the tensor (", want,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sz[i] = want;
      st[i] = 0;
    }
  }
  checked_numel(sz, "expand");  // -1 only means "keep"; a size-1 dim took any other value
  Tensor out = make_view(self, sz, st, self.storage_offset());
  record_sizes(kExpandBackward, self, out);
  return out;
}

Tensor ops::squeeze_impl(const Tensor& self) {
  Tensor out = squeeze_view(self);
  record_sizes(kSqueezeBackward0, self, out);
  return out;
}

Tensor ops::squeeze_impl(const Tensor& self, int64_t d) {
  d = wrap_dim(d, self.dim(), "squeeze");
  Tensor out = squeeze_dim_view(self, d);
  if (auto node = record_view(kSqueezeBackward1, self, out)) node->state = {d, squeezes(self, d)};
  return out;
}

Tensor ops::unsqueeze_impl(const Tensor& self, int64_t d) {
  d = wrap_dim(d, self.dim() + 1, "unsqueeze");
  Tensor out = unsqueeze_view(self, d);
  if (auto node = record_view(kUnsqueezeBackward0, self, out)) node->state.dim = d;
  return out;
}

const Tensor& Tensor::squeeze_() const {
  ops::set_view_geometry(
      kSqueezeBackward2, *this, squeeze_view(*this), "squeeze_",
      [&](SizesState& s) { s.self_sizes.assign(sizes().begin(), sizes().end()); });
  return *this;
}
const Tensor& Tensor::squeeze_(int64_t d) const {
  d = wrap_dim(d, dim(), "squeeze_");
  ops::set_view_geometry(kSqueezeBackward3, *this, squeeze_dim_view(*this, d), "squeeze_",
                         [&](SqueezeDimState& s) {
                           s = {d, squeezes(*this, d)};
                         });
  return *this;
}
const Tensor& Tensor::unsqueeze_(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze_");
  ops::set_view_geometry(kUnsqueezeBackward1, *this, unsqueeze_view(*this, d), "unsqueeze_",
                         [&](UnsqueezeState& s) { s.dim = d; });
  return *this;
}

Tensor ops::flatten_impl(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) return self.reshape({1});
  int64_t s = wrap_dim(start_dim, self.dim(), "flatten"),
          e = wrap_dim(end_dim, self.dim(), "flatten");
  NABLA_CHECK(s <= e, "flatten: start_dim (", start_dim, ") cannot come after end_dim (", end_dim,
              ")");
  if (s == e) return self;  // LibTorch returns the input itself
  DimVector shape;
  for (int64_t i = 0; i < s; ++i) shape.push_back(self.sizes()[i]);
  int64_t mid = 1;
  for (int64_t i = s; i <= e; ++i) mid *= self.sizes()[i];
  shape.push_back(mid);
  for (int64_t i = e + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return self.reshape(shape);
}

Tensor ops::unflatten_impl(const Tensor& self, int64_t d, IntArrayRef sz) {
  d = wrap_dim(d, self.dim(), "unflatten");
  NABLA_CHECK(!sz.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sz, self.sizes()[d], "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(self.sizes()[i]);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return self.view(shape);
}

Tensor ops::as_strided_impl(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                            optional<int64_t> offset) {
  int64_t off = offset.value_or(self.storage_offset());
  ops::check_in_bounds(self, size, stride, off, "as_strided");
  Tensor out = make_view(self, size, stride, off);
  ops::record_as_strided(self, out);
  return out;
}

}  // namespace nabla
