#pragma once
// embedding, embedding_renorm_ and one_hot (at:: signatures).
#include "nabla/core/tensor.h"

namespace nabla {

/// Rows of weight [V, D] picked by integer `indices` (any shape, values in [0, V)):
/// output indices.sizes() + [D]. Backward (EmbeddingBackward0) accumulates the output
/// gradient into a zero [V, D] gradient (dense); rows of padding_idx (when >= 0) get no
/// gradient; scale_grad_by_freq divides each row's gradient by its count in the batch.
/// sparse = true is not supported (nabla has no sparse tensors).
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);
/// Rescales in place each row of weight named in indices whose norm_type-norm exceeds
/// max_norm to norm max_norm (divided by norm + 1e-7, as LibTorch). Not recorded.
const Tensor& embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm,
                                double norm_type);
/// int64 one-hot encoding: output tensor.sizes() + [num_classes]; num_classes = -1
/// takes max(tensor) + 1.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

}  // namespace nabla
