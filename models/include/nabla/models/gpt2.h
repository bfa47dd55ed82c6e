#pragma once
// GPT-2 as nanoGPT's model.py and llm.c's train_gpt2.py write it (class GPT), with
// nabla::nn. The module tree is theirs, so named_parameters() carries the keys of their
// state_dict() ("transformer.h.0.attn.c_attn.weight", ...) with the same shapes, and a
// state_dict saved with torch.save loads by name (docs/models.md).
//
//   nabla::models::GPT2 model(nabla::models::GPT2Config{6, 6, 384, 65, 256});
//   Tensor logits = model(idx);                          // [B, T] int64 -> [B, T, 65]
//   Tensor text = model->generate(prompt, 100, 0.8, 40);  // [B, T] -> [B, T + 100]
//
// The output projection is tied to the token embedding: logits = x @ wte.weight^T with
// one matrix, listed once in parameters(). Files from PyTorch may also hold that matrix
// as "lm_head.weight" and the causal masks as "transformer.h.<i>.attn.bias"; load()
// accepts both (GPT2Impl::load).
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/nn/cloneable.h"
#include "nabla/nn/modules/activation.h"
#include "nabla/nn/modules/container/modulelist.h"
#include "nabla/nn/modules/dropout_embedding.h"
#include "nabla/nn/modules/linear.h"
#include "nabla/nn/modules/normalization.h"

namespace nabla::models {

/// nanoGPT's GPTConfig without its `bias` flag (GPT-2 has biases). The defaults are GPT-2
/// 124M: GPT2Config{n_layer, n_head, n_embd, vocab_size, block_size} in that order.
struct GPT2Config {
  int64_t n_layer = 12;
  int64_t n_head = 12;
  int64_t n_embd = 768;  ///< a multiple of n_head
  int64_t vocab_size = 50257;
  int64_t block_size = 1024;  ///< the longest sequence (rows of the position embedding)
  double dropout = 0.0;       ///< in [0, 1): embeddings, attention weights, residual branches
};

/// One layer's keys and values during generation: [B, n_head, block_size, head_dim]
/// each, of which the first `length` positions are filled. Empty (undefined) at first.
struct GPT2KVCache {
  Tensor key, value;
  int64_t length = 0;
};

/// nanoGPT's CausalSelfAttention: c_attn (Linear C -> 3C: queries, keys, values), causal
/// scaled-dot-product attention over n_head heads, c_proj (Linear C -> C). Its causal
/// mask is not a tensor here ("attn.bias" of nanoGPT's files is read and dropped).
class GPT2SelfAttentionImpl : public nn::Cloneable<GPT2SelfAttentionImpl> {
 public:
  explicit GPT2SelfAttentionImpl(const GPT2Config& config);
  void reset() override;
  /// x [B, T, C] -> [B, T, C]; position t attends to positions <= t.
  /// With `cache`: an empty one (length 0) is filled with x's keys and values (the
  /// prompt); a filled one takes x's keys and values for one more position (requires
  /// T == 1 and a free position), and that query attends to every cached position. The
  /// cache holds values only: no gradient flows back through cached positions.
  Tensor forward(const Tensor& x, GPT2KVCache* cache = nullptr);
  /// Module::load, then drops nanoGPT's causal-mask buffer "bias" when the file has one.
  void load(serialize::InputArchive& archive) override;

  nn::Linear c_attn = nullptr, c_proj = nullptr;
  nn::Dropout resid_dropout = nullptr;

 private:
  GPT2Config config_;
};
NABLA_MODULE(GPT2SelfAttention);

/// nanoGPT's MLP: c_fc (C -> 4C), GELU (tanh approximation), c_proj (4C -> C).
class GPT2MLPImpl : public nn::Cloneable<GPT2MLPImpl> {
 public:
  explicit GPT2MLPImpl(const GPT2Config& config);
  void reset() override;
  /// x [..., C] -> [..., C].
  Tensor forward(const Tensor& x);

  nn::Linear c_fc = nullptr, c_proj = nullptr;
  nn::GELU gelu = nullptr;
  nn::Dropout dropout = nullptr;

 private:
  GPT2Config config_;
};
NABLA_MODULE(GPT2MLP);

/// nanoGPT's Block, pre-LayerNorm: x + attn(ln_1(x)), then + mlp(ln_2(x)).
class GPT2BlockImpl : public nn::Cloneable<GPT2BlockImpl> {
 public:
  explicit GPT2BlockImpl(const GPT2Config& config);
  void reset() override;
  /// x [B, T, C] -> [B, T, C]; `cache` as GPT2SelfAttentionImpl::forward.
  Tensor forward(const Tensor& x, GPT2KVCache* cache = nullptr);

  nn::LayerNorm ln_1 = nullptr;
  GPT2SelfAttention attn = nullptr;
  nn::LayerNorm ln_2 = nullptr;
  GPT2MLP mlp = nullptr;

 private:
  GPT2Config config_;
};
NABLA_MODULE(GPT2Block);

/// nanoGPT's `transformer` ModuleDict as a module of its own: wte, wpe, drop, h (the
/// blocks), ln_f.
class GPT2TransformerImpl : public nn::Cloneable<GPT2TransformerImpl> {
 public:
  explicit GPT2TransformerImpl(const GPT2Config& config);
  void reset() override;
  /// idx [B, T] int64 -> ln_f's output [B, T, C]. Without caches the positions are
  /// 0..T-1; with `caches` (one per block) they continue after caches[0].length, and each
  /// block's attention uses and extends its cache.
  Tensor forward(const Tensor& idx, std::vector<GPT2KVCache>* caches = nullptr);

  nn::Embedding wte = nullptr, wpe = nullptr;
  nn::Dropout drop = nullptr;
  nn::ModuleList h = nullptr;  ///< n_layer GPT2Blocks, "0", "1", ...
  nn::LayerNorm ln_f = nullptr;

 private:
  GPT2Config config_;
};
NABLA_MODULE(GPT2Transformer);

/// GPT-2, initialised as nanoGPT: Linear and Embedding weights N(0, 0.02), the two c_proj
/// weights of each block N(0, 0.02 / sqrt(2 n_layer)), biases 0, LayerNorms 1 and 0.
class GPT2Impl : public nn::Cloneable<GPT2Impl> {
 public:
  /// Requires positive sizes, n_embd divisible by n_head and dropout in [0, 1).
  explicit GPT2Impl(const GPT2Config& config = {});
  void reset() override;
  /// idx [B, T] int64 token ids (1 <= T <= block_size; longer is a nabla::Error) ->
  /// logits [B, T, vocab_size] for the next token at every position.
  Tensor forward(const Tensor& idx);
  /// Appends max_new_tokens tokens to idx [B, T] (int64) and returns [B, T +
  /// max_new_tokens]. Each token is drawn from softmax(logits / temperature) restricted to
  /// the top_k most likely tokens (all without top_k), with the default generator;
  /// temperature 0 takes the most likely token (greedy). The prompt's last block_size
  /// tokens are run once to fill a key/value cache, then each new token costs one position;
  /// once the context reaches block_size, each step reruns the last block_size tokens
  /// (as nanoGPT crops). Runs without recording gradients, in the module's current mode
  /// (call eval() first when dropout > 0).
  Tensor generate(const Tensor& idx, int64_t max_new_tokens, double temperature = 1.0,
                  optional<int64_t> top_k = nullopt);
  const GPT2Config& config() const noexcept { return config_; }

  /// Module::save plus "lm_head.weight" (a copy of transformer.wte.weight), as nanoGPT's
  /// state_dict() holds it: PyTorch's load_state_dict(strict=True) accepts the .pt file
  /// into a nanoGPT model without mask buffers; one with "attn.bias" masks needs
  /// strict=False, which reports only those missing.
  void save(serialize::OutputArchive& archive) const override;
  /// Module::load, plus "lm_head.weight" when the file has it: it must equal
  /// transformer.wte.weight (the head is tied), else a nabla::Error.
  void load(serialize::InputArchive& archive) override;

  GPT2Transformer transformer = nullptr;

 private:
  // Logits [B, V] of the last position of idx, continuing `caches`.
  Tensor next_logits(const Tensor& idx, std::vector<GPT2KVCache>& caches);
  GPT2Config config_;
};
NABLA_MODULE(GPT2);

/// A GPT-2 from llm.c's float32 checkpoint (gpt2_124M.bin, written by train_gpt2.py's
/// write_model): a header of 256 int32 (magic 20240326, version 3, maxT, V, L, NH, C, Vp),
/// then wte [Vp, C], wpe [maxT, C] and each kind of block tensor stacked over the L layers
/// (ln1w, ln1b, qkvw, qkvb, attprojw, attprojb, ln2w, ln2b, fcw, fcb, fcprojw, fcprojb),
/// lnfw, lnfb. The model has vocab_size V: the Vp - V padding rows of wte are dropped.
/// A wrong magic, version, size or length is a nabla::Error naming the file.
GPT2 load_llmc_checkpoint(const std::string& path);

/// The tokens of an llm.c token file (dev/data's write_datafile for GPT-2: a header of 256
/// int32, magic 20240520, version 1, token count; then uint16 tokens) as an int64 [count]
/// tensor. A wrong header or length is a nabla::Error naming the file.
Tensor load_llmc_tokens(const std::string& path);

}  // namespace nabla::models
