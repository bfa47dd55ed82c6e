// F::multi_head_attention_forward (include/nabla/nn/functional/attention.h): the
// projections, scaled dot products, masks, softmax, dropout and output projection of
// multi-head attention. Without weights to return it runs the fused
// scaled_dot_product_attention; with them (or with dropout active in training, whose masks
// are then LibTorch's draws for the same seed), composed from differentiable ops.
#include "nabla/nn/functional/attention.h"

#include <cmath>
#include <limits>

#include "nabla/nn/functional/linear.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/dropout.h"
#include "nabla/ops/factories.h"

namespace nabla::nn::functional {

namespace {

// Appends one zero column to a [*, S] mask (for the key/value of bias_kv or zero_attn).
Tensor pad_mask(const Tensor& mask) {
  if (!mask.defined()) return mask;
  return cat({mask, zeros({mask.size(0), 1}, mask.options())}, 1);
}

// A bool mask (true: masked, as nn::MultiheadAttention takes it) as an additive one.
Tensor additive(const Tensor& mask, const Tensor& like) {
  if (mask.scalar_type() != kBool) return mask.to(like.scalar_type());
  return zeros(mask.sizes(), like.options())
      .masked_fill(mask, -std::numeric_limits<double>::infinity());
}

// attn_mask ([L, S] or [N * heads, L, S]; bool or additive) and key_padding_mask ([N, S];
// nonzero: padding) folded into one additive mask that broadcasts to [N, heads, L, S], or
// undefined when neither is given.
Tensor combined_mask(const Tensor& attn_mask, const Tensor& key_padding_mask, const Tensor& like,
                     int64_t bsz, int64_t heads, int64_t tgt_len, int64_t src_len) {
  Tensor mask;
  if (attn_mask.defined()) {
    NABLA_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3,
                "multi_head_attention_forward: attn_mask must be 2-D "
                "[L, S] or 3-D [N * heads, L, S], got ",
                attn_mask.sizes());
    mask = additive(attn_mask, like);
    if (mask.dim() == 3) mask = mask.view({bsz, heads, tgt_len, src_len});
  }
  if (key_padding_mask.defined()) {
    NABLA_CHECK(key_padding_mask.dim() == 2 && key_padding_mask.size(0) == bsz &&
                    key_padding_mask.size(1) == src_len,
                "multi_head_attention_forward: key_padding_mask must be [batch, source length] = [",
                bsz, ", ", src_len, "], got ", key_padding_mask.sizes());
    Tensor m = key_padding_mask.scalar_type() == kBool ? key_padding_mask : key_padding_mask.ne(0);
    Tensor pad = additive(m, like).view({bsz, 1, 1, src_len});
    mask = mask.defined() ? mask + pad : pad;
  }
  return mask;
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& o) {
  NABLA_CHECK(query.defined() && key.defined() && value.defined(),
              "multi_head_attention_forward: query, key and value must be defined");
  NABLA_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3,
              "multi_head_attention_forward: expected query, key and value of shape [length, "
              "batch, embed_dim], "
              "got ",
              query.sizes(), ", ", key.sizes(), " and ", value.sizes());
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  NABLA_CHECK(embed_dim == o.embed_dim_to_check(),
              "multi_head_attention_forward: query's embed_dim is ", embed_dim,
              " but the module was built for ", o.embed_dim_to_check());
  NABLA_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1) && key.size(1) == bsz,
              "multi_head_attention_forward: key ", key.sizes(), " and value ", value.sizes(),
              " must agree in length and batch with each other and the query ", query.sizes());
  const int64_t heads = o.num_heads();
  const int64_t head_dim = embed_dim / heads;
  NABLA_CHECK(head_dim * heads == embed_dim, "embed_dim must be divisible by num_heads (",
              embed_dim, " by ", heads, ")");
  const double scaling = 1 / std::sqrt(static_cast<double>(head_dim));

  const Tensor& w = o.in_proj_weight();
  const Tensor& b = o.in_proj_bias();
  auto rows = [](const Tensor& t, int64_t start, int64_t end) {
    return t.defined() ? t.slice(0, start, end) : t;
  };
  Tensor q, k, v;
  if (!o.use_separate_proj_weight()) {
    NABLA_CHECK(
        w.defined() && w.dim() == 2 && w.size(0) == 3 * embed_dim,
        "multi_head_attention_forward: in_proj_weight must be [3 * embed_dim, embed_dim], got ",
        w.defined() ? w.sizes() : IntArrayRef{});
    if (query.is_same(key) && key.is_same(value)) {  // self-attention: one projection
      auto chunks = nabla::linear(query, w, b).chunk(3, -1);
      q = chunks[0];
      k = chunks[1];
      v = chunks[2];
    } else {
      q = nabla::linear(query, rows(w, 0, embed_dim), rows(b, 0, embed_dim));
      k = nabla::linear(key, rows(w, embed_dim, 2 * embed_dim), rows(b, embed_dim, 2 * embed_dim));
      v = nabla::linear(value, rows(w, 2 * embed_dim, 3 * embed_dim),
                        rows(b, 2 * embed_dim, 3 * embed_dim));
    }
  } else {
    q = nabla::linear(query, o.q_proj_weight(), rows(b, 0, embed_dim));
    k = nabla::linear(key, o.k_proj_weight(), rows(b, embed_dim, 2 * embed_dim));
    v = nabla::linear(value, o.v_proj_weight(), rows(b, 2 * embed_dim, 3 * embed_dim));
  }
  // Note [Fused attention]: without weights to return, and without dropout to draw in
  // LibTorch's order, the fused op computes the attention (a query whose every key is
  // masked then gets a zero row, where the composed form gives NaN).
  const bool fused = !o.need_weights() && (!o.training() || o.dropout_p() == 0);
  if (!fused) q = q * scaling;

  Tensor attn_mask = o.attn_mask(), key_padding_mask = o.key_padding_mask();
  if (o.bias_k().defined() && o.bias_v().defined()) {
    NABLA_CHECK(!o.static_k().defined() && !o.static_v().defined(),
                "bias cannot be added to static key/value");
    k = cat({k, o.bias_k().repeat({1, bsz, 1})});
    v = cat({v, o.bias_v().repeat({1, bsz, 1})});
    attn_mask = pad_mask(attn_mask);
    key_padding_mask = pad_mask(key_padding_mask);
  } else {
    NABLA_CHECK(!o.bias_k().defined() && !o.bias_v().defined(),
                "bias_k and bias_v must be given together");
  }
  q = q.contiguous().view({tgt_len, bsz * heads, head_dim}).transpose(0, 1);
  k = k.contiguous().view({-1, bsz * heads, head_dim}).transpose(0, 1);
  v = v.contiguous().view({-1, bsz * heads, head_dim}).transpose(0, 1);
  if (o.static_k().defined()) k = o.static_k();
  if (o.static_v().defined()) v = o.static_v();
  int64_t src_len = k.size(1);
  if (o.add_zero_attn()) {
    src_len += 1;
    k = cat({k, zeros({k.size(0), 1, k.size(2)}, k.options())}, 1);
    v = cat({v, zeros({v.size(0), 1, v.size(2)}, v.options())}, 1);
    attn_mask = pad_mask(attn_mask);
    key_padding_mask = pad_mask(key_padding_mask);
  }

  const Tensor mask = combined_mask(attn_mask, key_padding_mask, q, bsz, heads, tgt_len, src_len);
  if (fused) {
    auto per_head = [&](const Tensor& t) { return t.view({bsz, heads, t.size(1), head_dim}); };
    Tensor out = scaled_dot_product_attention(per_head(q), per_head(k), per_head(v),
                                              mask.defined() ? optional<Tensor>(mask) : nullopt,
                                              o.training() ? o.dropout_p() : 0.0);
    out = out.permute({2, 0, 1, 3}).reshape({tgt_len, bsz, embed_dim});
    return {nabla::linear(out, o.out_proj_weight(), o.out_proj_bias()), Tensor()};
  }
  Tensor weights = nabla::bmm(q, k.transpose(1, 2));  // [N * heads, L, S]
  if (mask.defined())
    weights =
        (weights.view({bsz, heads, tgt_len, src_len}) + mask).view({bsz * heads, tgt_len, src_len});
  weights = nabla::softmax(weights, -1);
  weights = nabla::dropout(weights, o.dropout_p(), o.training());
  Tensor out = nabla::bmm(weights, v).transpose(0, 1).contiguous().view({tgt_len, bsz, embed_dim});
  out = nabla::linear(out, o.out_proj_weight(), o.out_proj_bias());
  if (!o.need_weights()) return {out, Tensor()};
  weights = weights.view({bsz, heads, tgt_len, src_len});
  if (o.average_attn_weights()) weights = weights.sum(1) / static_cast<double>(heads);
  return {out, weights};
}

}  // namespace nabla::nn::functional
