#pragma once
// F::embedding, F::embedding_bag and F::one_hot, as torch::nn::functional:
//   F::embedding(indices, weight, F::EmbeddingFuncOptions().padding_idx(0).max_norm(1.0));
//   F::embedding_bag(indices, weight, F::EmbeddingBagFuncOptions().offsets(offsets));
#include "nabla/nn/options/embedding.h"
#include "nabla/ops/embedding.h"

namespace nabla::nn::functional {

Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
/// With max_norm, the looked-up rows of `weight` are first renormalized in place (under
/// no_grad), as LibTorch does.
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});
/// input: 1-d indices with options.offsets(), or 2-d [B, L] (one bag per row, no offsets);
/// returns [B, embedding_dim]. With max_norm, the looked-up rows are renormalized first.
Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options = {});

}  // namespace nabla::nn::functional
