#pragma once
// Helpers shared by the reduction ops (reductions.cpp, stats.cpp, sort.cpp, composed.cpp,
// order.cpp of this folder) and the backward pieces several of their nodes share
// (reduce_utils.cpp).
#include <tuple>
#include <vector>

#include "nabla/autograd/record.h"
#include "ops/op_utils.h"

namespace nabla::ops {

/// Which dims of an `ndim`-dim tensor `dims` reduces; an empty list means every dim
/// (LibTorch's sum(dim={})). Raises for out-of-range or repeated dims, naming `op`.
std::vector<bool> reduce_mask(IntArrayRef dims, int64_t ndim, const char* op);
/// A mask with every dim reduced.
inline std::vector<bool> all_dims(int64_t ndim) { return std::vector<bool>(ndim, true); }

/// `sizes` with the reduced dims set to 1 (keepdim) or removed.
DimVector reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim);
/// Number of elements each output of the reduction combines.
int64_t reduced_count(IntArrayRef sizes, const std::vector<bool>& mask);
/// True when some reduced dim has size 0.
bool reduces_empty_dim(IntArrayRef sizes, const std::vector<bool>& mask);

/// The backend reduction `op` of `x` (converted to `dtype`) over the masked dims.
Tensor reduce_to(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                 ScalarType dtype);

/// A contiguous `t` seen with another `shape` of the same numel (0-d included).
Tensor contiguous_view(const Tensor& t, IntArrayRef shape);

/// int and bool sum to int64 (LibTorch's rule for sum, prod and cumsum) unless a dtype
/// is given.
ScalarType sum_dtype(ScalarType in, optional<ScalarType> dtype);

// ---- Backward pieces ------------------------------------------------------------------------

/// Note [Reduced dims]
/// What the backward of a reduction over dims needs to bring the output's gradient back
/// to the input: the input's sizes, the reduced dims (wrapped, ascending; every dim for a
/// full reduction) and keepdim. Inline storage up to 6 dims: recording allocates nothing.
struct ReducedDims {
  DimVector self_sizes;
  DimVector dims;
  bool keepdim = false;

  ReducedDims() = default;
  ReducedDims(const Tensor& x, const std::vector<bool>& mask, bool keepdim);
  bool every_dim() const { return dims.size() == self_sizes.size(); }
  /// `t` (shaped like the output) with the reduced dims back as size 1, so it broadcasts
  /// against the input. A reduction over every dim gives a 0-d tensor, which already does.
  Tensor restore(const Tensor& t) const;
  /// `t` (shaped like the input) summed over the reduced dims, kept as size 1.
  Tensor sum_keep(const Tensor& t) const;
};

/// The state of a reduction whose formula reads its input and its result (prod, max(),
/// amax, std, norm, logsumexp, median()).
struct ReducedSelfResult {
  ReducedDims reduced;
  autograd::SavedVariable self, result;
  auto saved() { return std::tie(self, result); }
};
/// Records `out` = a reduction of `x` as a node of `type` saving both.
void record_self_result(const autograd::NodeType<ReducedSelfResult>& type, const Tensor& x,
                        const std::vector<bool>& mask, bool keepdim, const Tensor& out);

/// The gradient of a max / min-like value (max(), min(), amax, amin, median()) shared
/// evenly among the elements of `x` equal to `out`; a NaN full result selects the NaN
/// elements (LibTorch's evenly_distribute_backward / scale_grad_by_count).
Tensor evenly_distribute(const ReducedDims& r, const Tensor& x, const Tensor& out,
                         const Tensor& grad);

/// The state of the value-selecting reductions along one dim (max(dim), min(dim),
/// median(dim), nanmedian(dim), mode, kthvalue): the gradient goes to the returned index.
struct ValueSelecting {
  DimVector self_sizes;
  int64_t dim = 0;  // wrapped
  bool keepdim = false;
  autograd::SavedVariable indices;
  auto saved() { return std::tie(indices); }
};
autograd::variable_list value_selecting_backward(autograd::OpNode<ValueSelecting>& n,
                                                 const autograd::variable_list& grads);
/// Records `values` (taken from `x` at `indices` along the wrapped dim `d`) as a node of
/// `type`.
void record_value_selecting(const autograd::NodeType<ValueSelecting>& type, const Tensor& x,
                            int64_t d, bool keepdim, const Tensor& values, const Tensor& indices);

/// d norm_p(x) / dx times `grad`; `grad` and `norm` restored to broadcast against x
/// (ReducedDims::restore). The gradient is 0 (not NaN) where the norm is 0; ±inf norms
/// share it among ties of |x|; p = 0 has none (an undefined tensor). LibTorch's
/// norm_backward.
Tensor norm_grad(const ReducedDims& r, const Tensor& x, const Tensor& norm, const Tensor& grad,
                 double p);

/// `t` with its zeros replaced by 1: a denominator for a quotient masked where t == 0.
Tensor nonzero_or_one(const Tensor& t);

/// d var(x) / dx times `grad` (restored): 2 (x - mean) / divisor.
Tensor var_grad(const ReducedDims& r, const Tensor& x, const Tensor& grad, double divisor);

// ---- Rows: scans computed element by element ------------------------------------------------

/// `x` with `dim` moved last, as a contiguous float64 copy [rows, n] on the host (a 0-d x
/// is one row of one element): rows of the scan are contiguous. Always a copy, so scans
/// may write it; from_rows puts the result back on x's device (for a GPU tensor, a round
/// trip through the host: Note [Host reads]).
struct Rows {
  Tensor data;  // [rows, n] float64
  int64_t rows = 0, n = 0;
};
Rows rows_of(const Tensor& x, int64_t dim);
/// Values [rows, n] back to x's layout (dim moved back), in `dtype`.
Tensor from_rows(const Tensor& values, const Tensor& x, int64_t dim, ScalarType dtype);

}  // namespace nabla::ops

namespace nabla {
// The names the reduction families' forwards and nodes are written with.
using ops::reduce_mask;
using ops::reduce_to;
using ops::ReducedDims;
using ops::ReducedSelfResult;
}  // namespace nabla
