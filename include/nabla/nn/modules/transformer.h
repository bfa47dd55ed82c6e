#pragma once
// Attention and transformer modules, as torch::nn (LibTorch 1.13): MultiheadAttention,
// TransformerEncoderLayer/DecoderLayer (post-norm: x = norm(x + dropout(sublayer(x)))),
// TransformerEncoder/Decoder (stacks of deep copies of a layer, optional final norm) and
// Transformer. Inputs are [length, batch, d_model]; parameter names are LibTorch's.
#include <functional>
#include <variant>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/functional/attention.h"
#include "nabla/nn/modules/container/any.h"
#include "nabla/nn/modules/container/modulelist.h"
#include "nabla/nn/modules/dropout_embedding.h"
#include "nabla/nn/modules/linear.h"
#include "nabla/nn/modules/normalization.h"

namespace nabla::nn {

// ---- MultiheadAttention -------------------------------------------------------------------

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  NABLA_ARG(int64_t, embed_dim);
  NABLA_ARG(int64_t, num_heads);
  NABLA_ARG(double, dropout) = 0.0;
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(bool, add_bias_kv) = false;
  NABLA_ARG(bool, add_zero_attn) = false;
  NABLA_ARG(int64_t, kdim);
  NABLA_ARG(int64_t, vdim);
};

class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  /// (output [L, N, E], weights [N, L, S] averaged over heads, or undefined unless need_weights).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {},
                                     bool average_attn_weights = true);
  void reset() override;
  /// Xavier-uniform projections, zero biases (LibTorch's initialisation).
  void _reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v;
  Linear out_proj = nullptr;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;
  int64_t head_dim = 0;

 protected:
  // forward's defaults, for calls through AnyModule / Sequential with fewer arguments.
  NABLA_FORWARD_HAS_DEFAULT_ARGS({3, AnyValue(Tensor())}, {4, AnyValue(true)},
                                 {5, AnyValue(Tensor())}, {6, AnyValue(true)})
};
NABLA_MODULE(MultiheadAttention);

// ---- Layers ---------------------------------------------------------------------------------

/// kReLU, kGELU or any function of a tensor.
using activation_t =
    std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}  // NOLINT
  NABLA_ARG(int64_t, d_model);
  NABLA_ARG(int64_t, nhead);
  NABLA_ARG(int64_t, dim_feedforward) = 2048;
  NABLA_ARG(double, dropout) = 0.1;
  NABLA_ARG(activation_t, activation) = enumtype::kReLU{};
};

struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  NABLA_ARG(int64_t, d_model);
  NABLA_ARG(int64_t, nhead);
  NABLA_ARG(int64_t, dim_feedforward) = 2048;
  NABLA_ARG(double, dropout) = 0.1;
  NABLA_ARG(activation_t, activation) = enumtype::kReLU{};
};

class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
NABLA_MODULE(TransformerEncoderLayer);

class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  Tensor forward(Tensor tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Dropout dropout1 = nullptr;
  LayerNorm norm1 = nullptr;
  MultiheadAttention multihead_attn = nullptr;
  Dropout dropout2 = nullptr;
  LayerNorm norm2 = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  Dropout dropout3 = nullptr;
  LayerNorm norm3 = nullptr;

 protected:
  Tensor activation(const Tensor& input);
};
NABLA_MODULE(TransformerDecoderLayer);

// ---- Stacks -------------------------------------------------------------------------------

struct TransformerEncoderOptions {
  /// Keeps `encoder_layer` (the stack holds deep copies of it).
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  /// Builds a new layer from `encoder_layer_options`.
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options,
                            int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  NABLA_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  NABLA_ARG(int64_t, num_layers);
  NABLA_ARG(AnyModule, norm);
};

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options,
                            int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  NABLA_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  NABLA_ARG(int64_t, num_layers);
  NABLA_ARG(AnyModule, norm);
};

class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
NABLA_MODULE(TransformerEncoder);

class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
NABLA_MODULE(TransformerDecoder);

// ---- Transformer --------------------------------------------------------------------------

struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                     int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  NABLA_ARG(int64_t, d_model) = 512;
  NABLA_ARG(int64_t, nhead) = 8;
  NABLA_ARG(int64_t, num_encoder_layers) = 6;
  NABLA_ARG(int64_t, num_decoder_layers) = 6;
  NABLA_ARG(int64_t, dim_feedforward) = 2048;
  NABLA_ARG(double, dropout) = 0.1;
  NABLA_ARG(activation_t, activation) = enumtype::kReLU{};
  /// Replaces the default encoder/decoder (their forward must take the arguments of
  /// TransformerEncoder/TransformerDecoder's).
  NABLA_ARG(AnyModule, custom_encoder);
  NABLA_ARG(AnyModule, custom_decoder);
};

class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options);
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  /// Xavier-uniform for every parameter of more than one dimension.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// [sz, sz]: 0 on and below the diagonal, -inf above (no attending to later positions).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
NABLA_MODULE(Transformer);

}  // namespace nabla::nn
