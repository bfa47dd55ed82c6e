// Views of a part of the input: select, slice, narrow, and the several-view ops unbind,
// split, split_with_sizes and chunk. Each records its node and is tracked as a view (Note
// [Views and in-place], shape/views_backward.h). g is the gradient of the output.
#include <algorithm>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"
#include "ops/shape/views_backward.h"

namespace nabla {

using ops::make_view;
using ops::record_view;
using ops::record_views;
using ops::wrap_dim;

namespace {

// ---- Backward nodes -----------------------------------------------------------------------

// grad written into its slice of zeros of self's sizes.
struct SelectState {
  DimVector self_sizes;
  int64_t dim = 0, index = 0;
};
variable_list select_backward(OpNode<SelectState>& n, const variable_list& g) {
  const SelectState& s = n.state;
  Tensor grad = zeros(s.self_sizes, g[0].options());
  grad.select(s.dim, s.index).copy_(g[0]);
  return {grad};
}
constexpr NodeType<SelectState> kSelectBackward{"SelectBackward0", select_backward};

struct SliceState {
  DimVector self_sizes;
  int64_t dim = 0, start = 0, end = 0, step = 1;  // normalized: 0 <= start <= end <= size
};
variable_list slice_backward(OpNode<SliceState>& n, const variable_list& g) {
  const SliceState& s = n.state;
  Tensor grad = zeros(s.self_sizes, g[0].options());
  grad.slice(s.dim, s.start, s.end, s.step).copy_(g[0]);
  return {grad};
}
constexpr NodeType<SliceState> kSliceBackward{"SliceBackward0", slice_backward};

// One gradient per output view (zeros for those that got none), put back together.
struct DimState {
  int64_t dim = 0;
};
variable_list unbind_backward(OpNode<DimState>& n, const variable_list& g) {
  return {stack(g, n.state.dim)};
}
variable_list split_backward(OpNode<DimState>& n, const variable_list& g) {
  return {cat(g, n.state.dim)};
}
constexpr NodeType<DimState> kUnbindBackward{"UnbindBackward0", unbind_backward};
constexpr NodeType<DimState> kSplitBackward{"SplitBackward0", split_backward};
constexpr NodeType<DimState> kSplitWithSizesBackward{"SplitWithSizesBackward0", split_backward};

void record_parts(const NodeType<DimState>& type, const Tensor& in, const std::vector<Tensor>& out,
                  int64_t d) {
  if (auto node = record_views(type, in, out)) node->state.dim = d;
}

// ---- Geometry -----------------------------------------------------------------------------

// Unrecorded views; arguments already checked and normalized (dim wrapped,
// 0 <= start <= end <= size, 0 <= index < size).
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

}  // namespace

// ---- Forwards -----------------------------------------------------------------------------

Tensor ops::narrow_impl(const Tensor& self, int64_t d, int64_t start, int64_t length) {
  NABLA_CHECK(self.dim() > 0, "narrow: cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, self.dim(), "narrow");
  int64_t size = self.sizes()[d];
  if (start < 0) start += size;
  NABLA_CHECK(start >= 0 && start <= size, "narrow: start (", start,
              ") out of range for dimension ", d, " of size ", size);
  NABLA_CHECK(length >= 0 && start + length <= size, "narrow: start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ").");
  return self.slice(d, start, start + length, 1);
}

Tensor ops::select_impl(const Tensor& self, int64_t d, int64_t index) {
  NABLA_CHECK(self.dim() > 0, "select: cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, self.dim(), "select");
  int64_t size = self.sizes()[d];
  NABLA_CHECK(index >= -size && index < size, "select: index ", index,
              " out of range for tensor of size ", self.sizes(), " at dimension ", d);
  if (index < 0) index += size;
  Tensor out = select_view(self, d, index);
  if (auto node = record_view(kSelectBackward, self, out))
    node->state = {DimVector(self.sizes().begin(), self.sizes().end()), d, index};
  return out;
}

Tensor ops::slice_impl(const Tensor& self, int64_t d, optional<int64_t> start_o,
                       optional<int64_t> end_o, int64_t step) {
  NABLA_CHECK(self.dim() > 0, "slice: cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, self.dim(), "slice");
  NABLA_CHECK(step > 0, "slice: slice step must be positive, got ", step);
  int64_t size = self.sizes()[d];
  int64_t start = start_o.value_or(0), end = end_o.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Tensor out = slice_view(self, d, start, end, step);
  if (auto node = record_view(kSliceBackward, self, out))
    node->state = {DimVector(self.sizes().begin(), self.sizes().end()), d, start, end, step};
  return out;
}

std::vector<Tensor> ops::unbind_impl(const Tensor& self, int64_t d) {
  NABLA_CHECK(self.dim() > 0, "unbind: dimension specified as 0 but tensor has no dimensions");
  d = wrap_dim(d, self.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(select_view(self, d, i));
  record_parts(kUnbindBackward, self, out, d);
  return out;
}

std::vector<Tensor> ops::split_impl(const Tensor& self, int64_t split_size, int64_t d) {
  NABLA_CHECK(self.dim() > 0, "split: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, self.dim(), "split");
  NABLA_CHECK(split_size >= 0, "split: split_size must be non-negative, got ", split_size);
  int64_t size = self.sizes()[d];
  NABLA_CHECK(split_size > 0 || size == 0,
              "split: split_size can only be 0 if dimension size is 0, but got dimension size of ",
              size);
  std::vector<Tensor> out;
  if (size == 0) out.push_back(slice_view(self, d, 0, 0, 1));
  for (int64_t s = 0; s < size; s += split_size)
    out.push_back(slice_view(self, d, s, std::min(s + split_size, size), 1));
  record_parts(kSplitBackward, self, out, d);
  return out;
}

std::vector<Tensor> ops::split_impl(const Tensor& self, IntArrayRef split_sizes, int64_t d) {
  return self.split_with_sizes(split_sizes, d);
}

std::vector<Tensor> ops::split_with_sizes_impl(const Tensor& self, IntArrayRef split_sizes,
                                               int64_t d) {
  NABLA_CHECK(self.dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, self.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    NABLA_CHECK(s >= 0,
                "split_with_sizes: expects split_sizes have only non-negative entries, but got "
                "split_sizes=",
                split_sizes);
    total += s;
  }
  NABLA_CHECK(total == self.sizes()[d], "split_with_sizes: expects split_sizes to sum exactly to ",
              self.sizes()[d], " (input tensor's size at dimension ", d,
              "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(slice_view(self, d, start, start + s, 1));
    start += s;
  }
  record_parts(kSplitWithSizesBackward, self, out, d);
  return out;
}

std::vector<Tensor> ops::chunk_impl(const Tensor& self, int64_t chunks, int64_t d) {
  NABLA_CHECK(self.dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  NABLA_CHECK(chunks > 0, "chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  d = wrap_dim(d, self.dim(), "chunk");
  int64_t size = self.sizes()[d];
  int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {  // as LibTorch: `chunks` empty parts, split_with_sizes
    std::vector<Tensor> out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(slice_view(self, d, 0, 0, 1));
    record_parts(kSplitWithSizesBackward, self, out, d);
    return out;
  }
  return self.split(split_size, d);
}

}  // namespace nabla
