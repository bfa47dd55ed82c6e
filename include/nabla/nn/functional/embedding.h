#pragma once
// F::embedding and F::one_hot, as torch::nn::functional:
//   F::embedding(indices, weight, F::EmbeddingFuncOptions().padding_idx(0).max_norm(1.0));
#include "nabla/nn/options/embedding.h"
#include "nabla/ops/embedding.h"

namespace nabla::nn::functional {

Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
/// With max_norm, the looked-up rows of `weight` are first renormalized in place (under
/// no_grad), as LibTorch does.
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});

}  // namespace nabla::nn::functional
