// Shape ops that copy data into a new layout: repeat, flip, roll, tril/triu,
// constant_pad_nd, repeat_interleave (schema rows: core/op_list/shape.def); and the
// free-function forms of the view methods.
// (cat/stack and the list ops are in shape/join.cpp.)
//
// Most are one or more block copies between views of the input and of a fresh output,
// so the backend's strided copy kernel (with dtype conversion and threading) does the work.
// Backward formulas use differentiable ops; g is the output's gradient.
#include <algorithm>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/op_utils.h"

namespace nabla {

using ops::empty_tensor;
using ops::wrap_dim;

namespace {

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.numel() > 0) backend_for(dst).copy(dst, src);
}

/// Records `out = op(x)` as a node of `type` whose state `fill(state)` sets.
template <class State, class Fill>
void record(const NodeType<State>& type, const Tensor& x, const Tensor& out, Fill&& fill) {
  if (auto node = autograd::record_node(type, {&x})) {
    fill(node->state);
    autograd::set_history(out, node);
  }
}

// ---- Backward nodes -----------------------------------------------------------------------

// The output viewed as [r0, s0, r1, s1, ...] holds the input at every (r0, r1, ...):
// sum over the r's.
struct RepeatState {
  DimVector self_sizes, repeats;
};
variable_list repeat_backward(OpNode<RepeatState>& n, const variable_list& g) {
  const RepeatState& s = n.state;
  const int64_t nd = static_cast<int64_t>(s.repeats.size());
  if (nd == 0) return {g[0]};
  const int64_t lead = nd - static_cast<int64_t>(s.self_sizes.size());
  DimVector split(2 * nd);
  std::vector<int64_t> repeat_dims;
  for (int64_t i = 0; i < nd; ++i) {
    split[2 * i] = s.repeats[i];
    split[2 * i + 1] = i < lead ? 1 : s.self_sizes[i - lead];
    repeat_dims.push_back(2 * i);
  }
  return {g[0].reshape(split).sum(repeat_dims).reshape(s.self_sizes)};
}
constexpr NodeType<RepeatState> kRepeatBackward{"RepeatBackward0", repeat_backward};

struct FlipState {
  DimVector dims;  // wrapped
};
variable_list flip_backward(OpNode<FlipState>& n, const variable_list& g) {
  return {g[0].flip(n.state.dims)};
}
constexpr NodeType<FlipState> kFlipBackward{"FlipBackward0", flip_backward};

struct RollState {
  DimVector shifts, dims;  // dims empty: the flattened tensor rolled
};
variable_list roll_backward(OpNode<RollState>& n, const variable_list& g) {
  DimVector back(n.state.shifts.size());
  for (size_t i = 0; i < back.size(); ++i) back[i] = -n.state.shifts[i];
  return {g[0].roll(back, n.state.dims)};
}
constexpr NodeType<RollState> kRollBackward{"RollBackward0", roll_backward};

struct DiagonalIndexState {
  int64_t diagonal = 0;
};
variable_list tril_backward(OpNode<DiagonalIndexState>& n, const variable_list& g) {
  return {tril(g[0], n.state.diagonal)};
}
variable_list triu_backward(OpNode<DiagonalIndexState>& n, const variable_list& g) {
  return {triu(g[0], n.state.diagonal)};
}
constexpr NodeType<DiagonalIndexState> kTrilBackward{"TrilBackward0", tril_backward};
constexpr NodeType<DiagonalIndexState> kTriuBackward{"TriuBackward0", triu_backward};

// Padding by p crops by p on the way back, and a crop (negative p) pads with zeros.
struct ConstantPadState {
  DimVector pad;
};
variable_list constant_pad_backward(OpNode<ConstantPadState>& n, const variable_list& g) {
  DimVector back(n.state.pad.size());
  for (size_t i = 0; i < back.size(); ++i) back[i] = -n.state.pad[i];
  return {constant_pad_nd(g[0], back, 0)};
}
constexpr NodeType<ConstantPadState> kConstantPadNdBackward{"ConstantPadNdBackward0",
                                                            constant_pad_backward};

}  // namespace

// ---- Forwards -----------------------------------------------------------------------------

Tensor ops::repeat_impl(const Tensor& self, IntArrayRef repeats) {
  const int64_t n = static_cast<int64_t>(repeats.size());
  NABLA_CHECK(n >= self.dim(),
              "repeat: Number of dimensions of repeat dims can not be smaller than number "
              "of dimensions of tensor (repeats ",
              repeats, " for a tensor of sizes ", self.sizes(), ")");
  const int64_t lead = n - self.dim();
  // The output viewed as [r0, s0, r1, s1, ...] receives the input viewed as
  // [1, s0, 1, s1, ...] broadcast over the r's: one strided copy.
  DimVector out_shape(n), split(2 * n), src_strides(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = i < lead ? 1 : self.sizes()[i - lead];
    NABLA_CHECK(repeats[i] >= 0, "repeat: Trying to create tensor with negative dimension ",
                repeats[i] * s, ": repeats ", repeats, " for a tensor of sizes ", self.sizes());
    out_shape[i] = s * repeats[i];
    split[2 * i] = repeats[i];
    split[2 * i + 1] = s;
    src_strides[2 * i] = 0;
    src_strides[2 * i + 1] = i < lead ? 0 : self.strides()[i - lead];
  }
  Tensor out = empty_tensor(out_shape, self.scalar_type(), self.device());
  record(kRepeatBackward, self, out, [&](RepeatState& s) {
    s.self_sizes.assign(self.sizes().begin(), self.sizes().end());
    s.repeats.assign(repeats.begin(), repeats.end());
  });
  if (out.numel() == 0) return out;
  Tensor src = ops::make_view(self, split, src_strides, self.storage_offset());
  Tensor dst = ops::make_view(out, split, contiguous_strides(split), 0);
  backend_for(out).copy(dst, src);
  return out;
}

Tensor ops::flip_impl(const Tensor& self, IntArrayRef dims) {
  int64_t nd = self.dim();
  std::vector<bool> seen(std::max<int64_t>(nd, 1), false);
  DimVector st(self.strides().begin(), self.strides().end());
  int64_t offset = self.storage_offset();
  DimVector flipped;
  for (int64_t raw : dims) {
    int64_t d = wrap_dim(raw, nd, "flip");
    NABLA_CHECK(!seen[d], "flip: dim ", d, " appears multiple times in the list of dims ", dims);
    seen[d] = true;
    flipped.push_back(d);
    if (nd == 0 || self.sizes()[d] <= 1) continue;
    offset += (self.sizes()[d] - 1) * st[d];
    st[d] = -st[d];
  }
  Tensor out = empty_tensor(self.sizes(), self.scalar_type(), self.device());
  record(kFlipBackward, self, out, [&](FlipState& s) { s.dims = flipped; });
  if (out.numel() == 0) return out;
  // Note [Negative strides]: nabla's public views never have negative strides; this one
  // is private to flip and only read by the copy kernel, which walks byte strides of
  // any sign.
  Tensor reversed = ops::make_view(self, self.sizes(), st, offset);
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

Tensor roll_values(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) {
  NABLA_CHECK(!shifts.empty(), "roll: `shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    if (x.numel() == 0) return x.clone();
    return reshape(roll_one(reshape(x, {-1}), shifts[0], 0), x.sizes()).contiguous();
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

Tensor ops::roll_impl(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  Tensor out;
  {
    NoGradGuard no_grad;  // one RollBackward0 for the whole op
    out = roll_values(self, shifts, dims);
  }
  record(kRollBackward, self, out, [&](RollState& s) {
    s.shifts.assign(shifts.begin(), shifts.end());
    s.dims.assign(dims.begin(), dims.end());
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
  const TensorOptions on = TensorOptions(kLong).device(x.device());
  Tensor offset = arange(cols, on).view({1, cols}).sub(arange(rows, on).view({rows, 1}));
  Tensor keep = (lower ? offset.le(k) : offset.ge(k)).expand(x.sizes());
  Tensor out = empty_tensor(x.sizes(), x.scalar_type(), x.device());
  Tensor zero = ops::zero_like_scalar(x).expand(x.sizes());
  backend_for(x).where(out, keep, x, zero);
  record(lower ? kTrilBackward : kTriuBackward, x, out,
         [&](DiagonalIndexState& s) { s.diagonal = k; });
  return out;
}

}  // namespace

Tensor ops::tril_impl(const Tensor& x, int64_t diagonal) {
  return tril_triu(x, diagonal, true, "tril");
}
Tensor ops::triu_impl(const Tensor& x, int64_t diagonal) {
  return tril_triu(x, diagonal, false, "triu");
}

Tensor ops::constant_pad_nd_impl(const Tensor& x, IntArrayRef pad, const Scalar& value) {
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
  record(kConstantPadNdBackward, x, out,
         [&](ConstantPadState& s) { s.pad.assign(pad.begin(), pad.end()); });
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

Tensor ops::repeat_interleave_impl(const Tensor& x, int64_t repeats, optional<int64_t> dim,
                                   optional<int64_t>) {
  ops::check_defined(x, "repeat_interleave");
  NABLA_CHECK(repeats >= 0, "repeat_interleave: repeats can not be negative, got ", repeats);
  Tensor input = x;
  int64_t d = 0;
  if (dim.has_value()) {
    NABLA_CHECK(x.dim() > 0, "repeat_interleave: Dimension specified as ", *dim,
                " but tensor has no dimensions");
    d = wrap_dim(*dim, x.dim(), "repeat_interleave");
  } else {
    input = reshape(x, {-1});
  }
  const int64_t n = input.size(d);
  Tensor idx = empty_tensor({n * repeats}, kLong, Device(kCPU));
  int64_t* p = ops::host_ptr<int64_t>(idx);
  for (int64_t i = 0; i < n; ++i) std::fill(p + i * repeats, p + (i + 1) * repeats, i);
  return input.index_select(d, x.is_cpu() ? idx : idx.to(x.device(), kLong));
}

// ---- free-function forms of the view methods --------------------------------------------

Tensor _reshape_alias(const Tensor& x, IntArrayRef size, IntArrayRef stride) {
  return x.as_strided(size, stride);
}
Tensor alias(const Tensor& x) { return x.alias(); }
Tensor index(const Tensor& x, const std::vector<optional<Tensor>>& indices) {
  return x.index(indices);
}
const Tensor& index_put_(const Tensor& x, const std::vector<optional<Tensor>>& indices,
                         const Tensor& values, bool accumulate) {
  return x.index_put_(indices, values, accumulate);
}

}  // namespace nabla
