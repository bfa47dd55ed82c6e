// Shape, indexing and product ops of LibTorch composed from nabla's ops: diag,
// diag_embed, diagflat, tile, repeat_interleave, index_add/copy/fill, masked_scatter,
// take, take_along_dim, flips and rotations, sum_to_size, inner, kron, cross, addmv,
// addr, addbmm, baddbmm, tensor_split and h/v/dsplit (schema rows: core/op_list/shape.def
// and views.def; sum_to_size's registry entry is here). Gradients come from the pieces, except for
// the ops LibTorch differentiates as ops of their own (diag, diag_embed, rot90,
// index_add/copy/fill, masked_scatter, take, linalg_cross and the add-products): they compute their
// value without history and record LibTorch's node (ops::with_node), whose formula is below.
#include <algorithm>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/composite.h"
#include "ops/registry/registry_impl.h"
#include "ops/shape/views_backward.h"

namespace nabla {

namespace {

// diag of a vector builds a matrix, whose gradient is g's diagonal; diag of a matrix takes
// its diagonal, whose gradient is g written into the diagonal of zeros.
struct DiagState {
  DimVector self_sizes;
  int64_t diagonal = 0;
};
variable_list diag_backward(OpNode<DiagState>& n, const variable_list& g) {
  const DiagState& s = n.state;
  if (s.self_sizes.size() == 1) return {g[0].diagonal(s.diagonal)};
  Tensor grad = zeros(s.self_sizes, g[0].options());
  grad.diagonal(s.diagonal).copy_(g[0]);
  return {grad};
}
constexpr NodeType<DiagState> kDiagBackward{"DiagBackward0", diag_backward};

struct DiagEmbedState {
  int64_t offset = 0, dim1 = 0, dim2 = 0;  // wrapped
};
variable_list diag_embed_backward(OpNode<DiagEmbedState>& n, const variable_list& g) {
  return {g[0].diagonal(n.state.offset, n.state.dim1, n.state.dim2)};
}
constexpr NodeType<DiagEmbedState> kDiagEmbedBackward{"DiagEmbedBackward0", diag_embed_backward};

// A rotation by k quarter turns is undone by -k in the same plane.
struct Rot90State {
  int64_t k = 0, dim0 = 0, dim1 = 0;  // dims wrapped
};
variable_list rot90_backward(OpNode<Rot90State>& n, const variable_list& g) {
  return {g[0].rot90(-n.state.k, {n.state.dim0, n.state.dim1})};
}
constexpr NodeType<Rot90State> kRot90Backward{"Rot90Backward0", rot90_backward};

// index broadcast along `dim` of a tensor of `shape` (for scatter/gather by an index list).
Tensor index_along(const Tensor& index, IntArrayRef shape, int64_t dim) {
  DimVector view(shape.size(), 1);
  view[dim] = index.numel();
  DimVector full(shape.begin(), shape.end());
  full[dim] = index.numel();
  return index.reshape({-1}).view(view).expand(full);
}

void check_index(const Tensor& index, const char* op) {
  ops::check_defined(index, op);
  NABLA_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt, op,
              ": expected an int64 or int32 index, got ", index.scalar_type());
  NABLA_CHECK(index.dim() <= 1, op, ": index should have at most 1 dimension, got ", index.dim());
}

// The source of index_add/index_copy checked against self: dim `dim` holds one slice per index.
void check_source(const Tensor& self, int64_t d, const Tensor& index, const Tensor& source,
                  const char* op) {
  ops::check_defined(source, op);
  NABLA_CHECK(source.dim() == self.dim() || (self.dim() <= 1 && source.dim() <= 1), op,
              ": source has ", source.dim(), " dims but self has ", self.dim());
  const int64_t count = source.dim() == 0 ? 1 : source.size(d);
  NABLA_CHECK(count == index.numel(), op, ": number of indices (", index.numel(),
              ") should be equal to source.size(dim) (", count, ")");
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d)
      NABLA_CHECK(self.size(i) == source.size(i), op, ": self (sizes ", self.sizes(),
                  ") and source (sizes ", source.sizes(), ") must match in every dim but ", d);
}

using autograd::save;
using ops::grad_to;
using ops::scaled;
using ops::sizes_of;
using ops::with_node;

// index_add and index_copy: source's slices go to self's slices at `index` along dim.
struct IndexSourceState {
  int64_t dim = 0;      // wrapped
  SavedVariable index;  // 1-d
  Scalar alpha = 1;     // index_add
  DimVector source_sizes;
  auto saved() { return std::tie(index); }
};
// grad [self sizes] at index along dim: the gradient of what was taken or written there.
// A 0-d self has one slice.
Tensor slices_at(const Tensor& grad, int64_t dim, const Tensor& index) {
  return grad.dim() == 0 ? grad.reshape({1}).expand({index.numel()})
                         : grad.index_select(dim, index);
}
// grad_self = grad, grad_source = alpha * grad's slices at index (in source's shape).
variable_list index_add_backward(OpNode<IndexSourceState>& n, const variable_list& g) {
  const IndexSourceState& s = n.state;
  return {g[0],
          n.needs_input_grad(1)
              ? scaled(slices_at(g[0], s.dim, n.get(s.index)).reshape(s.source_sizes), s.alpha)
              : Tensor()};
}
// grad_self = grad with the written slices zeroed, grad_source = grad's slices at index.
variable_list index_copy_backward(OpNode<IndexSourceState>& n, const variable_list& g) {
  const IndexSourceState& s = n.state;
  Tensor index = n.get(s.index);
  return {n.needs_input_grad(0) ? g[0].index_fill(s.dim, index, 0) : Tensor(),
          n.needs_input_grad(1) ? slices_at(g[0], s.dim, index).reshape(s.source_sizes) : Tensor()};
}
constexpr NodeType<IndexSourceState> kIndexAddBackward0{"IndexAddBackward0", index_add_backward};
constexpr NodeType<IndexSourceState> kIndexCopyBackward0{"IndexCopyBackward0", index_copy_backward};

// The value of index_add/index_copy as one node over self and source.
template <class F>
Tensor index_source_op(const NodeType<IndexSourceState>& type, const Tensor& self, int64_t dim,
                       const Tensor& index, const Tensor& source, const Scalar& alpha, F&& value) {
  return with_node(type, {&self, &source}, value, [&](IndexSourceState& s, const Tensor&) {
    s.dim = dim;
    s.index = save(index.reshape({-1}));
    s.alpha = alpha;
    s.source_sizes = sizes_of(source);
  });
}

// index_fill: the filled slices take a constant (a Scalar) or a 0-d tensor `value`.
struct IndexFillState {
  int64_t dim = 0;  // wrapped
  SavedVariable index;
  auto saved() { return std::tie(index); }
};
// grad_self = grad with the filled slices zeroed; grad_value = the sum of grad over the
// filled slices (each slice once, however often the index names it).
variable_list index_fill_backward(OpNode<IndexFillState>& n, const variable_list& g) {
  const IndexFillState& s = n.state;
  Tensor index = n.get(s.index), gv;
  if (n.num_outputs() > 1 && n.needs_input_grad(1))
    gv = slices_at(g[0], s.dim, std::get<0>(unique_dim(index, 0))).sum();
  return {n.needs_input_grad(0) ? g[0].index_fill(s.dim, index, 0) : Tensor(), gv};
}
constexpr NodeType<IndexFillState> kIndexFillBackward0{"IndexFillBackward0", index_fill_backward};
constexpr NodeType<IndexFillState> kIndexFillBackward1{"IndexFillBackward1", index_fill_backward};

// masked_scatter: the positions where mask is true take source's leading elements.
struct MaskedScatterState {
  SavedVariable mask;
  DimVector source_sizes;
  auto saved() { return std::tie(mask); }
};
// grad_self = grad where mask is false; grad_source = grad's masked elements in order,
// zeros for the source elements not used, in source's shape.
variable_list masked_scatter_backward(OpNode<MaskedScatterState>& n, const variable_list& g) {
  const MaskedScatterState& s = n.state;
  Tensor mask = n.get(s.mask), gs;
  if (n.needs_input_grad(1)) {
    gs = g[0].masked_select(mask);
    const int64_t unused = checked_numel(s.source_sizes, "masked_scatter") - gs.numel();
    if (unused > 0) gs = cat({gs, zeros({unused}, g[0].options())});
    gs = gs.view(s.source_sizes);
  }
  return {n.needs_input_grad(0) ? g[0].masked_fill(mask, 0) : Tensor(), gs};
}
constexpr NodeType<MaskedScatterState> kMaskedScatterBackward0{"MaskedScatterBackward0",
                                                               masked_scatter_backward};

// take: elements of self (as flat) at index.
struct TakeState {
  SavedVariable index;  // flat, wrapped into [0, numel)
  DimVector self_sizes;
  auto saved() { return std::tie(index); }
};
// grad_self = zeros with grad added at the taken positions (repeats add up).
variable_list take_backward(OpNode<TakeState>& n, const variable_list& g) {
  const TakeState& s = n.state;
  Tensor flat = zeros(s.self_sizes, g[0].options()).reshape({-1});
  return {flat.index_add(0, n.get(s.index), g[0].reshape({-1})).view(s.self_sizes)};
}
constexpr NodeType<TakeState> kTakeBackward0{"TakeBackward0", take_backward};

// linalg_cross along dim.
struct CrossState {
  SavedVariable self, other;  // each saved when the other input's gradient reads it
  int64_t dim = 0;            // wrapped
  DimVector self_sizes, other_sizes;
  auto saved() { return std::tie(self, other); }
};
// grad_self = other x grad, grad_other = grad x self (summed to the input's shape).
variable_list cross_backward(OpNode<CrossState>& n, const variable_list& g) {
  const CrossState& s = n.state;
  return {
      n.needs_input_grad(0) ? grad_to(n.get(s.other).cross(g[0], s.dim), s.self_sizes) : Tensor(),
      n.needs_input_grad(1) ? grad_to(g[0].cross(n.get(s.self), s.dim), s.other_sizes) : Tensor()};
}
constexpr NodeType<CrossState> kLinalgCrossBackward0{"LinalgCrossBackward0", cross_backward};

}  // namespace

Tensor ops::diag_impl(const Tensor& self, int64_t k) {
  ops::check_defined(self, "diag");
  NABLA_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ",
              self.dim(), "D");
  return with_node(
      kDiagBackward, {&self},
      [&] {
        return self.dim() == 2 ? self.diagonal(k).clone(MemoryFormat::Contiguous)
                               : self.diag_embed(k, 0, 1);
      },
      [&](DiagState& s, const Tensor&) {
        s = {sizes_of(self), k};
      });
}

Tensor ops::diag_embed_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  ops::check_defined(self, "diag_embed");
  const int64_t n = self.dim() + 1;
  const int64_t a = ops::wrap_dim(dim1, n, "diag_embed"), b = ops::wrap_dim(dim2, n, "diag_embed");
  NABLA_CHECK(a != b, "diag_embed: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t len = self.dim() == 0 ? 1 : self.size(-1);
  const int64_t side = len + std::abs(offset);
  DimVector shape;
  for (int64_t i = 0, j = 0; i < n; ++i)
    shape.push_back(i == a || i == b ? side : self.sizes()[j++]);
  return with_node(
      kDiagEmbedBackward, {&self},
      [&] {
        Tensor out = zeros(shape, self.options());
        out.diagonal(offset, a, b).copy_(self);  // the diagonal view has this tensor's shape
        return out;
      },
      [&](DiagEmbedState& s, const Tensor&) {
        s = {offset, a, b};
      });
}

Tensor ops::diagflat_impl(const Tensor& self, int64_t offset) {
  ops::check_defined(self, "diagflat");
  return self.reshape({-1}).diag(offset);  // as LibTorch 1.13: a DiagBackward0 node
}

Tensor ops::ravel_impl(const Tensor& self) { return self.contiguous().view({-1}); }

Tensor ops::tile_impl(const Tensor& self, IntArrayRef dims) {
  ops::check_defined(self, "tile");
  // Fewer reps than dims: ones are prepended (LibTorch's rule), then repeat.
  std::vector<int64_t> reps(dims.begin(), dims.end());
  while (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(reps.begin(), 1);
  return self.repeat(reps);
}

Tensor ops::repeat_interleave_impl(const Tensor& self, const Tensor& repeats, optional<int64_t> dim,
                                   optional<int64_t>) {
  ops::check_defined(repeats, "repeat_interleave (repeats)");
  NABLA_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got ",
              repeats.dim());
  if (repeats.dim() == 0 || repeats.numel() == 1)
    return self.repeat_interleave(repeats.item<int64_t>(), dim);
  Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? ops::wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  NABLA_CHECK(repeats.size(0) == input.size(d),
              "repeat_interleave: repeats must have the same size as input along "
              "dim (",
              repeats.size(0), " vs ", input.size(d), ")");
  Tensor r = ops::host_values(repeats.to(kLong).contiguous());
  const int64_t* rp = ops::host_ptr<int64_t>(r);
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < r.numel(); ++i) {
    NABLA_CHECK(rp[i] >= 0, "repeat_interleave: repeats can not be negative");
    idx.insert(idx.end(), static_cast<size_t>(rp[i]), i);
  }
  return input.index_select(d, tensor(idx, TensorOptions(kLong).device(input.device())));
}

Tensor ops::index_add_impl(const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& source, const Scalar& alpha) {
  ops::check_defined(self, "index_add");
  check_index(index, "index_add");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "index_add");
  check_source(self, d, index, source, "index_add");
  return index_source_op(kIndexAddBackward0, self, d, index, source, alpha, [&] {
    if (self.dim() == 0) return self + source.reshape({}) * alpha;
    return self.scatter_add(d, index_along(index.to(kLong), source.sizes(), d),
                            scaled(source, alpha).to(self.scalar_type()));
  });
}

Tensor ops::index_copy_impl(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& source) {
  ops::check_defined(self, "index_copy");
  check_index(index, "index_copy");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "index_copy");
  check_source(self, d, index, source, "index_copy");
  return index_source_op(kIndexCopyBackward0, self, d, index, source, 1, [&] {
    if (self.dim() == 0) return source.reshape({}).to(self.scalar_type());
    return self.scatter(d, index_along(index.to(kLong), source.sizes(), d),
                        source.to(self.scalar_type()));
  });
}
namespace {
// index_fill's value and node; `value_tensor` is the 0-d tensor value, when given as one.
Tensor index_fill_of(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                     const Tensor* value_tensor) {
  ops::check_defined(self, "index_fill");
  check_index(index, "index_fill");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "index_fill");
  auto fill = [&](IndexFillState& s, const Tensor&) {
    s.dim = d;
    s.index = save(index.reshape({-1}));
  };
  auto filled = [&] {
    if (self.dim() == 0) return index.numel() ? full_like(self, value) : self.clone();
    return self.scatter(d, index_along(index.to(kLong), sizes_of(self), d), value);
  };
  if (value_tensor) return with_node(kIndexFillBackward1, {&self, value_tensor}, filled, fill);
  return with_node(kIndexFillBackward0, {&self}, filled, fill);
}
}  // namespace

Tensor ops::index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index,
                            const Scalar& value) {
  return index_fill_of(self, dim, index, value, nullptr);
}
Tensor ops::index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& value) {
  ops::check_defined(value, "index_fill (value)");
  NABLA_CHECK(value.dim() == 0,
              "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return index_fill_of(self, dim, index, value.item(), &value);
}

// Positions where mask (broadcast to self) is true take source's leading elements in order.
Tensor ops::masked_scatter_impl(const Tensor& self, const Tensor& mask, const Tensor& source) {
  ops::check_defined(self, "masked_scatter");
  NABLA_CHECK(mask.scalar_type() == kBool, "masked_scatter: expected BoolTensor for mask, got ",
              mask.scalar_type());
  Tensor m = mask.expand(self.sizes()).reshape({-1});
  Tensor pos = m.nonzero().reshape({-1});
  const int64_t count = pos.numel();
  NABLA_CHECK(source.numel() >= count, "masked_scatter: expected source to have at least ", count,
              " elements, got ", source.numel());
  return with_node(
      kMaskedScatterBackward0, {&self, &source},
      [&] {
        Tensor values = source.reshape({-1}).narrow(0, 0, count).to(self.scalar_type());
        return self.reshape({-1}).scatter(0, pos, values).view(self.sizes());
      },
      [&](MaskedScatterState& s, const Tensor&) {
        s.mask = save(mask);
        s.source_sizes = sizes_of(source);
      });
}
Tensor ops::take_impl(const Tensor& self, const Tensor& index) {
  ops::check_defined(self, "take");
  ops::check_defined(index, "take (index)");
  NABLA_CHECK(index.scalar_type() == kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  const int64_t n = self.numel();
  Tensor idx = index.reshape({-1});
  if (idx.numel() > 0) {
    const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
    NABLA_CHECK(lo >= -n && hi < n, "take(): index out of range for tensor of size ", self.sizes(),
                " (", n, " elements); got indices in [", lo, ", ", hi, "]");
  }
  idx = nabla::where(idx < 0, idx + n, idx);
  return with_node(
      kTakeBackward0, {&self},
      [&] { return self.reshape({-1}).index_select(0, idx).view(index.sizes()); },
      [&](TakeState& s, const Tensor&) {
        s.index = save(idx);
        s.self_sizes = sizes_of(self);
      });
}

Tensor ops::narrow_copy_impl(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length).clone(MemoryFormat::Contiguous);
}

Tensor ops::take_along_dim_impl(const Tensor& self, const Tensor& indices, optional<int64_t> dim) {
  ops::check_defined(self, "take_along_dim");
  if (!dim) return self.reshape({-1}).gather(0, indices.reshape({-1}));
  const int64_t d = ops::wrap_dim(*dim, self.dim(), "take_along_dim");
  // Both broadcast in every dim but d.
  DimVector self_shape(self.sizes().begin(), self.sizes().end()),
      idx_shape(indices.sizes().begin(), indices.sizes().end());
  NABLA_CHECK(indices.dim() == self.dim(),
              "take_along_dim: input and indices should have the same number of "
              "dimensions, but got ",
              self.dim(), " and ", indices.dim());
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i == d) continue;
    const int64_t b = std::max(self_shape[i], idx_shape[i]);
    self_shape[i] = idx_shape[i] = b;
  }
  return self.expand(self_shape).gather(d, indices.expand(idx_shape));
}

Tensor ops::flipud_impl(const Tensor& self) {
  NABLA_CHECK(self.dim() >= 1, "flipud: Input must be >= 1-d.");
  return self.flip({0});
}
Tensor ops::fliplr_impl(const Tensor& self) {
  NABLA_CHECK(self.dim() >= 2, "fliplr: Input must be >= 2-d.");
  return self.flip({1});
}
Tensor ops::rot90_impl(const Tensor& self, int64_t k, IntArrayRef dims) {
  NABLA_CHECK(dims.size() == 2,
              "rot90: expected total rotation dims == 2, but got dims = ", dims.size());
  NABLA_CHECK(self.dim() >= 2,
              "rot90: expected total dims >= 2, but got total dims = ", self.dim());
  const int64_t a = ops::wrap_dim(dims[0], self.dim(), "rot90"),
                b = ops::wrap_dim(dims[1], self.dim(), "rot90");
  NABLA_CHECK(a != b, "rot90: expected rotation dims to be different, but got dim0 = ", a,
              " and dim1 = ", b);
  return with_node(
      kRot90Backward, {&self},
      [&] {
        switch (((k % 4) + 4) % 4) {
          case 1:
            return self.flip({b}).transpose(a, b);
          case 2:
            return self.flip({a, b});
          case 3:
            return self.flip({a}).transpose(a, b);
          default:
            return self.clone(MemoryFormat::Contiguous);
        }
      },
      [&](Rot90State& s, const Tensor&) {
        s = {k, a, b};
      });
}

Tensor ops::sum_to_size_impl(const Tensor& self, IntArrayRef size) {
  ops::check_defined(self, "sum_to_size");
  NABLA_CHECK(static_cast<int64_t>(size.size()) <= self.dim(), "sum_to_size: size {", size,
              "} is not expandable to size {", self.sizes(), "}");
  const int64_t lead = self.dim() - static_cast<int64_t>(size.size());
  std::vector<int64_t> dims;  // as LibTorch's sum_to: a view only to drop leading dims
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (size_t i = 0; i < size.size(); ++i) {
    const int64_t d = lead + static_cast<int64_t>(i);
    NABLA_CHECK(size[i] == 1 || size[i] == self.sizes()[d], "sum_to_size: size {", size,
                "} is not expandable to size {", self.sizes(), "}");
    if (size[i] == 1 && self.sizes()[d] != 1) dims.push_back(d);
  }
  Tensor r = dims.empty() ? self : self.sum(dims, /*keepdim=*/true);
  return lead > 0 ? r.view(size) : r;
}

// ---- Products ---------------------------------------------------------------------------
Tensor ops::inner_impl(const Tensor& self, const Tensor& other) {
  ops::check_defined(self, "inner");
  if (self.dim() == 0 || other.dim() == 0) return self * other;
  NABLA_CHECK(self.size(-1) == other.size(-1),
              "inner() the last dimension must match on both input tensors but got "
              "shapes ",
              self.sizes(), " and ", other.sizes());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
  shape.insert(shape.end(), other.sizes().begin(), other.sizes().end() - 1);
  // As LibTorch's tensordot: a product of the flattened operands, then reshape.
  return self.reshape({-1, self.size(-1)})
      .mm(other.reshape({-1, other.size(-1)}).t())
      .reshape(shape);
}

Tensor ops::kron_impl(const Tensor& self, const Tensor& other) {
  ops::check_defined(self, "kron");
  const int64_t n = std::max(self.dim(), other.dim());
  std::vector<int64_t> a(static_cast<size_t>(n - self.dim()), 1),
      b(static_cast<size_t>(n - other.dim()), 1);
  a.insert(a.end(), self.sizes().begin(), self.sizes().end());
  b.insert(b.end(), other.sizes().begin(), other.sizes().end());
  std::vector<int64_t> va, vb, out;
  for (int64_t i = 0; i < n; ++i) {
    va.push_back(a[i]);
    va.push_back(1);
    vb.push_back(1);
    vb.push_back(b[i]);
    out.push_back(a[i] * b[i]);
  }
  return ops::unsafe_view(self.reshape(va) * other.reshape(vb), out);  // as LibTorch's kron
}

Tensor ops::cross_impl(const Tensor& self, const Tensor& other, optional<int64_t> dim) {
  ops::check_defined(self, "cross");
  NABLA_CHECK(self.dim() == other.dim(),
              "linalg.cross: inputs must have the same number of dimensions (got ", self.dim(),
              " and ", other.dim(), ")");
  int64_t d = -1;
  if (dim) {
    d = ops::wrap_dim(*dim, self.dim(), "cross");
  } else {
    for (int64_t i = 0; i < self.dim(); ++i)
      if (self.size(i) == 3) {
        d = i;
        break;
      }
    NABLA_CHECK(d >= 0, "no dimension of size 3 in input");
  }
  NABLA_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", d,
              " must have length 3. Got ", self.size(d), " and ", other.size(d));
  auto c = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return with_node(
      kLinalgCrossBackward0, {&self, &other},
      [&] {
        return cat({c(self, 1) * c(other, 2) - c(self, 2) * c(other, 1),
                    c(self, 2) * c(other, 0) - c(self, 0) * c(other, 2),
                    c(self, 0) * c(other, 1) - c(self, 1) * c(other, 0)},
                   d);
      },
      [&](CrossState& s, const Tensor&) {
        if (autograd::requires_grad(other)) s.self = save(self);
        if (autograd::requires_grad(self)) s.other = save(other);
        s.dim = d;
        s.self_sizes = sizes_of(self);
        s.other_sizes = sizes_of(other);
      });
}

namespace {

// addmv, addr, addbmm and baddbmm: beta * self + alpha * product(a, b).
struct AddProductState {
  SavedVariable a, b;  // each saved when the other operand's gradient reads it
  Scalar beta, alpha;
  DimVector self_sizes;
  auto saved() { return std::tie(a, b); }
};
// grad_self = beta * grad (summed to self's shape); the operands' gradients are alpha
// times grad_a(grad, b) and grad_b(grad, a), each written for its product below.
template <Tensor (*grad_a)(const Tensor& g, const Tensor& b),
          Tensor (*grad_b)(const Tensor& g, const Tensor& a)>
variable_list add_product_backward(OpNode<AddProductState>& n, const variable_list& grads) {
  const AddProductState& s = n.state;
  const Tensor& g = grads[0];
  return {n.needs_input_grad(0) ? grad_to(scaled(g, s.beta), s.self_sizes) : Tensor(),
          n.needs_input_grad(1) ? scaled(grad_a(g, n.get(s.b)), s.alpha) : Tensor(),
          n.needs_input_grad(2) ? scaled(grad_b(g, n.get(s.a)), s.alpha) : Tensor()};
}
// addmv: mat [n, m] @ vec [m]: grad_mat = grad [n] (outer) vec, grad_vec = mat^T @ grad.
Tensor addmv_grad_mat(const Tensor& g, const Tensor& vec) { return g.outer(vec); }
Tensor addmv_grad_vec(const Tensor& g, const Tensor& mat) { return mat.t().mv(g); }
// addr: vec1 [n] (outer) vec2 [m]: grad_vec1 = grad [n, m] @ vec2, grad_vec2 = grad^T @ vec1.
Tensor addr_grad_vec1(const Tensor& g, const Tensor& vec2) { return g.mv(vec2); }
Tensor addr_grad_vec2(const Tensor& g, const Tensor& vec1) { return g.t().mv(vec1); }
// baddbmm: batch1 [B, n, k] @ batch2 [B, k, m]: grad_batch1 = grad [B, n, m] @ batch2^T,
// grad_batch2 = batch1^T @ grad.
Tensor baddbmm_grad_batch1(const Tensor& g, const Tensor& b2) { return g.bmm(b2.transpose(1, 2)); }
Tensor baddbmm_grad_batch2(const Tensor& g, const Tensor& b1) { return b1.transpose(1, 2).bmm(g); }
// addbmm: the batch products summed: each batch gets grad [n, m].
Tensor batched(const Tensor& g, int64_t batch) {
  return g.unsqueeze(0).expand({batch, g.size(0), g.size(1)});
}
Tensor addbmm_grad_batch1(const Tensor& g, const Tensor& b2) {
  return baddbmm_grad_batch1(batched(g, b2.size(0)), b2);
}
Tensor addbmm_grad_batch2(const Tensor& g, const Tensor& b1) {
  return baddbmm_grad_batch2(batched(g, b1.size(0)), b1);
}
constexpr NodeType<AddProductState> kAddmvBackward0{
    "AddmvBackward0", add_product_backward<addmv_grad_mat, addmv_grad_vec>};
constexpr NodeType<AddProductState> kAddrBackward0{
    "AddrBackward0", add_product_backward<addr_grad_vec1, addr_grad_vec2>};
constexpr NodeType<AddProductState> kAddbmmBackward0{
    "AddbmmBackward0", add_product_backward<addbmm_grad_batch1, addbmm_grad_batch2>};
constexpr NodeType<AddProductState> kBaddbmmBackward0{
    "BaddbmmBackward0", add_product_backward<baddbmm_grad_batch1, baddbmm_grad_batch2>};

// beta * self + alpha * product(a, b) as one node of `type`, with LibTorch's rule that
// beta = 0 ignores self (NaN too).
template <class Product>
Tensor add_product(const NodeType<AddProductState>& type, const Tensor& self, const Tensor& a,
                   const Tensor& b, const Scalar& beta, const Scalar& alpha, const char* op,
                   Product&& product) {
  ops::check_defined(self, op);
  return with_node(
      type, {&self, &a, &b},
      [&] {
        Tensor p = scaled(product(), alpha);
        if (beta.toDouble() == 0) return p + zeros_like(self).expand_as(p);
        return scaled(self, beta) + p;
      },
      [&](AddProductState& s, const Tensor&) {
        if (autograd::requires_grad(b)) s.a = save(a);
        if (autograd::requires_grad(a)) s.b = save(b);
        s.beta = beta;
        s.alpha = alpha;
        s.self_sizes = sizes_of(self);
      });
}

}  // namespace

// The add-products: beta * self + alpha * product(a, b).
#define NABLA_ADD_PRODUCT(name, node, product)                                         \
  Tensor ops::name##_impl(const Tensor& self, const Tensor& a, const Tensor& b,        \
                          const Scalar& beta, const Scalar& alpha) {                   \
    return add_product(node, self, a, b, beta, alpha, #name, [&] { return product; }); \
  }
NABLA_ADD_PRODUCT(addmv, kAddmvBackward0, a.mv(b))
NABLA_ADD_PRODUCT(addr, kAddrBackward0, a.outer(b))
NABLA_ADD_PRODUCT(addbmm, kAddbmmBackward0, a.bmm(b).sum(0))
NABLA_ADD_PRODUCT(baddbmm, kBaddbmmBackward0, a.bmm(b))
#undef NABLA_ADD_PRODUCT

}  // namespace nabla

namespace nabla {

// tensor_split and the h/v/dsplit forms: slices of this tensor (views, so gradients flow
// through the slices' own nodes).
std::vector<Tensor> ops::tensor_split_impl(const Tensor& self, int64_t sections, int64_t dim) {
  ops::check_defined(self, "tensor_split");
  NABLA_CHECK(self.dim() > 0,
              "tensor_split: expected at least a 1-dimensional tensor, got 0 dimensions");
  NABLA_CHECK(sections > 0, "tensor_split: number of sections must be larger than 0, got ",
              sections);
  // The first size % sections sections are one longer; split where each ends.
  const int64_t size = self.size(ops::wrap_dim(dim, self.dim(), "tensor_split"));
  std::vector<int64_t> ends;
  for (int64_t i = 0, end = 0; i + 1 < sections; ++i)
    ends.push_back(end += size / sections + (i < size % sections ? 1 : 0));
  return self.tensor_split(ends, dim);
}

std::vector<Tensor> ops::tensor_split_impl(const Tensor& self, IntArrayRef indices, int64_t dim) {
  ops::check_defined(self, "tensor_split");
  NABLA_CHECK(self.dim() > 0,
              "tensor_split: expected at least a 1-dimensional tensor, got 0 dimensions");
  const int64_t d = ops::wrap_dim(dim, self.dim(), "tensor_split");
  const int64_t size = self.size(d);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t idx : indices) {
    const int64_t end = std::clamp<int64_t>(idx < 0 ? idx + size : idx, 0, size);
    out.push_back(self.slice(d, std::min(start, size), std::max(start, end)));
    start = end;
  }
  out.push_back(self.slice(d, std::min(start, size), size));
  return out;
}

namespace {

// hsplit/vsplit/dsplit: tensor_split along `dim`, needing `min_dims` dimensions and, for a
// section count, a size it divides.
std::vector<Tensor> split_along(const Tensor& x, const char* op, int64_t min_dims, int64_t dim,
                                optional<int64_t> sections, IntArrayRef indices) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.dim() >= min_dims, op, ": requires a tensor with at least ", min_dims, " dimension",
              min_dims > 1 ? "s" : "", ", but got a tensor with ", x.dim(), " dimensions");
  if (!sections) return x.tensor_split(indices, dim);
  NABLA_CHECK(*sections != 0 && x.size(dim) % *sections == 0, op,
              ": attempted to split along dimension ", dim, ", but the size of the dimension ",
              x.size(dim), " is not divisible by the split_size ", *sections);
  return x.tensor_split(*sections, dim);
}

}  // namespace

std::vector<Tensor> ops::hsplit_impl(const Tensor& self, int64_t sections) {
  return split_along(self, "hsplit", 1, self.dim() == 1 ? 0 : 1, sections, {});
}
std::vector<Tensor> ops::hsplit_impl(const Tensor& self, IntArrayRef indices) {
  return split_along(self, "hsplit", 1, self.dim() == 1 ? 0 : 1, nullopt, indices);
}
std::vector<Tensor> ops::vsplit_impl(const Tensor& self, int64_t sections) {
  return split_along(self, "vsplit", 2, 0, sections, {});
}
std::vector<Tensor> ops::vsplit_impl(const Tensor& self, IntArrayRef indices) {
  return split_along(self, "vsplit", 2, 0, nullopt, indices);
}
std::vector<Tensor> ops::dsplit_impl(const Tensor& self, int64_t sections) {
  return split_along(self, "dsplit", 3, 2, sections, {});
}
std::vector<Tensor> ops::dsplit_impl(const Tensor& self, IntArrayRef indices) {
  return split_along(self, "dsplit", 3, 2, nullopt, indices);
}

}  // namespace nabla

// ---- Registry entries (the shape ops of this file) ----------------------------------------

namespace nabla::ops {

void registry::add_composite_shape_ops(std::vector<OpSchema>& t) {}

}  // namespace nabla::ops
