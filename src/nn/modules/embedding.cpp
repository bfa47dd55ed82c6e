// The Embedding module.
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

}  // namespace nabla::nn
