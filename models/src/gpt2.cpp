#include "nabla/models/gpt2.h"

#include <cmath>
#include <limits>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/error.h"
#include "nabla/nn/functional/linear.h"
#include "nabla/nn/init.h"
#include "nabla/ops/attention.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/serialize/archive.h"

namespace nabla::models {
namespace {

void check_config(const GPT2Config& c) {
  NABLA_CHECK(
      c.n_layer >= 1 && c.n_head >= 1 && c.n_embd >= 1 && c.vocab_size >= 1 && c.block_size >= 1,
      "GPT2: n_layer, n_head, n_embd, vocab_size and block_size must be >= 1, got ", c.n_layer,
      ", ", c.n_head, ", ", c.n_embd, ", ", c.vocab_size, ", ", c.block_size);
  NABLA_CHECK(c.n_embd % c.n_head == 0, "GPT2: n_embd (", c.n_embd,
              ") must be a multiple of n_head (", c.n_head, ")");
  NABLA_CHECK(c.dropout >= 0 && c.dropout < 1, "GPT2: dropout must be in [0, 1), got ", c.dropout);
}

nn::LayerNorm layer_norm(int64_t channels) {
  return nn::LayerNorm(nn::LayerNormOptions({channels}).eps(1e-5));
}

// Token ids as forward and generate take them.
void check_tokens(const Tensor& idx, const char* op) {
  NABLA_CHECK(idx.defined() && idx.dim() == 2 && idx.scalar_type() == kLong, "GPT2::", op,
              ": expected int64 token ids [B, T], got ",
              idx.defined() ? str(idx.sizes(), " ", idx.scalar_type()) : std::string("undefined"));
  NABLA_CHECK(idx.size(1) >= 1, "GPT2::", op, ": the sequence is empty (T = 0)");
}

// One token per row [B, 1] from the next-token logits [B, V].
Tensor sample(Tensor logits, double temperature, optional<int64_t> top_k) {
  if (temperature == 0) return logits.argmax(-1, /*keepdim=*/true);
  logits = logits / temperature;
  if (top_k && *top_k < logits.size(-1)) {
    // Everything below the k-th largest logit gets probability 0.
    const Tensor kth = std::get<0>(logits.topk(*top_k)).narrow(-1, *top_k - 1, 1);
    logits = logits.masked_fill(logits.lt(kth), -std::numeric_limits<double>::infinity());
  }
  return multinomial(logits.softmax(-1), 1);
}

}  // namespace

GPT2SelfAttentionImpl::GPT2SelfAttentionImpl(const GPT2Config& config) : config_(config) {
  reset();
}

void GPT2SelfAttentionImpl::reset() {
  check_config(config_);
  const int64_t c = config_.n_embd;
  c_attn = register_module("c_attn", nn::Linear(c, 3 * c));
  c_proj = register_module("c_proj", nn::Linear(c, c));
  resid_dropout = register_module("resid_dropout", nn::Dropout(config_.dropout));
}

Tensor GPT2SelfAttentionImpl::forward(const Tensor& x, GPT2KVCache* cache) {
  NABLA_CHECK(x.dim() == 3 && x.size(2) == config_.n_embd, "GPT2SelfAttention: expected x [B, T, ",
              config_.n_embd, "], got ", x.sizes());
  const int64_t b = x.size(0), t = x.size(1), c = x.size(2);
  const int64_t nh = config_.n_head, hd = c / nh;
  const std::vector<Tensor> qkv = c_attn(x).split(c, 2);  // 3 x [B, T, C]
  // [B, T, C] -> [B, nh, T, hd]
  auto heads = [&](const Tensor& y) { return y.view({b, t, nh, hd}).transpose(1, 2); };
  Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  // Without a cache, or filling an empty one, query i sees keys 0..i (is_causal's top-left
  // alignment). One new query after a filled cache sees every cached key: not causal.
  bool causal = true;
  if (cache) {
    const int64_t start = cache->length;
    if (start == 0) {
      cache->key = zeros({b, nh, config_.block_size, hd}, k.options());
      cache->value = zeros({b, nh, config_.block_size, hd}, v.options());
    } else {
      NABLA_CHECK(t == 1, "GPT2SelfAttention: a filled cache takes one position at a time, got ",
                  t);
      causal = false;
    }
    NABLA_CHECK(start + t <= config_.block_size, "GPT2SelfAttention: the cache holds ",
                config_.block_size, " positions; ", start, " + ", t, " do not fit");
    {
      NoGradGuard no_grad;  // the cache is a buffer of values, not part of a graph
      cache->key.narrow(2, start, t).copy_(k);
      cache->value.narrow(2, start, t).copy_(v);
    }
    cache->length = start + t;
    if (!causal) {
      k = cache->key.narrow(2, 0, cache->length);
      v = cache->value.narrow(2, 0, cache->length);
    }
  }
  const double p = is_training() ? config_.dropout : 0.0;
  Tensor y = scaled_dot_product_attention(q, k, v, nullopt, p, causal);  // [B, nh, T, hd]
  y = y.transpose(1, 2).contiguous().view({b, t, c});
  return resid_dropout(c_proj(y));
}

void GPT2SelfAttentionImpl::load(serialize::InputArchive& archive) {
  nn::Module::load(archive);
  // nanoGPT registers its causal mask (tril of ones, [1, 1, block_size, block_size]) as a
  // buffer named "bias" when it composes attention by hand, so its files may carry it.
  // The mask is a constant of the architecture: read (so no unexpected key) and dropped.
  Tensor mask;
  archive.try_read("bias", mask, /*is_buffer=*/true);
}

GPT2MLPImpl::GPT2MLPImpl(const GPT2Config& config) : config_(config) { reset(); }

void GPT2MLPImpl::reset() {
  check_config(config_);
  const int64_t c = config_.n_embd;
  c_fc = register_module("c_fc", nn::Linear(c, 4 * c));
  gelu = register_module("gelu", nn::GELU(nn::GELUOptions().approximate("tanh")));
  c_proj = register_module("c_proj", nn::Linear(4 * c, c));
  dropout = register_module("dropout", nn::Dropout(config_.dropout));
}

Tensor GPT2MLPImpl::forward(const Tensor& x) { return dropout(c_proj(gelu(c_fc(x)))); }

GPT2BlockImpl::GPT2BlockImpl(const GPT2Config& config) : config_(config) { reset(); }

void GPT2BlockImpl::reset() {
  check_config(config_);
  ln_1 = register_module("ln_1", layer_norm(config_.n_embd));
  attn = register_module("attn", GPT2SelfAttention(config_));
  ln_2 = register_module("ln_2", layer_norm(config_.n_embd));
  mlp = register_module("mlp", GPT2MLP(config_));
}

Tensor GPT2BlockImpl::forward(const Tensor& x, GPT2KVCache* cache) {
  Tensor h = x + attn->forward(ln_1(x), cache);
  return h + mlp(ln_2(h));
}

GPT2TransformerImpl::GPT2TransformerImpl(const GPT2Config& config) : config_(config) { reset(); }

void GPT2TransformerImpl::reset() {
  check_config(config_);
  wte = register_module("wte", nn::Embedding(config_.vocab_size, config_.n_embd));
  wpe = register_module("wpe", nn::Embedding(config_.block_size, config_.n_embd));
  drop = register_module("drop", nn::Dropout(config_.dropout));
  h = register_module("h", nn::ModuleList());
  for (int64_t i = 0; i < config_.n_layer; ++i) h->push_back(GPT2Block(config_));
  ln_f = register_module("ln_f", layer_norm(config_.n_embd));
}

Tensor GPT2TransformerImpl::forward(const Tensor& idx, std::vector<GPT2KVCache>* caches) {
  check_tokens(idx, "forward");
  const int64_t t = idx.size(1);
  const int64_t start = caches ? (*caches)[0].length : 0;
  NABLA_CHECK(start + t <= config_.block_size, "GPT2::forward: sequence length ", start + t,
              " exceeds block_size ", config_.block_size,
              " (the position embedding has block_size rows; crop the input)");
  NABLA_CHECK(!caches || caches->size() == h->size(), "GPT2::forward: expected ", h->size(),
              " caches, got ", caches ? caches->size() : 0);
  const Tensor pos = arange(start, start + t, idx.options());
  Tensor x = drop(wte(idx) + wpe(pos));  // [B, T, C] + [T, C]
  for (size_t i = 0; i < h->size(); ++i)
    x = h->ptr<GPT2BlockImpl>(i)->forward(x, caches ? &(*caches)[i] : nullptr);
  return ln_f(x);
}

GPT2Impl::GPT2Impl(const GPT2Config& config) : config_(config) { reset(); }

void GPT2Impl::reset() {
  check_config(config_);
  transformer = register_module("transformer", GPT2Transformer(config_));
  NoGradGuard no_grad;
  for (auto& item : named_parameters()) {
    const std::string& name = item.key();
    Tensor& p = item.value();
    if (p.dim() == 1) {
      // LayerNorm weights keep 1; every bias (Linear and LayerNorm) starts at 0.
      if (name.ends_with(".bias")) nn::init::zeros_(p);
    } else if (name.ends_with("c_proj.weight")) {
      // GPT-2's scaling of the projections into the residual stream, which each block
      // adds to twice (attention and MLP).
      nn::init::normal_(p, 0.0, 0.02 / std::sqrt(2.0 * static_cast<double>(config_.n_layer)));
    } else {
      nn::init::normal_(p, 0.0, 0.02);
    }
  }
}

Tensor GPT2Impl::forward(const Tensor& idx) {
  // The head is tied: logits = x @ wte.weight^T, the same matrix the tokens are looked up in.
  return nn::functional::linear(transformer(idx), transformer->wte->weight);
}

Tensor GPT2Impl::next_logits(const Tensor& idx, std::vector<GPT2KVCache>& caches) {
  const Tensor x = transformer->forward(idx, &caches);            // [B, T, C]
  const Tensor last = x.select(1, x.size(1) - 1);                 // [B, C]
  return nn::functional::linear(last, transformer->wte->weight);  // [B, V]
}

Tensor GPT2Impl::generate(const Tensor& idx, int64_t max_new_tokens, double temperature,
                          optional<int64_t> top_k) {
  check_tokens(idx, "generate");
  NABLA_CHECK(max_new_tokens >= 0, "GPT2::generate: max_new_tokens must be >= 0, got ",
              max_new_tokens);
  NABLA_CHECK(temperature >= 0, "GPT2::generate: temperature must be >= 0, got ", temperature);
  NABLA_CHECK(!top_k || *top_k >= 1, "GPT2::generate: top_k must be >= 1, got ",
              top_k ? *top_k : 0);
  NoGradGuard no_grad;
  const int64_t block = config_.block_size;
  std::vector<GPT2KVCache> caches;
  // Runs the last block_size tokens of `context` into fresh caches.
  auto prefill = [&](const Tensor& context) {
    const int64_t t = context.size(1);
    caches.assign(static_cast<size_t>(config_.n_layer), GPT2KVCache{});
    return next_logits(t > block ? context.narrow(1, t - block, block) : context, caches);
  };
  Tensor out = idx;
  Tensor logits = prefill(out);
  for (int64_t i = 0; i < max_new_tokens; ++i) {
    const Tensor next = sample(logits, temperature, top_k);  // [B, 1]
    out = cat({out, next}, 1);
    if (i + 1 == max_new_tokens) break;
    // A full cache cannot take another position: the window slides, so every position
    // shifts and the cache is rebuilt from the cropped context.
    logits = caches[0].length == block ? prefill(out) : next_logits(next, caches);
  }
  return out;
}

void GPT2Impl::save(serialize::OutputArchive& archive) const {
  nn::Module::save(archive);
  archive.write("lm_head.weight", transformer->wte->weight);
}

void GPT2Impl::load(serialize::InputArchive& archive) {
  nn::Module::load(archive);
  Tensor head;
  if (!archive.try_read("lm_head.weight", head)) return;
  const Tensor& wte = transformer->wte->weight;
  NABLA_CHECK(head.sizes() == wte.sizes() && head.scalar_type() == wte.scalar_type() &&
                  head.to(wte.device()).equal(wte),
              "GPT2: load: the file's 'lm_head.weight' (", head.sizes(), " ", head.scalar_type(),
              ") differs from its 'transformer.wte.weight'; GPT-2's output projection is tied "
              "to the token embedding, one matrix for both");
}

}  // namespace nabla::models
