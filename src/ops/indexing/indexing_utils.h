#pragma once
// Helpers shared by the indexing ops (indexing/advanced.cpp, indexing/gather_scatter.cpp,
// indexing/masked.cpp).
//
// Index values live on the host: the ops read them to bounds-check (and to linearize
// advanced indices) before any kernel runs, so kernels never see a bad index.
//
// Autograd: each op computes its result with grad mode off (its internal views and
// copies are bookkeeping) and then records one node, declared beside it. In-place
// variants on tensors taking part in autograd compute the out-of-place op and rebase
// self's history (ops::assign_with_history).
//
// Note [Gradients of repeated indices]
// A position read several times (duplicate indices in index/gather/index_select) gets
// the sum of the gradients of every read, so the formulas scatter with accumulation
// (index_put(..., accumulate=true), scatter_add) into zeros. For writes without
// accumulation (index_put, scatter) each written value gets the gradient of its target
// position, as in PyTorch, which is only the true derivative when indices are unique.
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/factories.h"
#include "ops/op_utils.h"
#include "ops/shape/views_backward.h"

namespace nabla::ops::indexing {

using IndexList = std::vector<optional<Tensor>>;

inline bool is_mask_dtype(ScalarType t) { return t == kBool || t == kByte; }

inline const Tensor& check_defined_self(const Tensor& t, const char* op) {
  check_defined(t, op);
  return t;
}

/// t.reshape(shape) that also takes a 0-d `t` (Tensor::view rejects 0-d inputs today).
inline Tensor reshape_any(const Tensor& t, IntArrayRef shape) {
  if (t.dim() != 0) return t.reshape(shape);
  DimVector sz(shape.begin(), shape.end());
  for (int64_t& s : sz) s = s == -1 ? 1 : s;
  NABLA_CHECK(checked_numel(sz, "reshape") == 1, "reshape: shape ", shape,
              " is invalid for input of size 1");
  return make_view(t, sz, DimVector(sz.size(), 1), t.storage_offset());
}

/// An in-place write that records nothing must still keep the view rules (e.g. a view
/// made under no_grad of a base that requires grad may not be written with grad on).
inline void check_plain_write(const Tensor& self, const char* op) {
  if (GradMode::is_enabled() && self.unsafeGetTensorImpl()->autograd_meta())
    check_inplace_autograd(self, op);
}

/// Zeros of `shape` with the dtype and device of `like` (the start of a scattered gradient).
inline Tensor zeros_like_of(IntArrayRef shape, const Tensor& like) {
  return zeros(shape, like.options());
}

}  // namespace nabla::ops::indexing
