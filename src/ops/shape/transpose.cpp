// Views that reorder or regroup dims: transpose (and t, mT, matrix_H, in-place forms),
// permute, movedim, diagonal and unfold. Each records its node and is tracked as a view
// (Note [Views and in-place], shape/views_backward.h). g is the gradient of the output.
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/trace.h"
#include "ops/grad_sinks.h"
#include "ops/op_utils.h"
#include "ops/registry/registry_impl.h"
#include "ops/shape/views_backward.h"

namespace nabla {

using ops::make_view;
using ops::record_view;
using ops::wrap_dim;

namespace {

// ---- Backward nodes -----------------------------------------------------------------------

struct TransposeState {
  int64_t dim0 = 0, dim1 = 0;
};
variable_list transpose_backward(OpNode<TransposeState>& n, const variable_list& g) {
  return {g[0].transpose(n.state.dim0, n.state.dim1)};
}
constexpr NodeType<TransposeState> kTransposeBackward0{"TransposeBackward0", transpose_backward};
constexpr NodeType<TransposeState> kTransposeBackward1{"TransposeBackward1",  // transpose_
                                                       transpose_backward};

struct TState {};  // t()'s nodes only: ops::is_t_backward tells them by this type
variable_list t_backward(OpNode<TState>&, const variable_list& g) { return {g[0].t()}; }
constexpr NodeType<TState> kTBackward0{"TBackward0", t_backward};
constexpr NodeType<TState> kTBackward1{"TBackward1", t_backward};  // t_

struct PermuteState {
  DimVector dims;  // the permutation, wrapped
};
variable_list permute_backward(OpNode<PermuteState>& n, const variable_list& g) {
  const DimVector& dims = n.state.dims;
  DimVector inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[dims[i]] = static_cast<int64_t>(i);
  return {g[0].permute(inverse)};
}
constexpr NodeType<PermuteState> kPermuteBackward{"PermuteBackward0", permute_backward};

// grad written into the diagonal of zeros of self's sizes.
struct DiagonalState {
  DimVector self_sizes;
  int64_t offset = 0, dim1 = 0, dim2 = 0;
};
variable_list diagonal_backward(OpNode<DiagonalState>& n, const variable_list& g) {
  const DiagonalState& s = n.state;
  Tensor grad = zeros(s.self_sizes, g[0].options());
  grad.diagonal(s.offset, s.dim1, s.dim2).copy_(g[0]);
  return {grad};
}
constexpr NodeType<DiagonalState> kDiagonalBackward{"DiagonalBackward0", diagonal_backward};

// Windows may overlap (step < size): each input element sums the gradients of every
// window position that reads it.
struct UnfoldState {
  DimVector self_sizes;
  int64_t dim = 0, size = 0, step = 0;
};
variable_list unfold_backward(OpNode<UnfoldState>& n, const variable_list& g) {
  const UnfoldState& s = n.state;
  if (s.self_sizes.empty()) return {g[0].sum()};  // a 0-d input unfolds into one window of 1
  const int64_t d = s.dim, windows = g[0].size(d);
  Tensor gm = g[0].movedim(-1, d + 1).flatten(d, d + 1);  // [..., windows * size, ...]
  const TensorOptions index = gm.options().dtype(kLong);
  Tensor idx =
      (arange(windows, index).mul(s.step).unsqueeze(1) + arange(s.size, index).unsqueeze(0))
          .reshape({-1});
  DimVector idx_shape(gm.dim(), 1);
  idx_shape[d] = idx.numel();
  Tensor grad = zeros(s.self_sizes, g[0].options());
  return {grad.scatter_add(d, idx.view(idx_shape).expand(gm.sizes()), gm)};
}
constexpr NodeType<UnfoldState> kUnfoldBackward{"UnfoldBackward0", unfold_backward};

// ---- Geometry -----------------------------------------------------------------------------

Tensor transpose_view(const Tensor& t, int64_t d0, int64_t d1) {
  DimVector sz(t.sizes().begin(), t.sizes().end()), st(t.strides().begin(), t.strides().end());
  if (t.dim() > 0) {
    std::swap(sz[d0], sz[d1]);
    std::swap(st[d0], st[d1]);
  }
  return make_view(t, sz, st, t.storage_offset());
}

}  // namespace

bool ops::is_t_backward(const autograd::Node& node) {
  return dynamic_cast<const OpNode<TState>*>(&node) != nullptr;
}

// ---- Forwards -----------------------------------------------------------------------------

Tensor ops::transpose_impl(const Tensor& self, int64_t d0, int64_t d1) {
  int64_t n = self.dim();
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  Tensor out = transpose_view(self, d0, d1);
  if (auto node = record_view(kTransposeBackward0, self, out)) node->state = {d0, d1};
  return out;
}

const Tensor& Tensor::transpose_(int64_t d0, int64_t d1) const {
  int64_t n = dim();
  d0 = wrap_dim(d0, n, "transpose_");
  d1 = wrap_dim(d1, n, "transpose_");
  ops::set_view_geometry(kTransposeBackward1, *this, transpose_view(*this, d0, d1), "transpose_",
                         [&](TransposeState& s) {
                           s = {d0, d1};
                         });
  return *this;
}

Tensor ops::t_impl(const Tensor& self) {
  NABLA_CHECK(self.dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is ", self.dim(),
              "D");
  Tensor out = transpose_view(self, 0, self.dim() < 2 ? 0 : 1);
  record_view(kTBackward0, self, out);
  return out;
}

const Tensor& Tensor::t_() const {
  NABLA_CHECK(dim() <= 2, "t_: expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  ops::set_view_geometry(kTBackward1, *this, transpose_view(*this, 0, dim() < 2 ? 0 : 1), "t_",
                         [](TState&) {});
  return *this;
}

// As LibTorch 1.13, a 0-d tensor is its own transpose (returned itself).
Tensor Tensor::mT() const {
  NABLA_TRACED("mT", {*this});
  NABLA_CHECK(
      dim() != 1,
      "mT: tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.");
  return dim() == 0 ? *this : transpose(-2, -1);
}
Tensor Tensor::matrix_H() const {
  NABLA_CHECK(dim() == 2 || dim() == 0,
              "matrix_H: tensor.H is only supported on matrices (2-D tensors). Got ", dim(),
              "-D tensor.");
  return dim() == 0 ? *this : transpose(0, 1);
}

Tensor ops::permute_impl(const Tensor& self, IntArrayRef dims) {
  int64_t n = self.dim();
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
    sz[i] = self.sizes()[d];
    st[i] = self.strides()[d];
  }
  Tensor out = make_view(self, sz, st, self.storage_offset());
  if (auto node = record_view(kPermuteBackward, self, out)) node->state.dims = std::move(perm);
  return out;
}

Tensor ops::movedim_impl(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const int64_t n = self.dim();
  NABLA_CHECK(source.size() == destination.size(),
              "movedim: Invalid source or destination dims: source (", source,
              " dims) should contain the same number of dims as destination (", destination,
              " dims)");
  // wrap_dim accepts dim 0 of a 0-d tensor, which has no slot below. LibTorch returns an
  // alias there; nabla refuses it, as movedim(int, int) does (op table: views.movedim).
  NABLA_CHECK(n > 0 || source.empty(), "movedim: a 0-d tensor has no dims to move");
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
  return self.permute(order);
}

Tensor ops::movedim_impl(const Tensor& self, int64_t source, int64_t destination) {
  int64_t n = self.dim();
  int64_t s = wrap_dim(source, n, "movedim"), d = wrap_dim(destination, n, "movedim");
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (i != s) order.push_back(i);
  order.insert(order.begin() + d, s);
  return self.permute(order);
}

Tensor ops::diagonal_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t n = self.dim();
  NABLA_CHECK(n >= 2, "diagonal: expected a tensor of at least 2 dims, got ", n);
  int64_t a = wrap_dim(dim1, n, "diagonal"), b = wrap_dim(dim2, n, "diagonal");
  NABLA_CHECK(a != b, "diagonal: dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t off = self.storage_offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(self.sizes()[a], self.sizes()[b] - offset), 0);
    if (len > 0) off += offset * self.strides()[b];
  } else {
    len = std::max<int64_t>(std::min(self.sizes()[a] + offset, self.sizes()[b]), 0);
    if (len > 0) off -= offset * self.strides()[a];
  }
  DimVector sz, st;
  for (int64_t i = 0; i < n; ++i)
    if (i != a && i != b) {
      sz.push_back(self.sizes()[i]);
      st.push_back(self.strides()[i]);
    }
  sz.push_back(len);
  st.push_back(self.strides()[a] + self.strides()[b]);
  Tensor out = make_view(self, sz, st, off);
  if (auto node = record_view(kDiagonalBackward, self, out))
    node->state = {DimVector(self.sizes().begin(), self.sizes().end()), offset, a, b};
  return out;
}

Tensor ops::unfold_impl(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t n = self.dim();
  const int64_t d = wrap_dim(dimension, n, "unfold");
  const int64_t len = n == 0 ? 1 : self.sizes()[d];
  NABLA_CHECK(size >= 0 && size <= len, "unfold: maximum size for tensor at dimension ", d, " is ",
              len, " but size is ", size);
  NABLA_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  DimVector sz(self.sizes().begin(), self.sizes().end()),
      st(self.strides().begin(), self.strides().end());
  const int64_t inner = n == 0 ? 1 : self.strides()[d];
  if (n == 0) {
    sz.push_back(size);
    st.push_back(1);
  } else {
    sz[d] = (len - size) / step + 1;
    st[d] = step * inner;
    sz.push_back(size);
    st.push_back(inner);
  }
  Tensor out = make_view(self, sz, st, self.storage_offset());
  if (auto node = record_view(kUnfoldBackward, self, out))
    node->state = {DimVector(self.sizes().begin(), self.sizes().end()), n == 0 ? 0 : d, size, step};
  return out;
}

}  // namespace nabla

// ---- Registry entries ---------------------------------------------------------------------

namespace nabla::ops {

void registry::add_transpose_view_ops(std::vector<OpSchema>& t) {
  t.push_back(op("mT", 1, 1, {}, [](const V& x, const AttrReader&) -> V { return {x[0].mT()}; }));
}

}  // namespace nabla::ops
