#pragma once
// Graph recording for the reductions (forwards in reductions.cpp, reduce_stats.cpp and
// reduce_sort.cpp; derivatives in reduce_backward.cpp, PyTorch's node names). Each
// record_* does nothing unless grad mode is on and `x` requires grad, so the forwards
// call it unconditionally. `mask` marks the reduced dims (reduce_utils.h); `full` picks
// the *Backward0 node of the overload without dims where LibTorch has two.
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::ops {

/// sum / mean: SumBackward0/1, MeanBackward0/1.
void record_sum(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                const Tensor& out);
void record_mean(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                 const Tensor& out);
/// prod: ProdBackward0 (full) / ProdBackward1 (one dim); zeros in x handled exactly.
void record_prod(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                 const Tensor& out);
/// max() / min() (MaxBackward1 / MinBackward1, `full`) and amax / amin (AmaxBackward0 /
/// AminBackward0): the gradient is split evenly among the elements equal to the result.
void record_extremum(const Tensor& x, const std::vector<bool>& mask, bool keepdim, bool full,
                     bool is_max, const Tensor& out);
/// max(dim) / min(dim) values (MaxBackward0 / MinBackward0): the gradient goes to the
/// returned index only; `d` is the wrapped dim.
void record_select_dim(const Tensor& x, int64_t d, bool keepdim, bool is_max, const Tensor& values,
                       const Tensor& indices);
/// var / std (VarBackward0 / StdBackward0); `divisor` is N - correction.
void record_var_std(const Tensor& x, const std::vector<bool>& mask, bool keepdim, double divisor,
                    bool is_std, const Tensor& out);
/// norm: NormBackward0 (full) / NormBackward1 (dims); p = 0 gives no gradient (LibTorch).
void record_norm(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim, bool full,
                 const Tensor& out);
/// logsumexp: LogsumexpBackward0.
void record_logsumexp(const Tensor& x, const std::vector<bool>& mask, bool keepdim,
                      const Tensor& out);
/// cumsum along the wrapped dim `d`: CumsumBackward0.
void record_cumsum(const Tensor& x, int64_t d, const Tensor& out);
/// sort / topk values along the wrapped dim `d` (SortBackward0 / TopkBackward0): the
/// gradient is scattered to `indices`.
void record_sort(const Tensor& x, int64_t d, bool is_topk, const Tensor& values,
                 const Tensor& indices);

}  // namespace nabla::ops
