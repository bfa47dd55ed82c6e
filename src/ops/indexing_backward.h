#pragma once
// Graph recording for the indexing ops (forward in indexing.cpp, derivatives in
// indexing_backward.cpp, with PyTorch's node names). Each record_* does nothing unless
// grad mode is on and a differentiable input requires grad; index tensors and masks are
// never differentiated.
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::ops {

/// out is an alias of self (x.index({"..."})): AliasBackward0; tracked as a view of self.
void record_alias(const Tensor& self, const Tensor& out);
/// out = self.index(indices) (advanced indexing, masks allowed): IndexBackward0.
void record_index(const Tensor& self, const std::vector<optional<Tensor>>& indices,
                  const Tensor& out);
/// out = self.index_put(indices, values, accumulate) (out of place): IndexPutBackward0.
void record_index_put(const Tensor& self, const std::vector<optional<Tensor>>& indices,
                      const Tensor& values, bool accumulate, const Tensor& out);
/// out = self.index_select(dim, index); `dim` wrapped, `index` 1-d int64.
void record_index_select(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out);
/// out = self.gather(dim, index); `dim` wrapped.
void record_gather(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out);
/// out = self.scatter(dim, index, src) / scatter_add (accumulate); an undefined `src`
/// stands for the Scalar overload (ScatterBackward1). `dim` wrapped.
void record_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    bool accumulate, const Tensor& out);
/// out = self.masked_fill(mask, value); an undefined `value` stands for the Scalar
/// overload (MaskedFillBackward0), a defined one is the 0-d value tensor (…Backward1).
void record_masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value,
                        const Tensor& out);
/// out = self.masked_select(mask).
void record_masked_select(const Tensor& self, const Tensor& mask, const Tensor& out);

}  // namespace nabla::ops
