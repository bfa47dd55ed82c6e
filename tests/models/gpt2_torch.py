"""A small nanoGPT-style GPT-2 in plain PyTorch for test_gpt2.cpp (Debian's python3-torch 1.13).

  gpt2_torch.py make DIR   DIR/gpt2.pt: the model's state_dict (with nanoGPT's lm_head.weight
                           and attn.bias masks); DIR/gpt2_ref.pt: {"x", "y": a batch,
                           "loss": the loss at the saved weights, "grads": {name: gradient},
                           "losses": [10] the losses of ten AdamW steps from there}
  gpt2_torch.py check DIR  loads nabla's DIR/nabla_gpt2.pt into the model (strict, masks not
                           persistent; and non-strict with persistent masks, which may only be
                           reported missing) and compares its logits on x with nabla's
                           DIR/nabla_gpt2_logits.pt; exit 1 beyond 1e-5 (relative to the scale)
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

N_LAYER, N_HEAD, N_EMBD, VOCAB, BLOCK = 2, 2, 32, 65, 16


class CausalSelfAttention(nn.Module):
    def __init__(self, persistent_mask):
        super().__init__()
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        # torch 1.13 has no scaled_dot_product_attention: the mask is composed by hand.
        mask = torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK)
        self.register_buffer("bias", mask, persistent=persistent_mask)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(N_EMBD, dim=2)
        q, k, v = (z.view(b, t, N_HEAD, c // N_HEAD).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, persistent_mask):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.attn = CausalSelfAttention(persistent_mask)
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, persistent_mask=True):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(VOCAB, N_EMBD),
            wpe=nn.Embedding(BLOCK, N_EMBD),
            h=nn.ModuleList([Block(persistent_mask) for _ in range(N_LAYER)]),
            ln_f=nn.LayerNorm(N_EMBD),
        ))
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # tied
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * N_LAYER))

    def forward(self, idx):
        t = idx.size(1)
        tr = self.transformer
        x = tr.wte(idx) + tr.wpe(torch.arange(t))
        for block in tr.h:
            x = block(x)
        return self.lm_head(tr.ln_f(x))


def loss_of(model, x, y):
    return F.cross_entropy(model(x).view(-1, VOCAB), y.view(-1))


def make(d):
    torch.manual_seed(0)
    model = GPT()
    # Weights larger than GPT-2's initial N(0, 0.02), so that pre-activations are of order 1
    # and the GELU's approximation, the attention scale or the softmax show in the loss and
    # gradients; biases and LayerNorms away from 0 and 1, so that loading them is checked.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.2)
            elif name.endswith("bias"):
                p.uniform_(-0.1, 0.1)
            else:
                p.uniform_(0.8, 1.2)
    x = torch.randint(0, VOCAB, (4, BLOCK))
    y = torch.randint(0, VOCAB, (4, BLOCK))
    torch.save(model.state_dict(), os.path.join(d, "gpt2.pt"))
    loss = loss_of(model, x, y)
    loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        step_loss = loss_of(model, x, y)
        step_loss.backward()
        opt.step()
        losses.append(step_loss.item())
    torch.save({"x": x, "y": y, "loss": loss.detach(), "grads": grads,
                "losses": torch.tensor(losses)}, os.path.join(d, "gpt2_ref.pt"))


def check(d):
    state = torch.load(os.path.join(d, "nabla_gpt2.pt"), weights_only=True)
    x = torch.load(os.path.join(d, "gpt2_ref.pt"), weights_only=True)["x"]
    theirs = torch.load(os.path.join(d, "nabla_gpt2_logits.pt"), weights_only=True)
    strict = GPT(persistent_mask=False)
    strict.load_state_dict(state, strict=True)
    with_masks = GPT(persistent_mask=True)
    missing, unexpected = with_masks.load_state_dict(state, strict=False)
    assert not unexpected and all(k.endswith(".attn.bias") for k in missing), (missing, unexpected)
    with torch.no_grad():
        ours = strict(x)
        err = ((ours - theirs).abs().max() / ours.abs().max().clamp(min=1)).item()
        err = max(err, (with_masks(x) - ours).abs().max().item())
    print(f"gpt2: PyTorch on nabla's weights vs nabla: max relative difference {err:.2e}")
    sys.exit(1 if err > 1e-5 else 0)


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
