// Shape helpers of the reductions and the backward pieces their nodes share
// (reduction/reduce_utils.h). Formulas are written with differentiable ops, so create_graph gives
// higher derivatives.
#include "ops/reduction/reduce_utils.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/elementwise/float32_compute.h"

namespace nabla::ops {

std::vector<bool> reduce_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<bool> mask(ndim, dims.empty());
  std::vector<bool> seen(std::max<int64_t>(ndim, 1), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    NABLA_CHECK(!seen[w], op, ": dim ", w, " appears multiple times in the list of dims (got ",
                dims, ")");
    seen[w] = true;
    if (w < ndim) mask[w] = true;
  }
  return mask;
}

DimVector reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim) {
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d])
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

int64_t reduced_count(IntArrayRef sizes, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask[d]) n *= sizes[d];
  return n;
}

bool reduces_empty_dim(IntArrayRef sizes, const std::vector<bool>& mask) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask[d] && sizes[d] == 0) return true;
  return false;
}

Tensor reduce_to(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                 ScalarType dtype) {
  // 16-bit floats accumulate in float32 and round once (Note [16-bit compute]).
  const ScalarType wide = kernel_dtype(dtype);
  Tensor in = cast(cast(x, dtype), wide);
  Tensor out = empty_tensor(reduced_shape(x.sizes(), mask, true), wide, x.device());
  DimVector dims;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(static_cast<int64_t>(d));
  backend_for(x.device()).reduce(op, out, in, dims);
  out = cast(out, dtype);
  return keepdim ? out : contiguous_view(out, reduced_shape(x.sizes(), mask, false));
}

Tensor contiguous_view(const Tensor& t, IntArrayRef shape) {
  NABLA_ASSERT(t.is_contiguous() && checked_numel(shape, "view") == t.numel(),
               "contiguous_view: bad shape ", shape, " for ", t.sizes());
  return make_view(t, shape, contiguous_strides(shape), t.storage_offset());
}

ScalarType sum_dtype(ScalarType in, optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return isIntegralType(in, /*include_bool=*/true) ? kLong : in;
}

// ---- Backward pieces ------------------------------------------------------------------------

ReducedDims::ReducedDims(const Tensor& x, const std::vector<bool>& mask, bool keepdim)
    : self_sizes(x.sizes().begin(), x.sizes().end()), keepdim(keepdim) {
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(static_cast<int64_t>(d));
}

Tensor ReducedDims::restore(const Tensor& t) const {
  if (keepdim || every_dim()) return t;
  Tensor r = t;
  for (int64_t d : dims) r = r.unsqueeze(d);
  return r;
}

Tensor ReducedDims::sum_keep(const Tensor& t) const {
  return dims.empty() ? t : t.sum(dims, /*keepdim=*/true);
}

void record_self_result(const autograd::NodeType<ReducedSelfResult>& type, const Tensor& x,
                        const std::vector<bool>& mask, bool keepdim, const Tensor& out) {
  auto node = autograd::record_node(type, {&x});
  if (!node) return;
  node->state.reduced = ReducedDims(x, mask, keepdim);
  node->state.self = autograd::save(x);
  autograd::set_history(out, node);
  node->state.result = autograd::save_output(out);
}

Tensor evenly_distribute(const ReducedDims& r, const Tensor& x, const Tensor& out,
                         const Tensor& grad) {
  Tensor outk = r.restore(out);
  Tensor hit =
      (r.every_dim() && outk.dim() == 0 && outk.isnan().item<bool>()) ? x.isnan() : x == outk;
  Tensor share = r.restore(grad) / r.sum_keep(hit);
  return share.where(hit, zero_like_scalar(share));
}

// A one-hot comparison with an iota along the dim puts the gradient on the returned
// index (no scatter needed, and where is differentiable in its value argument).
variable_list value_selecting_backward(OpNode<ValueSelecting>& n, const variable_list& grads) {
  const ValueSelecting& s = n.state;
  if (s.self_sizes.empty()) return {grads[0]};  // 0-d input: the value is the input
  Tensor idx = n.get(s.indices), g = grads[0];
  if (!s.keepdim) {
    idx = idx.unsqueeze(s.dim);
    g = g.unsqueeze(s.dim);
  }
  DimVector iota_shape(s.self_sizes.size(), 1);
  iota_shape[s.dim] = s.self_sizes[s.dim];
  Tensor iota =
      arange(s.self_sizes[s.dim], TensorOptions(kLong).device(idx.device())).view(iota_shape);
  Tensor hit = iota == idx;  // [self_sizes]: where broadcasts g to it
  return {g.where(hit, zero_like_scalar(g))};
}

void record_value_selecting(const autograd::NodeType<ValueSelecting>& type, const Tensor& x,
                            int64_t d, bool keepdim, const Tensor& values, const Tensor& indices) {
  auto node = autograd::record_node(type, {&x});
  if (!node) return;
  node->state.self_sizes.assign(x.sizes().begin(), x.sizes().end());
  node->state.dim = d;
  node->state.keepdim = keepdim;
  node->state.indices = autograd::save(indices);  // not differentiable: saved as an input
  autograd::set_history(values, node);
}

// Quotients whose denominator may be 0 divide by a 1 put in its place and are then
// masked: masking an inf or NaN quotient instead would leave 0 * inf = NaN in the second
// derivative.
Tensor nonzero_or_one(const Tensor& t) {
  return scalar_tensor(1, t.scalar_type(), t.device()).where(t == 0, t);
}

Tensor norm_grad(const ReducedDims& r, const Tensor& x, const Tensor& norm, const Tensor& grad,
                 double p) {
  if (p == 0) return Tensor();
  if (p == 1) return x.sign() * grad;
  Tensor zero = zero_like_scalar(x);
  if (p == 2) return x * (grad / nonzero_or_one(norm)).where(norm != 0, zero);
  if (std::isinf(p)) {
    Tensor hit = x.abs() == norm;
    Tensor share = grad / nonzero_or_one(r.sum_keep(hit.to(grad.scalar_type())));
    return x.sign() * share.where(hit, zero);
  }
  if (p < 1) {
    // |x|^(p-1) is inf at x = 0, where the gradient is taken as 0.
    Tensor ax = nonzero_or_one(x.abs()).pow(p - 1).where(x != 0, zero);
    return x.sign() * ax * grad * norm.pow(1 - p);
  }
  Tensor scale = (grad / nonzero_or_one(norm).pow(p - 1)).where(norm != 0, zero);
  if (p < 2) return x.sign() * x.abs().pow(p - 1) * scale;
  return x * x.abs().pow(p - 2) * scale;
}

Tensor var_grad(const ReducedDims& r, const Tensor& x, const Tensor& grad, double divisor) {
  // A 0-d input with correction 1: LibTorch 1.13 gives grad * inf (not inf * 0 = nan).
  if (r.self_sizes.empty() && divisor == 0) return grad * std::numeric_limits<double>::infinity();
  Tensor mean = r.dims.empty() ? x : x.mean(r.dims, /*keepdim=*/true);
  return grad * (2.0 / divisor) * (x - mean);
}

// ---- Rows -----------------------------------------------------------------------------------

Rows rows_of(const Tensor& x, int64_t dim) {
  Tensor t = (x.dim() == 0 ? x.view({1}) : x.movedim(dim, -1))
                 .detach()
                 .to(Device(kCPU), kDouble, false, /*copy=*/true)
                 .contiguous();
  Rows r;
  r.n = t.dim() == 0 ? 1 : t.size(-1);
  r.rows = r.n == 0 ? 0 : t.numel() / r.n;
  r.data = t.reshape({r.rows, r.n});
  return r;
}

Tensor from_rows(const Tensor& values, const Tensor& x, int64_t dim, ScalarType dtype) {
  if (x.dim() == 0) return values.view({}).to(x.device(), dtype);
  DimVector moved(x.sizes().begin(), x.sizes().end());
  moved.erase(moved.begin() + dim);
  moved.push_back(x.size(dim));
  return values.view(moved).movedim(-1, dim).contiguous().to(x.device(), dtype);
}

}  // namespace nabla::ops
