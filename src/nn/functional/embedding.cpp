// F::embedding: padding_idx wrapping and checks, max_norm renormalization, then the op.
#include "nabla/nn/functional/embedding.h"

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/trace.h"

namespace nabla::nn::functional {

Tensor one_hot(const Tensor& tensor, int64_t num_classes) {
  return nabla::one_hot(tensor, num_classes);
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  NABLA_CHECK(weight.defined() && weight.dim() == 2,
              "embedding: weight must be 2-D "
              "[num_embeddings, embedding_dim]");
  int64_t padding_idx = -1;
  if (o.padding_idx().has_value()) {
    padding_idx = *o.padding_idx();
    const int64_t v = weight.size(0);
    NABLA_CHECK(padding_idx < v && padding_idx >= -v, "embedding: padding_idx (", padding_idx,
                ") must be within num_embeddings (", v, ")");
    if (padding_idx < 0) padding_idx += v;
  }
  if (o.max_norm().has_value()) {
    ops::refuse_while_tracing("embedding",
                              "with max_norm: the weight is renormalized in place, which a "
                              "static graph would not repeat");
    NoGradGuard no_grad;
    nabla::embedding_renorm_(weight, input.contiguous(), *o.max_norm(), o.norm_type());
  }
  return nabla::embedding(weight, input, padding_idx, o.scale_grad_by_freq(), o.sparse());
}

}  // namespace nabla::nn::functional
