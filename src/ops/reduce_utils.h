#pragma once
// Helpers shared by the reduction ops (reductions.cpp, reduce_stats.cpp, reduce_sort.cpp).
#include <vector>

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

}  // namespace nabla::ops
