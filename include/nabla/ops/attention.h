#pragma once
// scaled_dot_product_attention as LibTorch 2.x spells it (at::scaled_dot_product_attention;
// LibTorch 1.13 has no such function: docs/compat.md lists it among nabla's additions).
// One fused op forward and backward on the CPU (Note [Fused attention],
// src/ops/nn/attention.cpp); nn::MultiheadAttention and the Transformer layers use it.
#include "nabla/core/tensor.h"

namespace nabla {

/// dropout(softmax(query key^T * scale + mask)) value, for query [..., L, E], key
/// [..., S, E] and value [..., S, Ev] (float or double, one dtype and device; the leading
/// dims broadcast) -> [..., L, Ev]. scale defaults to 1 / sqrt(E).
///
/// attn_mask broadcasts to [..., L, S]: bool (true where the query may attend to the key)
/// or of query's dtype (added to the scores; a float mask that requires grad gets its
/// gradient). is_causal lets query i attend to keys j <= i only (together with attn_mask
/// an error). A query whose every key is masked gets a zero row and zero gradients
/// (LibTorch 2.5's choice; composing softmax by hand gives NaN there).
///
/// dropout_p in [0, 1] zeroes each attention weight with that probability and scales the
/// rest by 1 / (1 - dropout_p), with draws from the default generator of query's device:
/// reproducible from manual_seed, but not LibTorch's draws (the weights are never
/// materialized to draw a mask for). Pass 0 outside training, as LibTorch does.
///
/// grad_fn ScaledDotProductAttentionBackward0 (on a device without a fused kernel, or for a
/// mask that requires grad, the graph of the composed ops). Double backward works without
/// dropout.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const optional<Tensor>& attn_mask = nullopt,
                                    double dropout_p = 0.0, bool is_causal = false,
                                    optional<double> scale = nullopt);

}  // namespace nabla
