#pragma once
// Options of Embedding and F::embedding (torch/nn/options/embedding.h).
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  NABLA_ARG(int64_t, num_embeddings);
  NABLA_ARG(int64_t, embedding_dim);
  /// Rows at this index get no gradient (negative counts from the end).
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
  /// Rows looked up are renormalized in place to at most this norm.
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(bool, sparse) = false;
  /// An initial weight [num_embeddings, embedding_dim] (else N(0, 1)).
  NABLA_ARG(Tensor, _weight) = Tensor();
};

struct EmbeddingFromPretrainedOptions {
  NABLA_ARG(bool, freeze) = true;
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(bool, sparse) = false;
};

namespace functional {

struct EmbeddingFuncOptions {
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(bool, sparse) = false;
};

}  // namespace functional
}  // namespace nabla::nn
