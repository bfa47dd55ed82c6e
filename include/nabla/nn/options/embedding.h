#pragma once
// Options of Embedding, EmbeddingBag, F::embedding and F::embedding_bag
// (torch/nn/options/embedding.h).
#include <variant>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

/// How EmbeddingBag reduces a bag: kSum, kMean or kMax.
using EmbeddingBagMode = std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax>;

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

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  NABLA_ARG(int64_t, num_embeddings);
  NABLA_ARG(int64_t, embedding_dim);
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(EmbeddingBagMode, mode) = enumtype::kMean{};
  NABLA_ARG(bool, sparse) = false;
  /// An initial weight [num_embeddings, embedding_dim] (else N(0, 1)).
  NABLA_ARG(Tensor, _weight) = Tensor();
  /// The last offset is the end of the last bag (offsets has one entry per bag plus one).
  NABLA_ARG(bool, include_last_offset) = false;
  /// Indices equal to it are left out of their bags (negative counts from the end).
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
};

struct EmbeddingBagFromPretrainedOptions {
  NABLA_ARG(bool, freeze) = true;
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(EmbeddingBagMode, mode) = enumtype::kMean{};
  NABLA_ARG(bool, sparse) = false;
  NABLA_ARG(bool, include_last_offset) = false;
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
};

namespace functional {

struct EmbeddingFuncOptions {
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(bool, sparse) = false;
};

struct EmbeddingBagFuncOptions {
  /// Where each bag starts in a 1-d input (a 2-d input is one bag per row, without offsets).
  NABLA_ARG(Tensor, offsets) = Tensor();
  NABLA_ARG(optional<double>, max_norm) = nullopt;
  NABLA_ARG(double, norm_type) = 2.;
  NABLA_ARG(bool, scale_grad_by_freq) = false;
  NABLA_ARG(EmbeddingBagMode, mode) = enumtype::kMean{};
  NABLA_ARG(bool, sparse) = false;
  /// One weight per index (the input's shape), kSum only.
  NABLA_ARG(Tensor, per_sample_weights) = Tensor();
  NABLA_ARG(bool, include_last_offset) = false;
  NABLA_ARG(optional<int64_t>, padding_idx) = nullopt;
};

}  // namespace functional
}  // namespace nabla::nn
