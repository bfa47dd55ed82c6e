// F::embedding: padding_idx wrapping and checks, max_norm renormalization, then the op.
#include "nabla/nn/functional/embedding.h"

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"
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

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  const char* op = "embedding_bag";
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  Tensor indices = input, offsets = o.offsets(), per_sample_weights = o.per_sample_weights();
  NABLA_CHECK(!per_sample_weights.defined() || input.sizes() == per_sample_weights.sizes(), op,
              ": If per_sample_weights (", per_sample_weights.sizes(),
              ") is not null, then it must have the same shape as the input (", input.sizes(), ")");
  if (input.dim() == 2) {
    NABLA_CHECK(!offsets.defined(),
                "embedding_bag: If input is 2D, then offsets has to be null, as input is treated "
                "is a mini-batch of fixed length sequences. However, found offsets of type Tensor");
    offsets = arange(0, input.numel(), input.size(1), TensorOptions(kLong).device(input.device()));
    indices = input.reshape({-1});
    if (per_sample_weights.defined()) per_sample_weights = per_sample_weights.reshape({-1});
  } else {
    NABLA_CHECK(input.dim() == 1, op,
                ": input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    NABLA_CHECK(offsets.defined(), op, ": offsets has to be a 1D Tensor but got null");
    NABLA_CHECK(offsets.dim() == 1, op, ": offsets has to be a 1D Tensor, got ", offsets.dim(),
                " dims");
  }
  int64_t mode = 0;
  if (std::holds_alternative<enumtype::kMean>(o.mode())) mode = 1;
  if (std::holds_alternative<enumtype::kMax>(o.mode())) {
    mode = 2;
    NABLA_CHECK(!o.scale_grad_by_freq(), op,
                ": max mode does not support scaling the gradient by the frequency");
    NABLA_CHECK(!o.sparse(), op, ": max mode does not support sparse weights");
  }
  NABLA_CHECK(!per_sample_weights.defined() || mode == 0, op,
              ": per_sample_weights was not null. per_sample_weights is only supported for "
              "mode='kSum' (got mode='",
              enumtype::get_enum_name(o.mode()), "')");
  if (o.max_norm().has_value()) {
    ops::refuse_while_tracing(op,
                              "with max_norm: the weight is renormalized in place, which a "
                              "static graph would not repeat");
    NoGradGuard no_grad;
    nabla::embedding_renorm_(weight, indices.contiguous(), *o.max_norm(), o.norm_type());
  }
  return std::get<0>(nabla::embedding_bag(weight, indices, offsets, o.scale_grad_by_freq(), mode,
                                          o.sparse(), per_sample_weights, o.include_last_offset(),
                                          o.padding_idx()));
}

}  // namespace nabla::nn::functional
