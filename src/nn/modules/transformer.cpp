// MultiheadAttention and the transformer modules (include/nabla/nn/modules/transformer.h).
#include "nabla/nn/modules/transformer.h"

#include <limits>
#include <ostream>

#include "nabla/nn/functional/activation.h"
#include "nabla/nn/init.h"
#include "nabla/ops/factories.h"

namespace nabla::nn {

// ---- MultiheadAttention -------------------------------------------------------------------

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : options(options) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t e = options.embed_dim();
  NABLA_CHECK(e > 0 && options.num_heads() > 0,
              "MultiheadAttention: embed_dim and num_heads must be positive, got ", e, " and ",
              options.num_heads());
  head_dim = e / options.num_heads();
  NABLA_CHECK(head_dim * options.num_heads() == e,
              "MultiheadAttention: embed_dim must be divisible by num_heads (", e, " by ",
              options.num_heads(), ")");
  _qkv_same_embed_dim = options.kdim() == e && options.vdim() == e;
  if (!_qkv_same_embed_dim) {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, options.vdim()}));
    register_parameter("in_proj_weight", {}, false);
  } else {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}));
    register_parameter("q_proj_weight", {}, false);
    register_parameter("k_proj_weight", {}, false);
    register_parameter("v_proj_weight", {}, false);
  }
  if (options.bias()) {
    in_proj_bias = register_parameter("in_proj_bias", empty({3 * e}));
  } else {
    register_parameter("in_proj_bias", {}, false);
  }
  out_proj = register_module("out_proj", Linear(LinearOptions(e, e).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, e}));
    bias_v = register_parameter("bias_v", empty({1, 1, e}));
  } else {
    bias_k = Tensor();
    bias_v = Tensor();
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.);
    init::constant_(out_proj->bias, 0.);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights) {
  functional::MultiheadAttentionForwardFuncOptions o(
      options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
      options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias);
  o.training(is_training())
      .key_padding_mask(key_padding_mask)
      .need_weights(need_weights)
      .attn_mask(attn_mask)
      .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim)
    o.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  return functional::multi_head_attention_forward(query, key, value, o);
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::MultiheadAttention";
}

// ---- Layers ---------------------------------------------------------------------------------

namespace {
Tensor apply_activation(const activation_t& activation, const Tensor& x) {
  if (std::holds_alternative<enumtype::kReLU>(activation)) return functional::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(activation)) return functional::gelu(x);
  return std::get<std::function<Tensor(const Tensor&)>>(activation)(x);
}
}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions& options)
    : options(options) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const int64_t d = options.d_model();
  self_attn = register_module(
      "self_attn",
      MultiheadAttention(MultiheadAttentionOptions(d, options.nhead()).dropout(options.dropout())));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d})));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  Tensor attn =
      std::get<0>(self_attn(src, src, src, src_key_padding_mask, /*need_weights=*/false, src_mask));
  Tensor x = norm1(src + dropout1(attn));
  Tensor ff = linear2(dropout(apply_activation(options.activation(), linear1(x))));
  return norm2(x + dropout2(ff));
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::TransformerEncoderLayerImpl";
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(
    const TransformerDecoderLayerOptions& options)
    : options(options) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const int64_t d = options.d_model();
  auto attention = [&] {
    return MultiheadAttention(
        MultiheadAttentionOptions(d, options.nhead()).dropout(options.dropout()));
  };
  // LibTorch's registration order (it fixes the order of parameters() and state dicts).
  self_attn = register_module("self_attn", attention());
  multihead_attn = register_module("multihead_attn", attention());
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d})));
  norm3 = register_module("norm3", LayerNorm(LayerNormOptions({d})));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::activation(const Tensor& input) {
  return apply_activation(options.activation(), input);
}

Tensor TransformerDecoderLayerImpl::forward(Tensor tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  Tensor a = std::get<0>(self_attn(tgt, tgt, tgt, tgt_key_padding_mask, false, tgt_mask));
  tgt = norm1(tgt + dropout1(a));
  Tensor c =
      std::get<0>(multihead_attn(tgt, memory, memory, memory_key_padding_mask, false, memory_mask));
  tgt = norm2(tgt + dropout2(c));
  Tensor ff = linear2(dropout(activation(linear1(tgt))));
  return norm3(tgt + dropout3(ff));
}

void TransformerDecoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::TransformerDecoderLayerImpl";
}

// ---- Stacks -------------------------------------------------------------------------------

namespace {

// A stack's submodules: "layers", `num_layers` deep copies of `layer`, and "norm", a deep
// copy of the optional final norm.
template <class Stack, class Layer>
void register_stack(Stack& stack, const char* what, const Layer& layer, int64_t num_layers,
                    const AnyModule& norm) {
  NABLA_CHECK(!layer.is_empty(), what, ": the layer to stack is empty");
  stack.layers = stack.register_module("layers", ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) stack.layers->push_back(layer->clone());
  if (!norm.is_empty()) {
    stack.norm = norm.clone();
    stack.register_module("norm", stack.norm.ptr());
  }
}

template <class LayerImpl>
void reset_layers(const ModuleList& layers) {
  for (size_t i = 0; i < layers->size(); ++i) layers->ptr<LayerImpl>(i)->reset_parameters();
}

}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options)
    : options(std::move(options)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  register_stack(*this, "TransformerEncoder", options.encoder_layer(), options.num_layers(),
                 options.norm());
}

void TransformerEncoderImpl::reset_parameters() {
  reset_layers<TransformerEncoderLayerImpl>(layers);
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask) {
  Tensor out = src;
  for (size_t i = 0; i < layers->size(); ++i)
    out = layers->ptr<TransformerEncoderLayerImpl>(i)->forward(out, src_mask, src_key_padding_mask);
  return norm.is_empty() ? out : norm.forward(out);
}

void TransformerEncoderImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::TransformerEncoderImpl";
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options)
    : options(std::move(options)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  register_stack(*this, "TransformerDecoder", options.decoder_layer(), options.num_layers(),
                 options.norm());
}

void TransformerDecoderImpl::reset_parameters() {
  reset_layers<TransformerDecoderLayerImpl>(layers);
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor out = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    out = layers->ptr<TransformerDecoderLayerImpl>(i)->forward(
        out, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  return norm.is_empty() ? out : norm.forward(out);
}

void TransformerDecoderImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::TransformerDecoderImpl";
}

// ---- Transformer --------------------------------------------------------------------------

TransformerImpl::TransformerImpl(TransformerOptions options) : options(std::move(options)) {
  reset();
}

void TransformerImpl::reset() {
  const int64_t d = options.d_model();
  if (!options.custom_encoder().is_empty()) {
    encoder = options.custom_encoder();
  } else {
    auto layer = TransformerEncoderLayerOptions(d, options.nhead())
                     .dim_feedforward(options.dim_feedforward())
                     .dropout(options.dropout())
                     .activation(options.activation());
    encoder =
        AnyModule(TransformerEncoder(TransformerEncoderOptions(layer, options.num_encoder_layers())
                                         .norm(AnyModule(LayerNorm(LayerNormOptions({d}))))));
  }
  register_module("encoder", encoder.ptr());
  if (!options.custom_decoder().is_empty()) {
    decoder = options.custom_decoder();
  } else {
    auto layer = TransformerDecoderLayerOptions(d, options.nhead())
                     .dim_feedforward(options.dim_feedforward())
                     .dropout(options.dropout())
                     .activation(options.activation());
    decoder =
        AnyModule(TransformerDecoder(TransformerDecoderOptions(layer, options.num_decoder_layers())
                                         .norm(AnyModule(LayerNorm(LayerNormOptions({d}))))));
  }
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (auto& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  NABLA_CHECK(src.dim() == 3 && tgt.dim() == 3,
              "Transformer: src and tgt should have 3 dimensions [length, batch, d_model], "
              "got ",
              src.sizes(), " and ", tgt.sizes());
  NABLA_CHECK(src.size(1) == tgt.size(1), "Transformer: src and tgt should have equal batch size (",
              src.size(1), " vs ", tgt.size(1), ")");
  NABLA_CHECK(src.size(2) == options.d_model() && tgt.size(2) == options.d_model(),
              "Transformer: src and tgt should have same feature size as d_model (",
              options.d_model(), "), got ", src.size(2), " and ", tgt.size(2));
  Tensor memory = encoder.forward<Tensor>(src, src_mask, src_key_padding_mask);
  return decoder.forward<Tensor>(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                 memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  NABLA_CHECK(sz >= 0, "generate_square_subsequent_mask: sz must be non-negative, got ", sz);
  return triu(full({sz, sz}, -std::numeric_limits<double>::infinity()), 1);
}

void TransformerImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Transformer(d_model=" << options.d_model() << ", nhead=" << options.nhead()
         << ")";
}

}  // namespace nabla::nn
