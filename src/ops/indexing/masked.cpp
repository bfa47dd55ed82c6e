// The mask ops (masked_select, masked_fill and masked_fill_) and nonzero (schema rows:
// core/op_list/indexing.def), with their backward nodes. Shared helpers and notes:
// ops/indexing_utils.h.
#include <algorithm>
#include <tuple>

#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/functions.h"
#include "ops/indexing/indexing_utils.h"

namespace nabla {

using ops::empty_tensor;
using namespace ops::indexing;

namespace {

// ---- Backward ----------------------------------------------------------------------------
// The mask is never differentiated.

/// masked_fill: the mask and self's sizes (the result has the broadcast shape of self and
/// mask); with a value tensor (MaskedFillBackward1) also the value's dtype.
struct MaskedFillState {
  SavedVariable mask;
  DimVector self_sizes;
  ScalarType value_dtype = kFloat;
  auto saved() { return std::tie(mask); }
};

// grad_self = g [broadcast] with masked positions zeroed, summed to self's shape;
// grad_value (0-d) = the sum of g over the masked positions.
variable_list masked_fill_backward(OpNode<MaskedFillState>& n, const variable_list& g) {
  const MaskedFillState& s = n.state;
  Tensor mask = n.get(s.mask), gs, gv;
  if (n.needs_input_grad(0)) gs = ops::sum_to(g[0].masked_fill(mask, 0), s.self_sizes);
  if (n.num_outputs() > 1 && n.needs_input_grad(1)) {
    gv = g[0].masked_select(mask).sum();
    if (gv.scalar_type() != s.value_dtype) gv = gv.to(s.value_dtype);
  }
  return {gs, gv};
}
constexpr NodeType<MaskedFillState> kMaskedFillScalarBackward{"MaskedFillBackward0",
                                                              masked_fill_backward};
constexpr NodeType<MaskedFillState> kMaskedFillTensorBackward{"MaskedFillBackward1",
                                                              masked_fill_backward};

/// masked_select: the mask, self's sizes and the broadcast sizes of self and mask.
struct MaskedSelectState {
  SavedVariable mask;
  DimVector self_sizes, broadcast_sizes;
  auto saved() { return std::tie(mask); }
};

// grad_self = zeros [broadcast] with g [count] written at the true mask positions (in
// masked_select's row-major order), summed to self's shape.
variable_list masked_select_backward(OpNode<MaskedSelectState>& n, const variable_list& g) {
  const MaskedSelectState& s = n.state;
  // 0-d self and mask: g holds the one element (mask true) or nothing (false).
  if (s.broadcast_sizes.empty()) return {g[0].sum()};
  Tensor mask = n.get(s.mask).expand(s.broadcast_sizes);
  Tensor full = zeros_like_of(s.broadcast_sizes, g[0]).index_put({mask}, g[0], /*accumulate=*/true);
  return {ops::sum_to(full, s.self_sizes)};
}
constexpr NodeType<MaskedSelectState> kMaskedSelectBackward{"MaskedSelectBackward0",
                                                            masked_select_backward};

// ---- Forward ------------------------------------------------------------------------------

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

Tensor masked_select_values(const Tensor& self, const Tensor& mask) {
  check_mask(self, mask, "masked_select");
  DimVector shape = ops::broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  // Row-major positions of the true mask elements in the broadcast shape, then one
  // index_select over self flattened to that shape.
  Tensor m = ops::host_values(ops::cast(mask, kBool).expand(shape).contiguous());
  const bool* mp = ops::host_ptr<bool>(m);
  const int64_t n = m.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mp[i];
  Tensor pos = empty_tensor({count}, kLong, Device(kCPU));
  int64_t* pp = ops::host_ptr<int64_t>(pos);
  for (int64_t i = 0; i < n; ++i)
    if (mp[i]) *pp++ = i;
  if (!self.is_cpu()) pos = pos.to(self.device(), kLong);
  Tensor out = empty_tensor({count}, self.scalar_type(), self.device());
  Tensor flat = reshape_any(self.expand(shape), {-1});
  backend_for(self).index_select(out, flat, 0, pos);
  return out;
}

void record_masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value,
                        const Tensor& out) {
  auto node = value.defined() ? autograd::record_node(kMaskedFillTensorBackward, {&self, &value})
                              : autograd::record_node(kMaskedFillScalarBackward, {&self});
  if (!node) return;
  node->state.mask = autograd::save(mask);
  node->state.self_sizes.assign(self.sizes().begin(), self.sizes().end());
  if (value.defined()) node->state.value_dtype = value.scalar_type();
  autograd::set_history(out, node);
}

}  // namespace

Tensor ops::masked_select_impl(const Tensor& self, const Tensor& mask) {
  Tensor out = no_grad([&] { return masked_select_values(self, mask); });
  if (auto node = autograd::record_node(kMaskedSelectBackward, {&self})) {
    node->state.mask = autograd::save(mask);
    node->state.self_sizes.assign(self.sizes().begin(), self.sizes().end());
    node->state.broadcast_sizes =
        ops::broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
    autograd::set_history(out, node);
  }
  return out;
}

const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  check_masked_fill_(*this, mask);
  // 16-bit floats go the way of autograd: the out-of-place op computes through float32
  // (Note [16-bit compute]) and its result is written back.
  if (autograd::any_requires_grad(*this) || isReducedFloatingType(scalar_type()))
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

Tensor ops::masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_mask(self, mask, "masked_fill");
  DimVector shape = ops::broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill");
  Tensor out = empty_tensor(shape, self.scalar_type(), self.device());
  Tensor v = ops::scalar_tensor(value, self.scalar_type(), self.device()).expand(shape);
  Tensor self_b = no_grad([&] { return self.expand(shape); });
  backend_for(self).where(out, ops::cast(mask, kBool).expand(shape), v, self_b);
  record_masked_fill(self, mask, Tensor(), out);
  return out;
}

Tensor ops::masked_fill_impl(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Scalar v = fill_value(value, "masked_fill").item();
  Tensor out = no_grad([&] { return self.masked_fill(mask, v); });
  record_masked_fill(self, mask, value, out);
  return out;
}

Tensor ops::nonzero_impl(const Tensor& self) {
  check_defined_self(self, "nonzero");
  Tensor b = ops::host_values(self.to(kBool).contiguous());
  const bool* p = ops::host_ptr<bool>(b);
  const int64_t n = b.numel(), nd = self.dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  Tensor out = empty_tensor({count, nd}, kLong, Device(kCPU));
  int64_t* o = ops::host_ptr<int64_t>(out);
  DimVector coord(nd, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      std::copy(coord.begin(), coord.end(), o);
      o += nd;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {  // odometer step to element i + 1
      if (++coord[d] < self.sizes()[d]) break;
      coord[d] = 0;
    }
  }
  return self.is_cpu() ? out : out.to(self.device(), kLong);
}

}  // namespace nabla
