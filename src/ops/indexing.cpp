// Indexing ops: Tensor::index / index_put_ with TensorIndex lists and index-tensor lists,
// index_select, gather, scatter(_add), masked_select/masked_fill and nonzero.
//
// Note [Basic vs advanced indexing]
// Integers, Slices, None and Ellipsis ("basic" indices) only change the geometry, so the
// result is a view sharing storage and version counter with self; writes through it are
// writes to self. Index tensors ("advanced" indices) pick arbitrary elements, so reading
// gives a copy and writing goes element by element (index_put_). A TensorIndex list is
// applied in two steps, as LibTorch does: the basic indices first (a view), then the
// index tensors, recorded at the dims of that view they apply to.
//
// Index values live on the host: the ops read them to bounds-check (and to linearize
// advanced indices) before any kernel runs, so kernels never see a bad index.
//
// Autograd: each op computes its result with grad mode off (its internal views and
// copies are bookkeeping) and then records one node (ops/indexing_backward.h). In-place
// variants on tensors taking part in autograd compute the out-of-place op and rebase
// self's history (ops::assign_with_history). index_put_ with a TensorIndex list writes
// through the view the basic indices make, as LibTorch does, so its gradient reaches
// self through CopySlices (Note [Views and in-place]).
#include <algorithm>
#include <cstring>
#include <string>

#include "autograd/formula.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/functions.h"
#include "ops/indexing_backward.h"
#include "ops/op_utils.h"
#include "ops/views_backward.h"

namespace nabla {

using ops::empty_tensor;
using ops::wrap_dim;

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  NABLA_CHECK(s != nullptr && std::strcmp(s, "...") == 0,
              "index: expected \"...\" to represent an ellipsis index, but got \"",
              s ? s : "(null)", "\"");
}

namespace {

bool is_mask_dtype(ScalarType t) { return t == kBool || t == kByte; }

// Gather/scatter treat a 0-d tensor as having one dim of size 1 (LibTorch's
// ensure_nonempty_dim / ensure_nonempty_size).
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }
// t.reshape(shape) that also takes a 0-d `t` (Tensor::view rejects 0-d inputs today).
Tensor reshape_any(const Tensor& t, IntArrayRef shape) {
  if (t.dim() != 0) return t.reshape(shape);
  DimVector sz(shape.begin(), shape.end());
  for (int64_t& s : sz) s = s == -1 ? 1 : s;
  NABLA_CHECK(checked_numel(sz, "reshape") == 1, "reshape: shape ", shape,
              " is invalid for input of size 1");
  return ops::make_view(t, sz, DimVector(sz.size(), 1), t.storage_offset());
}
Tensor as_1d_if_scalar(const Tensor& t) { return t.dim() == 0 ? reshape_any(t, {1}) : t; }

// Raises unless every value of the int64 tensor `index` lies in [0, size).
void check_index_values(const Tensor& index, int64_t size, int64_t dim, const char* op) {
  // Broadcast (stride 0) dims repeat the same values: check one copy of them.
  DimVector distinct(index.sizes().begin(), index.sizes().end());
  for (int64_t d = 0; d < index.dim(); ++d)
    if (index.stride(d) == 0) distinct[static_cast<size_t>(d)] = 1;
  Tensor c = ops::make_view(index, distinct, index.strides(), index.storage_offset()).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  for (int64_t i = 0, n = c.numel(); i < n; ++i)
    NABLA_CHECK(p[i] >= 0 && p[i] < size, op, ": index ", p[i], " is out of bounds for dimension ",
                dim, " with size ", size);
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
    const Tensor& t = *oi;
    ops::check_same_device(self, t, "index");
    if (is_mask_dtype(t.scalar_type())) {
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
  out.linear = empty_tensor(shape, kLong, self.device());
  int64_t* lin = out.linear.data_ptr<int64_t>();
  std::fill(lin, lin + n, 0);
  int64_t block_stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    const int64_t d = pos[j];
    const int64_t size = self.size(d);
    Tensor idx = per_dim[d].expand(shape).contiguous();
    const int64_t* ip = idx.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = ip[i];
      NABLA_CHECK(v >= -size && v < size, "index: index ", v, " is out of bounds for dimension ", d,
                  " with size ", size);
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
  auto int_index = [&](Tensor& result, int64_t dim, int64_t i) {
    int64_t size = result.size(dim);
    NABLA_CHECK(i >= -size && i < size, "index: index ", i, " is out of bounds for dimension ", dim,
                " with size ", size);
    result = result.select(dim, i);
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
        result = result.slice(dim, s.start(), s.stop(), s.step());
        ++dim;
        break;
      }
      case TensorIndex::Kind::None:
        result = result.unsqueeze(dim++);
        break;
      case TensorIndex::Kind::Ellipsis:
        dim += self.dim() - specified;
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

const Tensor& check_defined_self(const Tensor& t, const char* op) {
  ops::check_defined(t, op);
  return t;
}

// An in-place write that records nothing must still keep the view rules (e.g. a view
// made under no_grad of a base that requires grad may not be written with grad on).
void check_plain_write(const Tensor& self, const char* op) {
  if (GradMode::is_enabled() && self.unsafeGetTensorImpl()->autograd_meta())
    ops::check_inplace_autograd(self, op);
}

}  // namespace

// ---- index / index_put_ ---------------------------------------------------------------

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  std::vector<optional<Tensor>> tensor_indices;
  Tensor result = apply_slicing(*this, indices, tensor_indices);
  if (any_defined(tensor_indices)) return result.index(tensor_indices);
  if (result.is_same(*this)) {
    Tensor alias = ops::make_view(*this, sizes(), strides(), storage_offset());
    ops::record_alias(*this, alias);
    return alias;
  }
  return result;
}

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(ArrayRef<TensorIndex>(indices.begin(), indices.size()));
}

Tensor Tensor::operator[](const Tensor& index) const { return this->index({index}); }

Tensor Tensor::index(const std::vector<optional<Tensor>>& indices) const {
  check_defined_self(*this, "index");
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
  ops::record_index(*this, indices, out);
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
  check_defined_self(*this, "index_put");
  Tensor out = no_grad([&] {
    Tensor o = clone();
    o.index_put_(indices, values, accumulate);
    return o;
  });
  ops::record_index_put(*this, indices, values, accumulate, out);
  return out;
}

const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) const {
  check_defined_self(*this, "index_put_");
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

// ---- index_select / gather / scatter ----------------------------------------------------

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  check_defined_self(*this, "index_select");
  ops::check_defined(index, "index_select (index)");
  ops::check_same_device(*this, index, "index_select");
  int64_t d = wrap_dim(dim, this->dim(), "index_select");
  NABLA_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt,
              "index_select(): Expected dtype int32 or int64 for index, got ", index.scalar_type());
  NABLA_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector, got sizes ",
              index.sizes());
  Tensor idx = reshape_any(ops::cast(index, kLong).contiguous(), {-1});
  Tensor self1 = as_1d_if_scalar(*this);
  check_index_values(idx, self1.size(d), d, "index_select()");
  Tensor out;
  if (this->dim() == 0) {
    NABLA_CHECK(idx.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                idx.numel(), " value(s)");
    out = no_grad([&] { return clone(); });
  } else {
    DimVector shape(sizes().begin(), sizes().end());
    shape[d] = idx.numel();
    out = empty_tensor(shape, scalar_type(), device());
    backend_for(*this).index_select(out, *this, d, idx);
  }
  ops::record_index_select(*this, d, idx, out);
  return out;
}

namespace {

// Shared checks of gather/scatter: int64 index with self's number of dims, no larger
// than self outside `dim` (and than src everywhere, when given). Returns the wrapped dim.
int64_t check_gather_scatter(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor* src, const char* op) {
  check_defined_self(self, op);
  ops::check_defined(index, op);
  ops::check_same_device(self, index, op);
  int64_t d = wrap_dim(dim, self.dim(), op);
  NABLA_CHECK(index.scalar_type() == kLong, op, ": Expected dtype int64 for index, got ",
              index.scalar_type());
  NABLA_CHECK(nonempty_dim(index) == nonempty_dim(self), op,
              ": Index tensor must have the same number of dimensions as self tensor (index sizes ",
              index.sizes(), ", self sizes ", self.sizes(), ")");
  if (src) {
    NABLA_CHECK(
        nonempty_dim(index) == nonempty_dim(*src), op,
        ": Index tensor must have the same number of dimensions as src tensor (index sizes ",
        index.sizes(), ", src sizes ", src->sizes(), ")");
  }
  for (int64_t k = 0; k < nonempty_dim(self); ++k) {
    bool ok = k == d || nonempty_size(index, k) <= nonempty_size(self, k);
    if (src) ok = ok && nonempty_size(index, k) <= nonempty_size(*src, k);
    NABLA_CHECK(ok, op, ": Expected index ", index.sizes(), " to be smaller than self ",
                self.sizes(), " apart from dimension ", d,
                src ? str(" and to be smaller size than src ", src->sizes()) : std::string());
  }
  check_index_values(index, nonempty_size(self, d), d, op);
  return d;
}

const Tensor& scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           bool accumulate, const char* op) {
  ops::check_defined(src, op);
  NABLA_CHECK(src.scalar_type() == self.scalar_type(), op,
              ": Expected self.dtype to be equal to src.dtype (self ", self.scalar_type(), ", src ",
              src.scalar_type(), ")");
  int64_t d = check_gather_scatter(self, dim, index, &src, op);
  Tensor s = src.impl()->storage() == self.impl()->storage() ? src.clone() : src;
  backend_for(self).scatter(as_1d_if_scalar(self), d, as_1d_if_scalar(index), as_1d_if_scalar(s),
                            accumulate);
  ops::bump_version(self);
  return self;
}

const Tensor& scatter_value_impl(const Tensor& self, int64_t dim, const Tensor& index,
                                 const Scalar& value, const char* op) {
  int64_t d = check_gather_scatter(self, dim, index, nullptr, op);
  Tensor idx = as_1d_if_scalar(index);
  Tensor src = ops::scalar_tensor(value, self.scalar_type(), self.device()).expand(idx.sizes());
  backend_for(self).scatter(as_1d_if_scalar(self), d, idx, src, false);
  ops::bump_version(self);
  return self;
}

}  // namespace

Tensor Tensor::gather(int64_t dim, const Tensor& index, bool) const {
  int64_t d = check_gather_scatter(*this, dim, index, nullptr, "gather()");
  Tensor out = empty_tensor(index.sizes(), scalar_type(), device());
  backend_for(*this).gather(as_1d_if_scalar(out), as_1d_if_scalar(*this), d,
                            as_1d_if_scalar(index));
  ops::record_gather(*this, d, index, out);
  return out;
}

const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::any_requires_grad(*this, src))
    return ops::assign_with_history(*this, scatter(dim, index, src), "scatter_()");
  check_plain_write(*this, "scatter_()");
  return scatter_impl(*this, dim, index, src, false, "scatter_()");
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  if (autograd::any_requires_grad(*this))
    return ops::assign_with_history(*this, scatter(dim, index, value), "scatter_()");
  check_plain_write(*this, "scatter_()");
  return scatter_value_impl(*this, dim, index, value, "scatter_()");
}
const Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::any_requires_grad(*this, src))
    return ops::assign_with_history(*this, scatter_add(dim, index, src), "scatter_add_()");
  check_plain_write(*this, "scatter_add_()");
  return scatter_impl(*this, dim, index, src, true, "scatter_add_()");
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor out = no_grad([&] { return check_defined_self(*this, "scatter()").clone(); });
  scatter_impl(out, dim, index, src, false, "scatter()");
  ops::record_scatter(*this, wrap_dim(dim, this->dim(), "scatter()"), index, src, false, out);
  return out;
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  Tensor out = no_grad([&] { return check_defined_self(*this, "scatter()").clone(); });
  scatter_value_impl(out, dim, index, value, "scatter()");
  ops::record_scatter(*this, wrap_dim(dim, this->dim(), "scatter()"), index, Tensor(), false, out);
  return out;
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor out = no_grad([&] { return check_defined_self(*this, "scatter_add()").clone(); });
  scatter_impl(out, dim, index, src, true, "scatter_add()");
  ops::record_scatter(*this, wrap_dim(dim, this->dim(), "scatter_add()"), index, src, true, out);
  return out;
}

// ---- masks ---------------------------------------------------------------------------------

namespace {

void check_mask(const Tensor& self, const Tensor& mask, const char* op) {
  check_defined_self(self, op);
  ops::check_defined(mask, op);
  ops::check_same_device(self, mask, op);
  NABLA_CHECK(is_mask_dtype(mask.scalar_type()), op,
              ": expected a boolean (or uint8) mask, but got mask with dtype ", mask.scalar_type());
}

// Checks an in-place masked fill: the mask must broadcast to self's shape.
void check_masked_fill_(const Tensor& self, const Tensor& mask) {
  check_mask(self, mask, "masked_fill_");
  DimVector shape = ops::broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill_");
  NABLA_CHECK(shape == self.sizes(), "masked_fill_: output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", shape);
}

Tensor fill_value(const Tensor& value, const char* op) {
  ops::check_defined(value, op);
  NABLA_CHECK(value.dim() == 0, op,
              ": only supports a 0-dimensional value tensor, but got tensor "
              "with ",
              value.dim(), " dimension(s).");
  return value;
}

Tensor masked_select_impl(const Tensor& self, const Tensor& mask) {
  check_mask(self, mask, "masked_select");
  DimVector shape = ops::broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  // Row-major positions of the true mask elements in the broadcast shape, then one
  // index_select over self flattened to that shape.
  Tensor m = ops::cast(mask, kBool).expand(shape).contiguous();
  const bool* mp = m.data_ptr<bool>();
  const int64_t n = m.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mp[i];
  Tensor pos = empty_tensor({count}, kLong, self.device());
  int64_t* pp = pos.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    if (mp[i]) *pp++ = i;
  Tensor out = empty_tensor({count}, self.scalar_type(), self.device());
  Tensor flat = reshape_any(self.expand(shape), {-1});
  backend_for(self).index_select(out, flat, 0, pos);
  return out;
}

}  // namespace

Tensor Tensor::masked_select(const Tensor& mask) const {
  Tensor out = no_grad([&] { return masked_select_impl(*this, mask); });
  ops::record_masked_select(*this, mask, out);
  return out;
}

const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  check_masked_fill_(*this, mask);
  if (autograd::any_requires_grad(*this))
    return ops::assign_with_history(*this, masked_fill(mask, value), "masked_fill_");
  check_plain_write(*this, "masked_fill_");
  Tensor v = ops::scalar_tensor(value, scalar_type(), device()).expand(sizes());
  // where(mask, value, self) written over self: each element reads only itself.
  backend_for(*this).where(*this, ops::cast(mask, kBool).expand(sizes()), v, *this);
  ops::bump_version(*this);
  return *this;
}

const Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  Scalar v = fill_value(value, "masked_fill_").item();
  if (!autograd::any_requires_grad(*this, value)) return masked_fill_(mask, v);
  check_masked_fill_(*this, mask);
  return ops::assign_with_history(*this, masked_fill(mask, value), "masked_fill_");
}

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  check_mask(*this, mask, "masked_fill");
  DimVector shape = ops::broadcast_shapes(sizes(), mask.sizes(), "masked_fill");
  Tensor out = empty_tensor(shape, scalar_type(), device());
  Tensor v = ops::scalar_tensor(value, scalar_type(), device()).expand(shape);
  Tensor self_b = no_grad([&] { return expand(shape); });
  backend_for(*this).where(out, ops::cast(mask, kBool).expand(shape), v, self_b);
  ops::record_masked_fill(*this, mask, Tensor(), out);
  return out;
}

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  Scalar v = fill_value(value, "masked_fill").item();
  Tensor out = no_grad([&] { return masked_fill(mask, v); });
  ops::record_masked_fill(*this, mask, value, out);
  return out;
}

Tensor Tensor::nonzero() const {
  check_defined_self(*this, "nonzero");
  Tensor b = to(kBool).contiguous();
  const bool* p = b.data_ptr<bool>();
  const int64_t n = b.numel(), nd = dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  Tensor out = empty_tensor({count, nd}, kLong, device());
  int64_t* o = out.data_ptr<int64_t>();
  DimVector coord(nd, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      std::copy(coord.begin(), coord.end(), o);
      o += nd;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {  // odometer step to element i + 1
      if (++coord[d] < sizes()[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

// ---- free functions --------------------------------------------------------------------------

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  return x.index_select(dim, index);
}
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index, bool sparse_grad) {
  return x.gather(dim, index, sparse_grad);
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return x.scatter(dim, index, src);
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  return x.scatter(dim, index, value);
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return x.scatter_add(dim, index, src);
}
Tensor index_put(const Tensor& x, const std::vector<optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate) {
  return x.index_put(indices, values, accumulate);
}
Tensor masked_select(const Tensor& x, const Tensor& mask) { return x.masked_select(mask); }
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  return x.masked_fill(mask, value);
}
Tensor nonzero(const Tensor& x) { return x.nonzero(); }

}  // namespace nabla
