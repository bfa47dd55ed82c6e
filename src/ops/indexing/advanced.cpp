// Advanced indexing: Tensor::index / index_put(_) with TensorIndex lists and with
// index-tensor lists, with their backward nodes (AliasBackward0, IndexBackward0,
// IndexPutBackward0) and registry entries. Shared helpers and the notes on autograd and
// repeated indices: ops/indexing_utils.h.
//
// Note [Basic vs advanced indexing]
// Integers, Slices, None and Ellipsis ("basic" indices) only change the geometry, so the
// result is a view sharing storage and version counter with self; writes through it are
// writes to self. Index tensors ("advanced" indices) pick arbitrary elements, so reading
// gives a copy and writing goes element by element (index_put_). A TensorIndex list is
// applied in two steps, as LibTorch does: the basic indices first (a view), then the
// index tensors, recorded at the dims of that view they apply to. index_put_ with a
// TensorIndex list writes through the view the basic indices make, as LibTorch does, so
// its gradient reaches self through CopySlices (Note [Views and in-place]).
#include <algorithm>
#include <cstring>
#include <ostream>
#include <string>
#include <tuple>

#include "nabla/core/warning.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/indexing/indexing_utils.h"
#include "ops/registry/registry_impl.h"

namespace nabla {

using ops::empty_tensor;
using namespace ops::indexing;

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  NABLA_CHECK(s != nullptr && std::strcmp(s, "...") == 0,
              "index: Expected \"...\" to represent an ellipsis index, but got \"",
              s ? s : "(null)", "\"");
}

std::ostream& indexing::operator<<(std::ostream& os, const Slice& slice) {
  return os << slice.start() << ':' << slice.stop() << ':' << slice.step();
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& index) {
  switch (index.kind()) {
    case TensorIndex::Kind::None:
      return os << "None";
    case TensorIndex::Kind::Ellipsis:
      return os << "...";
    case TensorIndex::Kind::Integer:
      return os << index.integer();
    case TensorIndex::Kind::Boolean:
      return os << (index.boolean() ? "true" : "false");
    case TensorIndex::Kind::Slice:
      return os << index.slice();
    case TensorIndex::Kind::Tensor:
      return os << index.tensor();
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices) {
  os << '(';
  for (size_t i = 0; i < indices.size(); ++i) os << (i ? ", " : "") << indices[i];
  return os << ')';
}

namespace {

// What an out-of-bounds index error says of dim `d`: LibTorch's phrase for an empty dim.
std::string bounds_context(int64_t d, int64_t size) {
  if (size == 0) return str("dimension with size 0 (dimension ", d, ")");
  return str("dimension ", d, " with size ", size);
}

// The dims of `self` a mask of `mask`'s shape at dim `pos` covers must match it exactly.
void check_mask_shape(const Tensor& self, const Tensor& mask, int64_t pos) {
  NABLA_CHECK(pos + mask.dim() <= self.dim(), "index: too many indices for tensor of dimension ",
              self.dim(), " (a mask of shape ", mask.sizes(), " at dim ", pos, ")");
  for (int64_t j = 0; j < mask.dim(); ++j)
    NABLA_CHECK(mask.size(j) == self.size(pos + j), "index: the shape of the mask ", mask.sizes(),
                " at index ", j, " does not match the shape of the indexed tensor ", self.sizes(),
                " at index ", pos + j);
}

// Advanced indexing reduced to one dimension: `src` is self with the indexed dims made
// adjacent at [first, first + count), and `linear` holds, for every element of the
// broadcast index shape, the row-major position inside that block of dims.
struct AdvancedIndex {
  Tensor src;
  int64_t first = 0;
  int64_t count = 0;
  DimVector index_shape;  // broadcast shape of the index tensors
  Tensor linear;          // int64, index_shape, values in [0, block numel)

  // Sizes of the result: dims before the block, the index shape, dims after it.
  DimVector result_shape() const {
    DimVector r;
    for (int64_t d = 0; d < first; ++d) r.push_back(src.size(d));
    for (int64_t s : index_shape) r.push_back(s);
    for (int64_t d = first + count; d < src.dim(); ++d) r.push_back(src.size(d));
    return r;
  }
  // The same with the index shape flattened to one dim.
  DimVector flat_result_shape() const {
    DimVector r;
    for (int64_t d = 0; d < first; ++d) r.push_back(src.size(d));
    r.push_back(linear.numel());
    for (int64_t d = first + count; d < src.dim(); ++d) r.push_back(src.size(d));
    return r;
  }
  DimVector block_merged_shape() const {
    DimVector r;
    int64_t m = 1;
    for (int64_t d = 0; d < first; ++d) r.push_back(src.size(d));
    for (int64_t d = first; d < first + count; ++d) m *= src.size(d);
    r.push_back(m);
    for (int64_t d = first + count; d < src.dim(); ++d) r.push_back(src.size(d));
    return r;
  }
};

// shape = broadcast(shape, b) (or b itself when `first`); false when they do not broadcast.
bool broadcast_into(DimVector& shape, IntArrayRef b, bool first) {
  if (first) {
    shape.assign(b.begin(), b.end());
    return true;
  }
  size_t n = std::max(shape.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - shape.size() ? 1 : shape[i - (n - shape.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    out[i] = x == 1 ? y : x;
  }
  shape = out;
  return true;
}

// Validates `indices` against `self` (masks expanded, dtypes, broadcasting, bounds,
// negative values wrapped) and linearizes them. Returns false when no index is defined.
bool make_advanced_index(const Tensor& self, const std::vector<optional<Tensor>>& indices,
                         AdvancedIndex& out) {
  NABLA_CHECK(static_cast<int64_t>(indices.size()) <= self.dim(),
              "index: too many indices for tensor of dimension ", self.dim(), " (got ",
              indices.size(), ")");
  // One long tensor (or nothing) per dim of self; masks stand for one per dim they cover.
  std::vector<Tensor> per_dim;
  for (const auto& oi : indices) {
    if (!oi.has_value() || !oi->defined()) {
      per_dim.emplace_back();
      continue;
    }
    // A CPU index tensor may index a tensor on another device, as in LibTorch: it moves
    // there. An index on another device than self's (a GPU index of a CPU tensor) may not.
    Tensor t = *oi;
    if (t.device() != self.device()) {
      NABLA_CHECK(t.is_cpu(), "index: indices should be either on cpu or on the same device as ",
                  "the indexed tensor (", self.device(), "), got ", t.device());
      t = t.to(self.device());
    }
    if (is_mask_dtype(t.scalar_type())) {
      if (t.scalar_type() == kByte)
        NABLA_WARN(
            "index: indexing with dtype torch.uint8 is now deprecated, as in LibTorch; "
            "use a bool mask (mask.to(kBool)) instead");
      NABLA_CHECK(t.dim() > 0,
                  "index: a 0-dim boolean index needs the TensorIndex form "
                  "(x.index({mask})), got one in an index-tensor list");
      int64_t pos = static_cast<int64_t>(per_dim.size());
      check_mask_shape(self, t, pos);
      Tensor nz = t.nonzero();  // [n, mask.dim()]
      for (int64_t j = 0; j < t.dim(); ++j) per_dim.push_back(nz.select(1, j));
    } else {
      NABLA_CHECK(t.scalar_type() == kLong,
                  "index: tensors used as indices must be long, byte or bool tensors, got ",
                  t.scalar_type());
      per_dim.push_back(t);
    }
  }
  NABLA_CHECK(static_cast<int64_t>(per_dim.size()) <= self.dim(),
              "index: too many indices for tensor of dimension ", self.dim(), " (got ",
              per_dim.size(), ")");
  per_dim.resize(self.dim());

  std::vector<int64_t> pos;  // dims of self that are indexed
  DimVector shape;
  bool ok = true;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!per_dim[d].defined()) continue;
    ok = ok && broadcast_into(shape, per_dim[d].sizes(), pos.empty());
    pos.push_back(d);
  }
  if (!ok) {
    std::string shapes;
    for (int64_t d : pos) shapes += (d == pos.front() ? "" : ", ") + str(per_dim[d].sizes());
    NABLA_CHECK(false,
                "index: shape mismatch: indexing tensors could not be broadcast together "
                "with shapes ",
                shapes);
  }
  if (pos.empty()) return false;

  // Indexed dims that are not adjacent go to the front, as in PyTorch (the result's
  // index dims then come first); adjacent ones stay in place.
  const int64_t k = static_cast<int64_t>(pos.size());
  bool adjacent = pos.back() - pos.front() + 1 == k;
  out.src = self;
  out.first = pos.front();
  if (!adjacent) {
    std::vector<int64_t> perm(pos.begin(), pos.end());
    for (int64_t d = 0; d < self.dim(); ++d)
      if (!per_dim[d].defined()) perm.push_back(d);
    out.src = self.permute(perm);
    out.first = 0;
  }
  out.count = k;
  out.index_shape = shape;

  // linear = sum_j wrap(index_j) * (product of the sizes of the indexed dims after j).
  const int64_t n = checked_numel(shape, "index");
  if (!self.is_cpu()) {
    // On a device, as tensor ops with a deferred bounds check: no wait for the device.
    NoGradGuard no_grad;
    Tensor lin = zeros(shape, TensorOptions(kLong).device(self.device()));
    int64_t block_stride = 1;
    for (int64_t j = k - 1; j >= 0; --j) {
      const int64_t d = pos[j];
      const int64_t size = self.size(d);
      const Tensor idx = per_dim[d].expand(shape);
      ops::check_index_range(idx, -size, size, {"index", "index", bounds_context(d, size)});
      lin = lin + where(idx < 0, idx + size, idx) * block_stride;
      block_stride *= size;
    }
    out.linear = lin;
    return true;
  }
  out.linear = empty_tensor(shape, kLong, Device(kCPU));
  int64_t* lin = ops::host_ptr<int64_t>(out.linear);
  std::fill(lin, lin + n, 0);
  int64_t block_stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    const int64_t d = pos[j];
    const int64_t size = self.size(d);
    Tensor idx = per_dim[d].expand(shape).contiguous();
    const int64_t* ip = ops::host_ptr<int64_t>(idx);
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = ip[i];
      NABLA_CHECK(v >= -size && v < size, "index: index ", v, " is out of bounds for ",
                  bounds_context(d, size));
      lin[i] += (v < 0 ? v + size : v) * block_stride;
    }
    block_stride *= size;
  }
  return true;
}

// Strides for viewing src with its indexed block merged into one dim, if no copy is needed.
bool merged_block_strides(const AdvancedIndex& a, DimVector& strides) {
  const Tensor& s = a.src;
  strides.clear();
  for (int64_t d = 0; d < a.first; ++d) strides.push_back(s.stride(d));
  int64_t inner = -1;  // stride of the innermost non-1 dim seen, walking outwards
  int64_t span = 1;    // elements that dim and the ones inside it cover
  for (int64_t d = a.first + a.count - 1; d >= a.first; --d) {
    if (s.size(d) == 1) continue;
    if (inner < 0) {
      inner = s.stride(d);
    } else if (s.stride(d) != inner * span) {
      return false;
    }
    span *= s.size(d);
  }
  strides.push_back(inner < 0 ? 1 : inner);
  for (int64_t d = a.first + a.count; d < s.dim(); ++d) strides.push_back(s.stride(d));
  return true;
}

// `values` (already of self's dtype) scattered into src at the positions `a` names.
void put_advanced(const AdvancedIndex& a, const Tensor& values, bool accumulate) {
  const Tensor& src = a.src;
  DimVector flat_shape = a.flat_result_shape();
  if (checked_numel(flat_shape, "index_put_") == 0) return;
  Tensor vals = reshape_any(ops::expand_to(values, a.result_shape()), flat_shape);
  if (vals.impl()->storage() == src.impl()->storage()) vals = vals.clone();
  // The flat index: linear along the block dim, broadcast (stride 0) over the others.
  DimVector lin_shape(flat_shape.size(), 1);
  lin_shape[a.first] = a.linear.numel();
  Tensor lin = reshape_any(a.linear, lin_shape).expand(flat_shape);

  DimVector merged = a.block_merged_shape(), strides;
  KernelBackend& be = backend_for(src);
  if (merged_block_strides(a, strides)) {
    Tensor target = ops::make_view(src, merged, strides, src.storage_offset());
    be.scatter(target, a.first, lin, vals, accumulate);
  } else {
    // The block cannot be flattened in place: work on a contiguous copy, then write back.
    Tensor tmp = src.clone(MemoryFormat::Contiguous);
    be.scatter(tmp.view(merged), a.first, lin, vals, accumulate);
    be.copy(src, tmp);
  }
}

// Applies the basic indices (Note [Basic vs advanced indexing]) and records the index
// tensors at the dims of the returned view they refer to.
Tensor apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices,
                     std::vector<optional<Tensor>>& tensor_indices) {
  int64_t specified = 0, ellipses = 0;
  for (const TensorIndex& ix : indices) {
    if (ix.is_integer() || ix.is_slice()) {
      ++specified;
    } else if (ix.is_tensor()) {
      const Tensor& t = ix.tensor();
      ops::check_defined(t, "index (index tensor)");
      specified += is_mask_dtype(t.scalar_type()) ? t.dim() : 1;
    } else if (ix.is_ellipsis()) {
      ++ellipses;
    }
  }
  NABLA_CHECK(ellipses <= 1, "index: an index can only have a single ellipsis ('...'), got ",
              ellipses);
  // LibTorch's fast path for one integer gives this phrase for a 0-dim tensor.
  NABLA_CHECK(
      self.dim() > 0 || indices.size() != 1 || indices[0].kind() != TensorIndex::Kind::Integer,
      "index: invalid index of a 0-dim tensor. Use `tensor.item<T>()` to convert a 0-dim "
      "tensor to a number");
  NABLA_CHECK(specified <= self.dim(), "index: too many indices for tensor of dimension ",
              self.dim());

  auto record = [&](int64_t dim, Tensor t) {
    if (static_cast<int64_t>(tensor_indices.size()) <= dim) tensor_indices.resize(dim + 1);
    tensor_indices[dim] = std::move(t);
  };
  // A boolean index adds a dim of size 1 and keeps it (true) or empties it (false).
  auto bool_index = [&](Tensor& result, int64_t& dim, bool keep) {
    result = result.unsqueeze(dim);
    Tensor t = empty_tensor({keep ? 1 : 0}, kLong, self.device());
    if (keep) t.zero_();
    record(dim, t);
    ++dim;
  };
  // `real`: the dim of self an index refers to (errors name it, as LibTorch's do).
  int64_t real = 0;
  auto int_index = [&](Tensor& result, int64_t dim, int64_t i) {
    int64_t size = result.size(dim);
    NABLA_CHECK(i >= -size && i < size, "index: index ", i, " is out of bounds for dimension ",
                real, " with size ", size);
    result = result.select(dim, i);
    ++real;
  };

  Tensor result = self;
  int64_t dim = 0;
  for (const TensorIndex& ix : indices) {
    switch (ix.kind()) {
      case TensorIndex::Kind::Integer:
        int_index(result, dim, ix.integer());
        break;
      case TensorIndex::Kind::Slice: {
        const indexing::Slice& s = ix.slice();
        NABLA_CHECK(s.step() != 0, "index: slice step cannot be zero");
        NABLA_CHECK(s.step() > 0, "index: step must be greater than zero, got ", s.step());
        NABLA_CHECK(result.dim() > 0, "index: slice() cannot be applied to a 0-dim tensor.");
        // Default bounds go on as absent ones: a trace records no bound for them.
        result = result.slice(
            dim, s.start() == 0 ? nullopt : optional<int64_t>(s.start()),
            s.stop() == indexing::INDEX_MAX ? nullopt : optional<int64_t>(s.stop()), s.step());
        ++dim;
        ++real;
        break;
      }
      case TensorIndex::Kind::None:
        result = result.unsqueeze(dim++);
        break;
      case TensorIndex::Kind::Ellipsis:
        dim += self.dim() - specified;
        real += self.dim() - specified;
        break;
      case TensorIndex::Kind::Boolean:
        bool_index(result, dim, ix.boolean());
        break;
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = ix.tensor();
        if (t.dim() == 0 && isIntegralType(t.scalar_type(), /*include_bool=*/true)) {
          if (is_mask_dtype(t.scalar_type())) {
            bool_index(result, dim, t.item<bool>());
          } else {
            int_index(result, dim, t.item<int64_t>());
          }
        } else {
          record(dim, t);
          dim += is_mask_dtype(t.scalar_type()) ? t.dim() : 1;
          real += is_mask_dtype(t.scalar_type()) ? t.dim() : 1;
        }
        break;
      }
    }
  }
  return result;
}

bool any_defined(const std::vector<optional<Tensor>>& v) {
  for (const auto& t : v)
    if (t.has_value() && t->defined()) return true;
  return false;
}

// Drops leading size-1 dims of a value (LibTorch's slicePrefix1sSize), so a value of
// shape [1, 1, 3] can be written where a [3] fits.
Tensor strip_leading_ones(const Tensor& v) {
  int64_t i = 0;
  while (i < v.dim() && v.size(i) == 1) ++i;
  if (i == 0) return v;
  return v.view(IntArrayRef(v.sizes().data() + i, v.sizes().size() - i));
}

// True when a tensor of shape `from` broadcasts to exactly `to` (what expand accepts).
bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

// ---- Backward ----------------------------------------------------------------------------
// Index tensors are never differentiated; an index list is saved as one SavedVariable per
// entry, undefined for a whole dim.

void save_indices(std::vector<SavedVariable>& saved, const IndexList& indices) {
  saved.reserve(indices.size());
  for (const auto& t : indices) saved.push_back(autograd::save(t.has_value() ? *t : Tensor()));
}
template <class State>
IndexList unpack_indices(OpNode<State>& n, const std::vector<SavedVariable>& saved) {
  IndexList out;
  out.reserve(saved.size());
  for (const SavedVariable& v : saved) {
    Tensor t = n.get(v);
    out.emplace_back(t.defined() ? optional<Tensor>(t) : nullopt);
  }
  return out;
}

// x.index({"..."}): the result is self seen whole, a view like any other.
struct AliasState {};
variable_list alias_backward(OpNode<AliasState>&, const variable_list& g) { return {g[0]}; }
constexpr NodeType<AliasState> kAliasBackward{"AliasBackward0", alias_backward};

struct IndexState {
  std::vector<SavedVariable> indices;
  DimVector self_sizes;
  auto saved() { return std::tie(indices); }
};
// grad_self [self] = zeros.index_put(indices, g [index result], accumulate)
// (Note [Gradients of repeated indices]).
variable_list index_backward(OpNode<IndexState>& n, const variable_list& g) {
  IndexList idx = unpack_indices(n, n.state.indices);
  return {zeros_like_of(n.state.self_sizes, g[0]).index_put(idx, g[0], /*accumulate=*/true)};
}
constexpr NodeType<IndexState> kIndexBackward{"IndexBackward0", index_backward};

struct IndexPutState {
  std::vector<SavedVariable> indices;  // empty when no formula reads them
  DimVector values_sizes;
  bool accumulate = false;
  auto saved() { return std::tie(indices); }
};
// grad_self = g with the written positions zeroed (kept when accumulating);
// grad_values = g [index result] summed to values' shape.
variable_list index_put_backward(OpNode<IndexPutState>& n, const variable_list& g) {
  IndexList idx = unpack_indices(n, n.state.indices);
  Tensor gs, gv;
  if (n.needs_input_grad(0))
    gs = n.state.accumulate ? g[0]
                            : g[0].index_put(idx, zeros_like_of({}, g[0]), /*accumulate=*/false);
  if (n.needs_input_grad(1)) gv = ops::sum_to(g[0].index(idx), n.state.values_sizes);
  return {gs, gv};
}
constexpr NodeType<IndexPutState> kIndexPutBackward{"IndexPutBackward0", index_put_backward};

}  // namespace

// ---- Tracing (graph::trace) ---------------------------------------------------------------
// The registry's index and index_put take the index tensors as inputs, one per dim, so an
// index-tensor list is one node when it has no empty entry (a graph has no undefined
// values). A TensorIndex list runs, while tracing, as the traced ops it is made of: the
// basic indices as select, slice and unsqueeze nodes, the index tensors as one index node
// (Note [Basic vs advanced indexing]).
namespace {

// [self, indices..., values (if given)] as the registry's index / index_put take them (an
// empty entry as an undefined input). Called only while tracing.
std::vector<Tensor> traced_index_inputs(const Tensor& self, const IndexList& indices,
                                        const Tensor* values, const char* op) {
  std::vector<Tensor> inputs{self};
  for (const auto& t : indices) inputs.push_back(t.has_value() ? *t : Tensor());
  if (values) {
    ops::check_defined(*values, op);
    inputs.push_back(*values);
  }
  return inputs;
}

// A TensorIndex whose value the indexing reads as a number (true/false, a 0-dim integer
// or boolean tensor) would be a constant of the graph: refused while tracing.
void refuse_index_values(ArrayRef<TensorIndex> indices, const char* op) {
  for (const TensorIndex& ix : indices) {
    if (ix.is_boolean())
      ops::refuse_while_tracing(op, "with a boolean (true/false) index: not an op of the graph");
    if (ix.is_tensor() && ix.tensor().defined() && ix.tensor().dim() == 0 &&
        isIntegralType(ix.tensor().scalar_type(), /*include_bool=*/true))
      ops::refuse_while_tracing(op,
                                "with a 0-dim integer or boolean index tensor: its value would "
                                "be a constant of the graph (use an int or a 1-dim index)");
  }
}

}  // namespace

// ---- index / index_put_ ---------------------------------------------------------------

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  NABLA_CHECK(!indices.empty(),
              "index: Passing an empty index list to Tensor::index() is not valid syntax");
  if (ops::active_tracer()) refuse_index_values(indices, "index");
  std::vector<optional<Tensor>> tensor_indices;
  Tensor result = apply_slicing(*this, indices, tensor_indices);
  if (any_defined(tensor_indices)) return result.index(tensor_indices);
  if (result.is_same(*this)) {
    ops::refuse_while_tracing("index",
                              "with no index, or only an ellipsis: its alias of the "
                              "input is not an op of the graph");
    return alias();
  }
  return result;
}

Tensor Tensor::alias() const {
  Tensor out = ops::make_view(*this, sizes(), strides(), storage_offset());
  ops::record_view(kAliasBackward, *this, out);  // Note [Views and in-place]
  return out;
}

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(ArrayRef<TensorIndex>(indices.begin(), indices.size()));
}

Tensor Tensor::operator[](const Tensor& index) const { return this->index({index}); }

Tensor Tensor::index(const std::vector<optional<Tensor>>& indices) const {
  NABLA_TRACED("index", traced_index_inputs(*this, indices, nullptr, "index"));
  check_defined_self(*this, "index");
  if (isReducedFloatingType(scalar_type())) [[unlikely]]  // Note [16-bit compute]
    return to(kFloat).index(indices).to(scalar_type());
  bool any_index = true;
  Tensor out = no_grad([&] {
    AdvancedIndex a;
    any_index = make_advanced_index(*this, indices, a);
    if (!any_index) return Tensor();
    Tensor flat = empty_tensor(a.flat_result_shape(), scalar_type(), device());
    Tensor block = a.src.reshape(a.block_merged_shape());
    backend_for(*this).index_select(flat, block, a.first, reshape_any(a.linear, {-1}));
    return flat.view(a.result_shape());
  });
  if (!any_index) return clone();
  if (auto node = autograd::record_node(kIndexBackward, {this})) {
    node->state.self_sizes.assign(sizes().begin(), sizes().end());
    save_indices(node->state.indices, indices);
    autograd::set_history(out, node);
  }
  return out;
}

const Tensor& Tensor::index_put_(const std::vector<optional<Tensor>>& indices, const Tensor& values,
                                 bool accumulate) const {
  check_defined_self(*this, "index_put_");
  ops::check_defined(values, "index_put_ (values)");
  ops::check_same_device(*this, values, "index_put_");
  NABLA_CHECK(values.scalar_type() == scalar_type(),
              "index_put_: Index put requires the source and destination dtypes match, got ",
              scalar_type(), " for the destination and ", values.scalar_type(), " for the source.");
  if (isReducedFloatingType(scalar_type())) [[unlikely]]  // Note [16-bit compute]
    return ops::inplace_from(*this, "index_put_", [&](const Tensor& self) {
      return self.to(kFloat).index_put(indices, values.to(kFloat), accumulate).to(scalar_type());
    });
  if (autograd::any_requires_grad(*this, values))
    return ops::assign_with_history(*this, index_put(indices, values, accumulate), "index_put_");
  check_plain_write(*this, "index_put_");
  AdvancedIndex a;
  if (!make_advanced_index(*this, indices, a)) {
    // No index tensors: every element is addressed once.
    NABLA_CHECK(broadcasts_to(values.sizes(), sizes()),
                "index_put_: shape mismatch: value tensor of shape ", values.sizes(),
                " cannot be broadcast to indexing result of shape ", sizes());
    Tensor v = ops::expand_to(values, sizes());
    if (v.impl()->storage() == impl()->storage()) v = v.clone();
    if (accumulate) {
      add_(v);
    } else {
      backend_for(*this).copy(*this, v);
      ops::bump_version(*this);
    }
    return *this;
  }
  DimVector rshape = a.result_shape();
  NABLA_CHECK(broadcasts_to(values.sizes(), rshape),
              "index_put_: shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ", rshape);
  put_advanced(a, values, accumulate);
  ops::bump_version(*this);
  return *this;
}

Tensor Tensor::index_put(const std::vector<optional<Tensor>>& indices, const Tensor& values,
                         bool accumulate) const {
  NABLA_TRACED("index_put", traced_index_inputs(*this, indices, &values, "index_put"),
               {"accumulate", accumulate});
  check_defined_self(*this, "index_put");
  Tensor out = no_grad([&] {
    Tensor o = clone();
    o.index_put_(indices, values, accumulate);
    return o;
  });
  if (auto node = autograd::record_node(kIndexPutBackward, {this, &values})) {
    node->state.accumulate = accumulate;
    node->state.values_sizes.assign(values.sizes().begin(), values.sizes().end());
    // Without accumulation self's gradient reads the indices too.
    if (!accumulate || autograd::requires_grad(values)) save_indices(node->state.indices, indices);
    autograd::set_history(out, node);
  }
  return out;
}

const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) const {
  check_defined_self(*this, "index_put_");
  NABLA_CHECK(
      !indices.empty(),
      "index_put_: Passing an empty index list to Tensor::index_put_() is not valid syntax");
  ops::check_defined(value, "index_put_ (value)");
  std::vector<optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices);
  if (any_defined(tensor_indices)) {
    sliced.index_put_(tensor_indices, strip_leading_ones(value));
    return *this;
  }
  // Basic indices only: write through the view (it shares the version counter, and under
  // autograd the write reaches self's history through CopySlices, Note [Views and in-place]).
  if (value.dim() == 0 && value.sizes() != sliced.sizes()) {
    sliced.fill_(value);
    return *this;
  }
  Tensor v = strip_leading_ones(value);
  NABLA_CHECK(broadcasts_to(v.sizes(), sliced.sizes()),
              "index_put_: shape mismatch: value tensor of shape ", value.sizes(),
              " cannot be broadcast to indexing result of shape ", sliced.sizes());
  sliced.copy_(v);
  return *this;
}

const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) const {
  check_defined_self(*this, "index_put_");
  NABLA_CHECK(
      !indices.empty(),
      "index_put_: Passing an empty index list to Tensor::index_put_() is not valid syntax");
  std::vector<optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices);
  if (any_defined(tensor_indices)) {
    sliced.index_put_(tensor_indices, ops::scalar_tensor(value, scalar_type(), device()));
  } else {
    sliced.fill_(value);
  }
  return *this;
}

const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Tensor& value) const {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), value);
}

const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Scalar& value) const {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), value);
}

Tensor index_put(const Tensor& x, const std::vector<optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate) {
  return x.index_put(indices, values, accumulate);
}

}  // namespace nabla

// ---- Registry entries ---------------------------------------------------------------------

namespace nabla::ops {
namespace {

// Index tensors given as inputs [first, last): an undefined one takes its whole dim.
IndexList index_inputs(const V& x, size_t first, size_t last) {
  IndexList out;
  for (size_t i = first; i < last; ++i)
    out.emplace_back(x[i].defined() ? optional<Tensor>(x[i]) : nullopt);
  return out;
}

}  // namespace

void registry::add_index_ops(std::vector<OpSchema>& t) {
  // index(self, indices...) and index_put(self, indices..., values), LibTorch's order.
  t.push_back(op("index", 1, -1, {}, [](const V& x, const AttrReader&) -> V {
    return {x[0].index(index_inputs(x, 1, x.size()))};
  }));
  t.push_back(
      op("index_put", 2, -1, {attr("accumulate", AttrType::Bool, false)},
         [](const V& x, const AttrReader& a) -> V {
           return {x[0].index_put(index_inputs(x, 1, x.size() - 1), x.back(), a.b("accumulate"))};
         }));
}

}  // namespace nabla::ops
