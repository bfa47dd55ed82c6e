// The Embedding and EmbeddingBag modules.
#include <ostream>

#include "nabla/autograd/grad_mode.h"
#include "nabla/nn/init.h"
#include "nabla/nn/modules/dropout_embedding.h"
#include "nabla/ops/factories.h"

namespace nabla::nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  NABLA_CHECK(options.num_embeddings() > 0 && options.embedding_dim() > 0,
              "Embedding: num_embeddings and embedding_dim must be positive, got ",
              options.num_embeddings(), " and ", options.embedding_dim());
  if (auto p = options.padding_idx()) {
    NABLA_CHECK(*p >= -options.num_embeddings() && *p < options.num_embeddings(),
                "Embedding: padding_idx ", *p, " must be within num_embeddings (",
                options.num_embeddings(), ")");
    if (*p < 0) options.padding_idx(*p + options.num_embeddings());
  }
  reset();
}

void EmbeddingImpl::reset() {
  if (options._weight().defined()) {
    NABLA_CHECK(options._weight().dim() == 2 &&
                    options._weight().size(0) == options.num_embeddings() &&
                    options._weight().size(1) == options.embedding_dim(),
                "Embedding: _weight of shape ", options._weight().sizes(), " does not match [",
                options.num_embeddings(), ", ", options.embedding_dim(), "]");
    weight = register_parameter("weight", options._weight());
  } else {
    weight =
        register_parameter("weight", empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (auto p = options.padding_idx()) {
    NoGradGuard guard;
    weight[*p].fill_(0);
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (auto p = options.padding_idx()) stream << ", padding_idx=" << *p;
  if (auto m = options.max_norm()) stream << ", max_norm=" << *m;
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  NABLA_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "Embedding::from_pretrained: Embeddings parameter is expected to be 2-dimensional, "
              "got ",
              embeddings.defined() ? embeddings.dim() : 0, " dims");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options_) : options(options_) {
  reset();
}

void EmbeddingBagImpl::reset() {
  const int64_t rows = options.num_embeddings(), cols = options.embedding_dim();
  if (auto p = options.padding_idx()) {
    NABLA_CHECK(*p >= -rows && *p < rows, "EmbeddingBag: padding_idx ", *p,
                " must be within num_embeddings (", rows, ")");
    if (*p < 0) options.padding_idx(*p + rows);
  }
  if (options._weight().defined()) {
    NABLA_CHECK(options._weight().dim() == 2 && options._weight().size(0) == rows &&
                    options._weight().size(1) == cols,
                "EmbeddingBag: Shape of weight ", options._weight().sizes(),
                " does not match num_embeddings and embedding_dim [", rows, ", ", cols, "]");
    weight = register_parameter("weight", options._weight());
  } else {
    NABLA_CHECK(rows >= 0 && cols >= 0,
                "EmbeddingBag: num_embeddings and embedding_dim must be non-negative, got ", rows,
                " and ", cols);
    weight = register_parameter("weight", empty({rows, cols}));
    reset_parameters();
  }
}

// As LibTorch's: the padding row is zeroed before normal_ redraws every row, so it does not
// stay zero (unlike Embedding's); the same draws as LibTorch's for one seed.
void EmbeddingBagImpl::reset_parameters() {
  if (auto p = options.padding_idx()) {
    NoGradGuard guard;
    weight[*p].fill_(0);
  }
  init::normal_(weight);
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq())
    stream << ", scale_grad_by_freq=" << options.scale_grad_by_freq();
  if (options.sparse()) stream << ", sparse=" << options.sparse();
  if (!std::holds_alternative<enumtype::kMean>(options.mode()))
    stream << ", mode=" << enumtype::get_enum_name(options.mode());
  if (options.include_last_offset())
    stream << ", include_last_offset=" << options.include_last_offset();
  if (auto p = options.padding_idx()) stream << ", padding_idx=" << *p;
  stream << ")";
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& options) {
  NABLA_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "EmbeddingBag::from_pretrained: Embeddings parameter is expected to be "
              "2-dimensional, got ",
              embeddings.defined() ? embeddings.dim() : 0, " dims");
  // As LibTorch's, include_last_offset is not passed on.
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings)
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .padding_idx(options.padding_idx()));
  bag->weight.set_requires_grad(!options.freeze());
  return bag;
}

}  // namespace nabla::nn
