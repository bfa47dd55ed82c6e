#pragma once
// embedding, embedding_renorm_ and one_hot (at:: signatures).
#include <tuple>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// embedding and one_hot (rows and documentation: nabla/ops/schema/embedding.def).
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/embedding.def"
#undef NABLA_OP

/// Bags of embeddings, as at::embedding_bag: indices [L] split into bags by offsets
/// (bag b holds offsets[b] .. offsets[b + 1], the last bag runs to L; with
/// include_last_offset the last offset is the end of the last bag, not a bag), each bag
/// reduced to one row [D] by mode 0 (sum, rows scaled by per_sample_weights when given),
/// 1 (mean) or 2 (max); empty bags give zeros; indices equal to padding_idx are left out
/// (and do not count for the mean). Returns (output [B, D], offset2bag [L] (each index's
/// bag), bag_size [B] (indices counted), max_indices [B, D] (max mode: the row of each
/// maximum, -1 in empty bags; else [B] zeros)). Backward: EmbeddingBagBackward0 into
/// weight (dense; scale_grad_by_freq divides by each index's count) and
/// per_sample_weights.
std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool sparse = false,
    const optional<Tensor>& per_sample_weights = {}, bool include_last_offset = false,
    optional<int64_t> padding_idx = nullopt);
/// Rescales in place each row of weight named in indices whose norm_type-norm exceeds
/// max_norm to norm max_norm (divided by norm + 1e-7, as LibTorch). Not recorded.
const Tensor& embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm,
                                double norm_type);

}  // namespace nabla
