#pragma once
// Dropout modules (active only in training mode), Embedding and EmbeddingBag, as
// torch::nn's.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/dropout.h"
#include "nabla/nn/functional/embedding.h"
#include "nabla/nn/modules/container/any.h"

namespace nabla::nn {

#define NABLA_DROPOUT_MODULE(Name, Options, call, FuncOptions)                       \
  class Name##Impl : public Cloneable<Name##Impl> {                                  \
   public:                                                                           \
    explicit Name##Impl(const Options& options = {}) : options(options) { reset(); } \
    void reset() override {                                                          \
      NABLA_CHECK(options.p() >= 0 && options.p() <= 1,                              \
                  #Name                                                              \
                  ": dropout probability has to be between "                         \
                  "0 and 1, but got ",                                               \
                  options.p());                                                      \
    }                                                                                \
    void pretty_print(std::ostream& stream) const override {                         \
      stream << std::boolalpha << "nabla::nn::" #Name "(p=" << options.p()           \
             << ", inplace=" << options.inplace() << ")";                            \
    }                                                                                \
    Tensor forward(Tensor input) {                                                   \
      return functional::call(std::move(input), functional::FuncOptions()            \
                                                    .p(options.p())                  \
                                                    .training(is_training())         \
                                                    .inplace(options.inplace()));    \
    }                                                                                \
    Options options;                                                                 \
  };                                                                                 \
  NABLA_MODULE(Name)

NABLA_DROPOUT_MODULE(Dropout, DropoutOptions, dropout, DropoutFuncOptions);
NABLA_DROPOUT_MODULE(Dropout2d, Dropout2dOptions, dropout2d, Dropout2dFuncOptions);
NABLA_DROPOUT_MODULE(Dropout3d, Dropout3dOptions, dropout3d, Dropout3dFuncOptions);
NABLA_DROPOUT_MODULE(AlphaDropout, AlphaDropoutOptions, alpha_dropout, AlphaDropoutFuncOptions);
NABLA_DROPOUT_MODULE(FeatureAlphaDropout, FeatureAlphaDropoutOptions, feature_alpha_dropout,
                     FeatureAlphaDropoutFuncOptions);
#undef NABLA_DROPOUT_MODULE

/// A lookup table [num_embeddings, embedding_dim], initialised N(0, 1) (the padding row
/// zeroed) as PyTorch's, or taken from options._weight.
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& indices);
  EmbeddingOptions options;
  Tensor weight;
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose weight is `embeddings` [num_embeddings, embedding_dim] itself
  /// (shared, not copied), trainable unless options.freeze().
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

/// Sums, means or maxima of bags of embeddings (F::embedding_bag) without the [L, D]
/// intermediate of an Embedding; weight initialised N(0, 1) (the padding row too, as
/// LibTorch's).
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input: 1-d indices with offsets (where each bag starts), or 2-d [B, L] (a bag per row).
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  EmbeddingBagOptions options;
  Tensor weight;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  /// As Embedding::from_pretrained. As LibTorch's, it does not pass include_last_offset on.
  static EmbeddingBag from_pretrained(const Tensor& embeddings,
                                      const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace nabla::nn
