#pragma once
// F::multi_head_attention_forward, as torch::nn::functional: scaled dot-product
// attention over `num_heads` heads with the packed (or separate) q/k/v projections of
// nn::MultiheadAttention. Inputs are [length, batch, embed_dim]. attn_mask is [L, S]
// (float: added; bool: true positions masked with -inf, as PyTorch's Python module);
// key_padding_mask is [batch, S], true where a key is padding.
#include <tuple>

#include "nabla/nn/options/arg.h"
#include "nabla/ops/attention.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::functional {

struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  NABLA_ARG(int64_t, embed_dim_to_check);
  NABLA_ARG(int64_t, num_heads);
  NABLA_ARG(Tensor, in_proj_weight);
  NABLA_ARG(Tensor, in_proj_bias);
  NABLA_ARG(Tensor, bias_k);
  NABLA_ARG(Tensor, bias_v);
  NABLA_ARG(bool, add_zero_attn);
  NABLA_ARG(double, dropout_p);
  NABLA_ARG(Tensor, out_proj_weight);
  NABLA_ARG(Tensor, out_proj_bias);
  NABLA_ARG(bool, training) = true;
  NABLA_ARG(Tensor, key_padding_mask) = {};
  NABLA_ARG(bool, need_weights) = true;
  NABLA_ARG(Tensor, attn_mask) = {};
  NABLA_ARG(bool, use_separate_proj_weight) = false;
  NABLA_ARG(Tensor, q_proj_weight) = {};
  NABLA_ARG(Tensor, k_proj_weight) = {};
  NABLA_ARG(Tensor, v_proj_weight) = {};
  NABLA_ARG(Tensor, static_k) = {};
  NABLA_ARG(Tensor, static_v) = {};
  NABLA_ARG(bool, average_attn_weights) = true;
};

/// (attention output [L, N, E], attention weights [N, L, S] averaged over heads, or
/// [N, heads, L, S]; undefined unless need_weights).
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

/// nabla::scaled_dot_product_attention (nabla/ops/attention.h) under F::, where the other
/// attention functions are.
using nabla::scaled_dot_product_attention;

}  // namespace nabla::nn::functional
