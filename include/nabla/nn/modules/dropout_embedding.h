#pragma once
// Dropout modules (active only in training mode) and Embedding, as torch::nn's.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/dropout.h"
#include "nabla/nn/functional/embedding.h"

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
NABLA_MODULE(Embedding);

}  // namespace nabla::nn
