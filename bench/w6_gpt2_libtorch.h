#pragma once
// W6's LibTorch side: GPT-2 written with LibTorch 1.13's C++ API, the same model as
// nabla::models::GPT2 (pre-LayerNorm blocks, one c_attn projection to q, k and v, GELU
// with the tanh approximation, the output projection tied to the token embedding). 1.13
// has no scaled_dot_product_attention, so the causal attention is composed as PyTorch 1.13
// programs write it: q k^T / sqrt(d), masked_fill of the upper triangle, softmax, times v.
#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace w6 {

struct TorchBlockImpl : torch::nn::Module {
  TorchBlockImpl(int64_t n_embd, int64_t n_head) : heads(n_head) {
    ln_1 = register_module("ln_1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({n_embd})));
    c_attn = register_module("c_attn", torch::nn::Linear(n_embd, 3 * n_embd));
    attn_proj = register_module("attn_proj", torch::nn::Linear(n_embd, n_embd));
    ln_2 = register_module("ln_2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({n_embd})));
    c_fc = register_module("c_fc", torch::nn::Linear(n_embd, 4 * n_embd));
    mlp_proj = register_module("mlp_proj", torch::nn::Linear(4 * n_embd, n_embd));
  }
  torch::Tensor attention(const torch::Tensor& x, const torch::Tensor& causal) {
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), D = C / heads;
    auto qkv = c_attn->forward(x).split(C, 2);
    auto per_head = [&](const torch::Tensor& t) {
      return t.view({B, T, heads, D}).transpose(1, 2);
    };
    torch::Tensor q = per_head(qkv[0]), k = per_head(qkv[1]), v = per_head(qkv[2]);
    torch::Tensor w = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(D)));
    w = torch::softmax(w.masked_fill(causal, -std::numeric_limits<float>::infinity()), -1);
    torch::Tensor y = torch::matmul(w, v).transpose(1, 2).contiguous().view({B, T, C});
    return attn_proj->forward(y);
  }
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& causal) {
    x = x + attention(ln_1->forward(x), causal);
    return x + mlp_proj->forward(torch::gelu(c_fc->forward(ln_2->forward(x)), "tanh"));
  }
  int64_t heads;
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  torch::nn::Linear c_attn{nullptr}, attn_proj{nullptr}, c_fc{nullptr}, mlp_proj{nullptr};
};
TORCH_MODULE(TorchBlock);

struct TorchGPT2Impl : torch::nn::Module {
  TorchGPT2Impl(int64_t n_layer, int64_t n_head, int64_t n_embd, int64_t vocab, int64_t block) {
    wte = register_module("wte", torch::nn::Embedding(vocab, n_embd));
    wpe = register_module("wpe", torch::nn::Embedding(block, n_embd));
    h = register_module("h", torch::nn::ModuleList());
    for (int64_t i = 0; i < n_layer; ++i) h->push_back(TorchBlock(n_embd, n_head));
    ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({n_embd})));
    for (auto& p : parameters()) {
      torch::NoGradGuard no_grad;
      if (p.dim() == 2) p.normal_(0, 0.02);
    }
  }
  // idx [B, T] int64 -> logits [B, T, vocab]
  torch::Tensor forward(const torch::Tensor& idx) {
    const int64_t T = idx.size(1);
    torch::Tensor causal = torch::ones({T, T}, torch::kBool).triu(1);
    torch::Tensor x = wte->forward(idx) + wpe->forward(torch::arange(T, torch::kLong));
    for (auto& block : *h) x = block->as<TorchBlock>()->forward(x, causal);
    return torch::matmul(ln_f->forward(x), wte->weight.t());
  }
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
  torch::nn::ModuleList h{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(TorchGPT2);

}  // namespace w6
