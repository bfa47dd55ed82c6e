// View ops: new geometry over the same storage, no copy (seed 004 "views share Storage").
// Each records its backward node (formulas in views_backward.cpp) and is tracked as a
// view for in-place writes (Note [Views and in-place], views_backward.h).
#include <algorithm>
#include <numeric>
#include <vector>

#include "ops/op_utils.h"
#include "ops/views_backward.h"

namespace nabla {

using ops::make_view;
using ops::record_view;
using ops::wrap_dim;
namespace vf = ops::view_formulas;

namespace {

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
      known *= shape[i];
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

// Unrecorded geometry of the views that several ops share; arguments already checked
// and normalized (dim wrapped, 0 <= start <= end <= size, 0 <= index < size).
Tensor slice_view(const Tensor& t, int64_t d, int64_t start, int64_t end, int64_t step) {
  DimVector sz(t.sizes().begin(), t.sizes().end()), st(t.strides().begin(), t.strides().end());
  int64_t off = t.storage_offset() + start * st[d];
  sz[d] = (end - start + step - 1) / step;
  st[d] *= step;
  return make_view(t, sz, st, off);
}

Tensor select_view(const Tensor& t, int64_t d, int64_t index) {
  DimVector sz(t.sizes().begin(), t.sizes().end()), st(t.strides().begin(), t.strides().end());
  int64_t off = t.storage_offset() + index * st[d];
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(t, sz, st, off);
}

Tensor transpose_view(const Tensor& t, int64_t d0, int64_t d1) {
  DimVector sz(t.sizes().begin(), t.sizes().end()), st(t.strides().begin(), t.strides().end());
  if (t.dim() > 0) {
    std::swap(sz[d0], sz[d1]);
    std::swap(st[d0], st[d1]);
  }
  return make_view(t, sz, st, t.storage_offset());
}

}  // namespace

Tensor Tensor::view(IntArrayRef size) const {
  DimVector shape = infer_size(size, numel(), "view");
  DimVector st;
  NABLA_CHECK(view_strides(sizes(), strides(), shape, st), "view: size ", shape,
              " is not compatible with input tensor's size ", sizes(), " and stride ", strides(),
              " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) "
              "instead.");
  Tensor out = make_view(*this, shape, st, storage_offset());
  record_view(vf::kView, *this, out);
  return out;
}

Tensor Tensor::reshape(IntArrayRef size) const {
  DimVector shape = infer_size(size, numel(), "reshape");
  DimVector st;
  if (view_strides(sizes(), strides(), shape, st)) {
    Tensor out = make_view(*this, shape, st, storage_offset());
    record_view(vf::kReshapeAlias, *this, out);
    return out;
  }
  // As LibTorch: _unsafe_view(clone()); the result owns its copy, so it is no view.
  Tensor copy = clone(MemoryFormat::Contiguous);
  Tensor out = make_view(copy, shape, contiguous_strides(shape), copy.storage_offset());
  if (autograd::any_requires_grad(copy)) {
    auto node = autograd::make_node(vf::kUnsafeView, {&copy});
    node->shape0.assign(sizes().begin(), sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  int64_t n = dim();
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  Tensor out = transpose_view(*this, d0, d1);
  if (auto node = record_view(vf::kTranspose, *this, out)) node->list = {d0, d1};
  return out;
}

const Tensor& Tensor::transpose_(int64_t d0, int64_t d1) const {
  int64_t n = dim();
  d0 = wrap_dim(d0, n, "transpose_");
  d1 = wrap_dim(d1, n, "transpose_");
  if (auto node = ops::set_view_geometry(vf::kTranspose1, *this, transpose_view(*this, d0, d1), 0,
                                         "transpose_"))
    node->list = {d0, d1};
  return *this;
}

const Tensor& Tensor::t_() const {
  NABLA_CHECK(dim() <= 2, "t_: expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return transpose_(0, dim() < 2 ? 0 : 1);
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  const int64_t n = dim();
  NABLA_CHECK(source.size() == destination.size(),
              "movedim: Invalid source or destination dims: source (", source,
              " dims) should contain the same number of dims as destination (", destination,
              " dims)");
  std::vector<int64_t> order(static_cast<size_t>(n), -1);
  std::vector<bool> used(static_cast<size_t>(n), false), placed(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = wrap_dim(source[i], n, "movedim"), d = wrap_dim(destination[i], n, "movedim");
    NABLA_CHECK(!used[s], "movedim: repeated dim in `source` (", source, ")");
    NABLA_CHECK(!placed[d], "movedim: repeated dim in `destination` (", destination, ")");
    used[s] = placed[d] = true;
    order[d] = s;
  }
  int64_t next = 0;  // the other dims keep their relative order
  for (int64_t d = 0; d < n; ++d) {
    if (placed[d]) continue;
    while (used[next]) ++next;
    order[d] = next++;
  }
  return permute(order);
}

Tensor Tensor::mT() const {
  NABLA_CHECK(dim() >= 2,
              "mT: tensor.mT is only supported on matrices or batches of matrices. Got ", dim(),
              "-D tensor.");
  return transpose(-2, -1);
}
Tensor Tensor::matrix_H() const {
  NABLA_CHECK(dim() == 2, "matrix_H: tensor.H is only supported on matrices (2-D tensors). Got ",
              dim(), "-D tensor.");
  return transpose(0, 1);
}

Tensor Tensor::t() const {
  NABLA_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  Tensor out = transpose_view(*this, 0, dim() < 2 ? 0 : 1);
  record_view(vf::kT, *this, out);
  return out;
}

Tensor Tensor::permute(IntArrayRef dims) const {
  int64_t n = dim();
  NABLA_CHECK(static_cast<int64_t>(dims.size()) == n,
              "permute: number of dims don't match in permute: got ", dims, " for a tensor of ", n,
              " dims");
  DimVector sz(n), st(n), perm(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n, "permute");
    NABLA_CHECK(!seen[d], "permute: repeated dim ", dims[i], " in ", dims);
    seen[d] = true;
    perm[i] = d;
    sz[i] = sizes()[d];
    st[i] = strides()[d];
  }
  Tensor out = make_view(*this, sz, st, storage_offset());
  if (auto node = record_view(vf::kPermute, *this, out)) node->dims = perm;
  return out;
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  int64_t n = dim();
  int64_t s = wrap_dim(source, n, "movedim"), d = wrap_dim(destination, n, "movedim");
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (i != s) order.push_back(i);
  order.insert(order.begin() + d, s);
  return permute(order);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  NABLA_CHECK(dim() > 0, "narrow: cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "narrow");
  int64_t size = sizes()[d];
  if (start < 0) start += size;
  NABLA_CHECK(start >= 0 && start <= size, "narrow: start (", start,
              ") out of range for dimension ", d, " of size ", size);
  NABLA_CHECK(length >= 0 && start + length <= size, "narrow: start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ").");
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  NABLA_CHECK(dim() > 0, "select: cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "select");
  int64_t size = sizes()[d];
  NABLA_CHECK(index >= -size && index < size, "select: index ", index,
              " out of range for tensor of size ", sizes(), " at dimension ", d);
  if (index < 0) index += size;
  Tensor out = select_view(*this, d, index);
  if (auto node = record_view(vf::kSelect, *this, out)) {
    node->dim = d;
    node->list = {index};
  }
  return out;
}

Tensor Tensor::slice(int64_t d, optional<int64_t> start_o, optional<int64_t> end_o,
                     int64_t step) const {
  NABLA_CHECK(dim() > 0, "slice: cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "slice");
  NABLA_CHECK(step > 0, "slice: slice step must be positive, got ", step);
  int64_t size = sizes()[d];
  int64_t start = start_o.value_or(0), end = end_o.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Tensor out = slice_view(*this, d, start, end, step);
  if (auto node = record_view(vf::kSlice, *this, out)) {
    node->dim = d;
    node->list = {start, end, step};
  }
  return out;
}

Tensor Tensor::expand(IntArrayRef size, bool) const {
  int64_t n = static_cast<int64_t>(size.size());
  NABLA_CHECK(n >= dim(), "expand: the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", dim(), ")");
  DimVector sz(n), st(n);
  int64_t lead = n - dim();
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t j = i - lead;
    int64_t want = size[i];
    if (j >= 0) {
      int64_t have = sizes()[j];
      if (want == -1) want = have;
      NABLA_CHECK(have == want || have == 1, "expand: the expanded size of the tensor (", want,
                  ") must match the existing size (", have, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", size, ".  Tensor sizes: ", sizes());
      sz[i] = want;
      st[i] = have == want ? strides()[j] : 0;
    } else {
      NABLA_CHECK(want >= 0, "expand: the expanded size of the tensor (", want,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sz[i] = want;
      st[i] = 0;
    }
  }
  Tensor out = make_view(*this, sz, st, storage_offset());
  record_view(vf::kExpand, *this, out);
  return out;
}

namespace {

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
Tensor squeeze_dim_view(const Tensor& t, int64_t d) {
  if (t.dim() == 0 || t.sizes()[d] != 1)
    return make_view(t, t.sizes(), t.strides(), t.storage_offset());
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

Tensor Tensor::squeeze() const {
  Tensor out = squeeze_view(*this);
  record_view(vf::kSqueeze0, *this, out);
  return out;
}

Tensor Tensor::squeeze(int64_t d) const {
  d = wrap_dim(d, dim(), "squeeze");
  Tensor out = squeeze_dim_view(*this, d);
  if (auto node = record_view(vf::kSqueeze1, *this, out)) node->dim = d;
  return out;
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  Tensor out = unsqueeze_view(*this, d);
  if (auto node = record_view(vf::kUnsqueeze0, *this, out)) node->dim = d;
  return out;
}

const Tensor& Tensor::squeeze_() const {
  ops::set_view_geometry(vf::kSqueeze2, *this, squeeze_view(*this), 0, "squeeze_");
  return *this;
}
const Tensor& Tensor::squeeze_(int64_t d) const {
  d = wrap_dim(d, dim(), "squeeze_");
  ops::set_view_geometry(vf::kSqueeze3, *this, squeeze_dim_view(*this, d), d, "squeeze_");
  return *this;
}
const Tensor& Tensor::unsqueeze_(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze_");
  ops::set_view_geometry(vf::kUnsqueeze1, *this, unsqueeze_view(*this, d), d, "unsqueeze_");
  return *this;
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  NABLA_CHECK(s <= e, "flatten: start_dim (", start_dim, ") cannot come after end_dim (", end_dim,
              ")");
  if (s == e) return *this;  // LibTorch returns the input itself
  DimVector shape;
  for (int64_t i = 0; i < s; ++i) shape.push_back(sizes()[i]);
  int64_t mid = 1;
  for (int64_t i = s; i <= e; ++i) mid *= sizes()[i];
  shape.push_back(mid);
  for (int64_t i = e + 1; i < dim(); ++i) shape.push_back(sizes()[i]);
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef sz) const {
  d = wrap_dim(d, dim(), "unflatten");
  NABLA_CHECK(!sz.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sz, sizes()[d], "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(sizes()[i]);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < dim(); ++i) shape.push_back(sizes()[i]);
  return view(shape);
}

Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride, optional<int64_t> offset) const {
  int64_t off = offset.value_or(storage_offset());
  ops::check_in_bounds(*this, size, stride, off, "as_strided");
  Tensor out = make_view(*this, size, stride, off);
  ops::record_as_strided(*this, out);
  return out;
}

Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  const int64_t n = dim();
  const int64_t d = wrap_dim(dimension, n, "unfold");
  const int64_t len = n == 0 ? 1 : sizes()[d];
  NABLA_CHECK(size >= 0 && size <= len, "unfold: maximum size for tensor at dimension ", d, " is ",
              len, " but size is ", size);
  NABLA_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  DimVector sz(sizes().begin(), sizes().end()), st(strides().begin(), strides().end());
  const int64_t inner = n == 0 ? 1 : strides()[d];
  if (n == 0) {
    sz.push_back(size);
    st.push_back(1);
  } else {
    sz[d] = (len - size) / step + 1;
    st[d] = step * inner;
    sz.push_back(size);
    st.push_back(inner);
  }
  Tensor out = make_view(*this, sz, st, storage_offset());
  if (auto node = record_view(vf::kUnfold, *this, out)) node->list = {n == 0 ? 0 : d, size, step};
  return out;
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  int64_t n = dim();
  NABLA_CHECK(n >= 2, "diagonal: expected a tensor of at least 2 dims, got ", n);
  int64_t a = wrap_dim(dim1, n, "diagonal"), b = wrap_dim(dim2, n, "diagonal");
  NABLA_CHECK(a != b, "diagonal: dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t off = storage_offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(sizes()[a], sizes()[b] - offset), 0);
    if (len > 0) off += offset * strides()[b];
  } else {
    len = std::max<int64_t>(std::min(sizes()[a] + offset, sizes()[b]), 0);
    if (len > 0) off -= offset * strides()[a];
  }
  DimVector sz, st;
  for (int64_t i = 0; i < n; ++i)
    if (i != a && i != b) {
      sz.push_back(sizes()[i]);
      st.push_back(strides()[i]);
    }
  sz.push_back(len);
  st.push_back(strides()[a] + strides()[b]);
  Tensor out = make_view(*this, sz, st, off);
  if (auto node = record_view(vf::kDiagonal, *this, out)) node->list = {offset, a, b};
  return out;
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  NABLA_CHECK(dim() > 0, "unbind: dimension specified as 0 but tensor has no dimensions");
  d = wrap_dim(d, dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < sizes()[d]; ++i) out.push_back(select_view(*this, d, i));
  if (auto node = ops::record_views(vf::kUnbind, *this, out)) node->dim = d;
  return out;
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  NABLA_CHECK(dim() > 0, "split: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, dim(), "split");
  NABLA_CHECK(split_size >= 0, "split: split_size must be non-negative, got ", split_size);
  int64_t size = sizes()[d];
  NABLA_CHECK(split_size > 0 || size == 0,
              "split: split_size can only be 0 if dimension size is 0, but got dimension size of ",
              size);
  std::vector<Tensor> out;
  if (size == 0) out.push_back(slice_view(*this, d, 0, 0, 1));
  for (int64_t s = 0; s < size; s += split_size)
    out.push_back(slice_view(*this, d, s, std::min(s + split_size, size), 1));
  if (auto node = ops::record_views(vf::kSplit, *this, out)) node->dim = d;
  return out;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t d) const {
  return split_with_sizes(split_sizes, d);
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t d) const {
  NABLA_CHECK(dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    NABLA_CHECK(s >= 0,
                "split_with_sizes: expects split_sizes have only non-negative entries, but got "
                "split_sizes=",
                split_sizes);
    total += s;
  }
  NABLA_CHECK(total == sizes()[d], "split_with_sizes: expects split_sizes to sum exactly to ",
              sizes()[d], " (input tensor's size at dimension ", d,
              "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(slice_view(*this, d, start, start + s, 1));
    start += s;
  }
  if (auto node = ops::record_views(vf::kSplitWithSizes, *this, out)) node->dim = d;
  return out;
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  NABLA_CHECK(dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  NABLA_CHECK(chunks > 0, "chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  d = wrap_dim(d, dim(), "chunk");
  int64_t size = sizes()[d];
  int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    std::vector<Tensor> out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(slice_view(*this, d, 0, 0, 1));
    if (auto node = ops::record_views(vf::kSplit, *this, out)) node->dim = d;
    return out;
  }
  return split(split_size, d);
}

}  // namespace nabla
