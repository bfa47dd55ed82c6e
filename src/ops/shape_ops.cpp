// Shape ops that copy data into a new layout: cat/stack (and h/v forms), repeat, flip,
// roll, tril/triu, constant_pad_nd, repeat_interleave; the view-returning
// broadcast_tensors and meshgrid; and the free-function forms of the view methods.
//
// Most are one or more block copies between views of the input and of a fresh output,
// so the backend's strided copy kernel (with dtype conversion and threading) does the work.
#include <algorithm>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"
#include "ops/shape_backward.h"

namespace nabla {

using ops::empty_tensor;
using ops::wrap_dim;
namespace sf = ops::shape_formulas;

namespace {

// cat skips 1-d tensors of size 0 whatever `dim` is: LibTorch keeps accepting
// torch::empty({0}) as "nothing" next to tensors of any rank.
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.numel() > 0) backend_for(dst).copy(dst, src);
}

// Tensor::reshape takes 0-d tensors too (and records the view).
Tensor reshape_any(const Tensor& t, IntArrayRef shape) { return t.reshape(shape); }

// Records `out = f(inputs)` with `fill` setting the node's attributes, when an input
// requires grad.
template <class Fill>
void record(const autograd::Formula& f, TensorList inputs, const Tensor& out, Fill fill) {
  if (!autograd::any_requires_grad_list(inputs)) return;
  auto node = autograd::make_node(f, inputs);
  fill(*node);
  autograd::set_history(out, node);
}

DimVector dtypes_of(TensorList ts) {
  DimVector d;
  for (const Tensor& t : ts) d.push_back(static_cast<int64_t>(t.scalar_type()));
  return d;
}

Tensor atleast_nd(const Tensor& t, int64_t n) {
  if (t.dim() >= n) return t;
  if (t.dim() == 0) return n == 1 ? reshape_any(t, {1}) : reshape_any(t, {1, 1});
  return t.unsqueeze(0);  // 1-d to 2-d: [n] -> [1, n]
}

}  // namespace

Tensor cat(TensorList tensors, int64_t dim) {
  NABLA_CHECK(!tensors.empty(), "cat(): expected a non-empty list of Tensors");
  ScalarType dtype = kBool;
  size_t valid = tensors.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    NABLA_CHECK(tensors[i].defined(), "cat(): expected a defined tensor at position ", i);
    ops::check_same_device(tensors[0], tensors[i], "cat()");
    dtype = i == 0 ? tensors[i].scalar_type() : promoteTypes(dtype, tensors[i].scalar_type());
    if (valid == tensors.size() && !is_legacy_empty(tensors[i])) valid = i;
  }
  auto record_cat = [&](const Tensor& out, int64_t d) {
    record(sf::kCat, tensors, out, [&](autograd::FormulaNode& n) {
      n.dim = d;
      for (const Tensor& t : tensors) n.list.push_back(is_legacy_empty(t) ? -1 : t.size(d));
      n.dims = dtypes_of(tensors);
    });
  };
  if (valid == tensors.size()) {
    Tensor out = empty_tensor({0}, dtype, tensors[0].device());
    record_cat(out, 0);
    return out;
  }
  const Tensor& ref = tensors[valid];
  NABLA_CHECK(ref.dim() > 0, "cat(): zero-dimensional tensor (at position ", valid,
              ") cannot be concatenated");
  int64_t d = wrap_dim(dim, ref.dim(), "cat()");
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    NABLA_CHECK(t.dim() > 0, "cat(): zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
    NABLA_CHECK(t.dim() == ref.dim(), "cat(): Tensors must have same number of dimensions: got ",
                ref.dim(), " and ", t.dim(), " (sizes ", ref.sizes(), " and ", t.sizes(), ")");
    for (int64_t k = 0; k < t.dim(); ++k)
      NABLA_CHECK(k == d || t.size(k) == ref.size(k),
                  "cat(): Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  ref.size(k), " but got size ", t.size(k), " for tensor number ", i,
                  " in the list.");
    total += t.size(d);
  }
  DimVector shape(ref.sizes().begin(), ref.sizes().end());
  shape[d] = total;
  Tensor out = empty_tensor(shape, dtype, ref.device());
  {
    NoGradGuard no_grad;  // the narrows of `out` are internal
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      if (is_legacy_empty(t)) continue;
      copy_into(out.narrow(d, offset, t.size(d)), t);
      offset += t.size(d);
    }
  }
  record_cat(out, d);
  return out;
}

Tensor concat(TensorList tensors, int64_t dim) { return cat(tensors, dim); }

Tensor stack(TensorList tensors, int64_t dim) {
  NABLA_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i)
    NABLA_CHECK(tensors[i].defined(), "stack: expected a defined tensor at entry ", i);
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    NABLA_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack expects each tensor to be equal size, but got ", tensors[0].sizes(),
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  Tensor out;
  {
    NoGradGuard no_grad;  // one StackBackward0, not cat over unsqueezes
    for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
    out = cat(parts, d);
  }
  record(sf::kStack, tensors, out, [&](autograd::FormulaNode& n) {
    n.dim = d;
    n.dims = dtypes_of(tensors);
  });
  return out;
}

Tensor hstack(TensorList tensors) {
  NABLA_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    ops::check_defined(t, "hstack");
    parts.push_back(atleast_nd(t, 1));
  }
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  NABLA_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    ops::check_defined(t, "vstack");
    parts.push_back(atleast_nd(t, 2));
  }
  return cat(parts, 0);
}

Tensor Tensor::repeat(IntArrayRef repeats) const {
  const int64_t n = static_cast<int64_t>(repeats.size());
  NABLA_CHECK(n >= dim(),
              "repeat: Number of dimensions of repeat dims can not be smaller than number "
              "of dimensions of tensor (repeats ",
              repeats, " for a tensor of sizes ", sizes(), ")");
  const int64_t lead = n - dim();
  // The output viewed as [r0, s0, r1, s1, ...] receives the input viewed as
  // [1, s0, 1, s1, ...] broadcast over the r's: one strided copy.
  DimVector out_shape(n), split(2 * n), src_strides(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = i < lead ? 1 : sizes()[i - lead];
    NABLA_CHECK(repeats[i] >= 0, "repeat: Trying to create tensor with negative dimension ",
                repeats[i] * s, ": repeats ", repeats, " for a tensor of sizes ", sizes());
    out_shape[i] = s * repeats[i];
    split[2 * i] = repeats[i];
    split[2 * i + 1] = s;
    src_strides[2 * i] = 0;
    src_strides[2 * i + 1] = i < lead ? 0 : strides()[i - lead];
  }
  Tensor out = empty_tensor(out_shape, scalar_type(), device());
  record(sf::kRepeat, {*this}, out, [&](autograd::FormulaNode& n) {
    n.shape0.assign(sizes().begin(), sizes().end());
    n.list.assign(repeats.begin(), repeats.end());
  });
  if (out.numel() == 0) return out;
  Tensor src = ops::make_view(*this, split, src_strides, storage_offset());
  Tensor dst = ops::make_view(out, split, contiguous_strides(split), 0);
  backend_for(out).copy(dst, src);
  return out;
}

Tensor Tensor::flip(IntArrayRef dims) const {
  int64_t nd = dim();
  std::vector<bool> seen(std::max<int64_t>(nd, 1), false);
  DimVector st(strides().begin(), strides().end());
  int64_t offset = storage_offset();
  DimVector flipped;
  for (int64_t raw : dims) {
    int64_t d = wrap_dim(raw, nd, "flip");
    NABLA_CHECK(!seen[d], "flip: dim ", d, " appears multiple times in the list of dims ", dims);
    seen[d] = true;
    flipped.push_back(d);
    if (nd == 0 || sizes()[d] <= 1) continue;
    offset += (sizes()[d] - 1) * st[d];
    st[d] = -st[d];
  }
  Tensor out = empty_tensor(sizes(), scalar_type(), device());
  record(sf::kFlip, {*this}, out, [&](autograd::FormulaNode& n) { n.dims = flipped; });
  if (out.numel() == 0) return out;
  // Note [Negative strides]: nabla's public views never have negative strides; this one
  // is private to flip and only read by the copy kernel, which walks byte strides of
  // any sign.
  Tensor reversed = ops::make_view(*this, sizes(), st, offset);
  backend_for(out).copy(out, reversed);
  return out;
}

namespace {

// out[i] = t[(i - shift) mod n] along d.
Tensor roll_one(const Tensor& t, int64_t shift, int64_t d) {
  const int64_t n = t.size(d);
  Tensor out = empty_tensor(t.sizes(), t.scalar_type(), t.device());
  if (n == 0) return out;
  const int64_t s = ((shift % n) + n) % n;
  copy_into(out.narrow(d, s, n - s), t.narrow(d, 0, n - s));
  copy_into(out.narrow(d, 0, s), t.narrow(d, n - s, s));
  return out;
}

}  // namespace

namespace {

Tensor roll_impl(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) {
  NABLA_CHECK(!shifts.empty(), "roll: `shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    if (x.numel() == 0) return x.clone();
    return reshape_any(roll_one(reshape_any(x, {-1}), shifts[0], 0), x.sizes()).contiguous();
  }
  NABLA_CHECK(shifts.size() == dims.size(),
              "roll: shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  Tensor cur = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], x.dim(), "roll");
    if (x.dim() > 0) cur = roll_one(cur, shifts[i], d);
  }
  return cur.is_same(x) ? x.clone() : cur;
}

}  // namespace

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  Tensor out;
  {
    NoGradGuard no_grad;  // one RollBackward0 for the whole op
    out = roll_impl(*this, shifts, dims);
  }
  record(sf::kRoll, {*this}, out, [&](autograd::FormulaNode& n) {
    n.list.assign(shifts.begin(), shifts.end());
    n.dims.assign(dims.begin(), dims.end());
  });
  return out;
}

namespace {

Tensor tril_triu(const Tensor& x, int64_t k, bool lower, const char* op) {
  ops::check_defined(x, op);
  NABLA_CHECK(x.dim() >= 2, op, ": input tensor must have at least 2 dimensions, got sizes ",
              x.sizes());
  const int64_t rows = x.size(-2), cols = x.size(-1);
  // Element (i, j) is kept when j - i <= k (tril) or j - i >= k (triu).
  Tensor offset = arange(cols).view({1, cols}).sub(arange(rows).view({rows, 1}));
  Tensor keep = (lower ? offset.le(k) : offset.ge(k)).expand(x.sizes());
  Tensor out = empty_tensor(x.sizes(), x.scalar_type(), x.device());
  Tensor zero = ops::scalar_tensor(0, x.scalar_type(), x.device()).expand(x.sizes());
  backend_for(x).where(out, keep, x, zero);
  record(lower ? sf::kTril : sf::kTriu, {x}, out, [&](autograd::FormulaNode& n) { n.dim = k; });
  return out;
}

}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return tril_triu(x, diagonal, true, "tril"); }
Tensor triu(const Tensor& x, int64_t diagonal) { return tril_triu(x, diagonal, false, "triu"); }

Tensor constant_pad_nd(const Tensor& x, IntArrayRef pad, const Scalar& value) {
  ops::check_defined(x, "constant_pad_nd");
  const int64_t npad = static_cast<int64_t>(pad.size()) / 2;
  NABLA_CHECK(pad.size() % 2 == 0,
              "constant_pad_nd: Length of pad must be even but instead it equals ", pad.size());
  NABLA_CHECK(npad <= x.dim(),
              "constant_pad_nd: Length of pad should be no more than twice the number "
              "of dimensions of the input. Pad length is ",
              pad.size(), " while the input has ", x.dim(), " dimensions.");
  // pad = {last dim left, last dim right, second-to-last left, ...}; negative values crop.
  DimVector shape(x.sizes().begin(), x.sizes().end());
  for (int64_t i = 0; i < npad; ++i) {
    int64_t d = x.dim() - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    shape[d] = x.size(d) + l + r;
    NABLA_CHECK(shape[d] >= 0, "constant_pad_nd: The input size ", x.size(d),
                ", plus negative padding ", l, " and ", r,
                " resulted in a negative output size, which is invalid. Check dimension ", d,
                " of your input.");
  }
  Tensor out = empty_tensor(shape, x.scalar_type(), x.device());
  record(sf::kConstantPad, {x}, out,
         [&](autograd::FormulaNode& n) { n.list.assign(pad.begin(), pad.end()); });
  if (out.numel() == 0) return out;
  backend_for(out).fill(out, value);
  NoGradGuard no_grad;  // the narrows below are internal
  Tensor src = x, dst = out;
  for (int64_t i = 0; i < npad; ++i) {
    int64_t d = x.dim() - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    int64_t len = x.size(d) - std::max<int64_t>(0, -l) - std::max<int64_t>(0, -r);
    if (len <= 0) return out;  // everything of the input was cropped away
    src = src.narrow(d, std::max<int64_t>(0, -l), len);
    dst = dst.narrow(d, std::max<int64_t>(0, l), len);
  }
  copy_into(dst, src);
  return out;
}

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  DimVector shape;
  for (size_t i = 0; i < tensors.size(); ++i) {
    ops::check_defined(tensors[i], "broadcast_tensors");
    shape = i == 0 ? DimVector(tensors[i].sizes().begin(), tensors[i].sizes().end())
                   : ops::broadcast_shapes(shape, tensors[i].sizes(), "broadcast_tensors");
  }
  std::vector<Tensor> out;
  // As LibTorch, a tensor that already has the shape is returned itself.
  for (const Tensor& t : tensors)
    out.push_back(t.sizes() == IntArrayRef(shape) ? t : t.expand(shape));
  return out;
}

std::vector<Tensor> meshgrid(TensorList tensors, const std::string& indexing) {
  NABLA_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  NABLA_CHECK(indexing == "ij" || indexing == "xy",
              "meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (const Tensor& t : tensors) {
    ops::check_defined(t, "meshgrid");
    NABLA_CHECK(t.dim() <= 1,
                "meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of sizes ",
                t.sizes());
    NABLA_CHECK(t.scalar_type() == tensors[0].scalar_type(),
                "meshgrid expects all tensors to have the same dtype, got ",
                tensors[0].scalar_type(), " and ", t.scalar_type());
    ops::check_same_device(tensors[0], t, "meshgrid");
  }
  // "xy" is "ij" over the inputs with the first two swapped, outputs swapped back.
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  if (swap) std::swap(in[0], in[1]);
  const size_t n = in.size();
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) shape[i] = in[i].numel();
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    DimVector v(n, 1);
    v[i] = shape[i];
    out.push_back(reshape_any(in[i], v).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

Tensor repeat_interleave(const Tensor& x, int64_t repeats, optional<int64_t> dim) {
  ops::check_defined(x, "repeat_interleave");
  NABLA_CHECK(repeats >= 0, "repeat_interleave: repeats can not be negative, got ", repeats);
  Tensor input = x;
  int64_t d = 0;
  if (dim.has_value()) {
    NABLA_CHECK(x.dim() > 0, "repeat_interleave: Dimension specified as ", *dim,
                " but tensor has no dimensions");
    d = wrap_dim(*dim, x.dim(), "repeat_interleave");
  } else {
    input = reshape_any(x, {-1});
  }
  const int64_t n = input.size(d);
  Tensor idx = empty_tensor({n * repeats}, kLong, x.device());
  int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) std::fill(p + i * repeats, p + (i + 1) * repeats, i);
  return input.index_select(d, idx);
}

// ---- free-function forms of the view methods --------------------------------------------

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  return x.split(split_size, dim);
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  return x.chunk(chunks, dim);
}
std::vector<Tensor> unbind(const Tensor& x, int64_t dim) { return x.unbind(dim); }
Tensor reshape(const Tensor& x, IntArrayRef shape) { return x.reshape(shape); }
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  return x.flatten(start_dim, end_dim);
}
Tensor squeeze(const Tensor& x) { return x.squeeze(); }
Tensor squeeze(const Tensor& x, int64_t dim) { return x.squeeze(dim); }
Tensor unsqueeze(const Tensor& x, int64_t dim) { return x.unsqueeze(dim); }
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) { return x.transpose(dim0, dim1); }
Tensor t(const Tensor& x) { return x.t(); }
Tensor permute(const Tensor& x, IntArrayRef dims) { return x.permute(dims); }
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  return x.narrow(dim, start, length);
}
Tensor select(const Tensor& x, int64_t dim, int64_t index) { return x.select(dim, index); }
Tensor flip(const Tensor& x, IntArrayRef dims) { return x.flip(dims); }
Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) { return x.roll(shifts, dims); }

}  // namespace nabla
