#pragma once
// The pointwise part of an LSTM or GRU step (Note [Fused recurrent cells], rnn_cells.cpp),
// shared by the cells and the sequence ops of rnn.cpp, and a whole LSTM or GRU layer as one node
// (rnn_layer.cpp).
#include <optional>
#include <tuple>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::ops {

/// An LSTM step's new (h, c) from its gate pre-activations gates [B, 4H] (input, forget,
/// cell, output; both products and both biases added) and c_prev [B, H]: c = sigmoid(f)
/// c_prev + sigmoid(i) tanh(g), h = sigmoid(o) tanh(c). Differentiable (twice too).
std::tuple<Tensor, Tensor> lstm_pointwise(const Tensor& gates, const Tensor& c_prev);

/// A GRU step's new h from gi = x W_ih^T + b_ih and gh = h_prev W_hh^T + b_hh ([B, 3H]:
/// reset, update, new) and h_prev [B, H]: r = sigmoid(gi_r + gh_r), z = sigmoid(gi_z +
/// gh_z), n = tanh(gi_n + r gh_n), h = (1 - z) n + z h_prev. Differentiable (twice too).
Tensor gru_pointwise(const Tensor& gi, const Tensor& gh, const Tensor& h_prev);

/// What rnn_layer returns: each step's h ([B, H], in step order; the final h is the last
/// one run) and, for an LSTM, the final c.
struct RnnLayerResult {
  std::vector<Tensor> outputs;
  Tensor c;
};

/// An LSTM or GRU layer in one direction as one node (Note [Fused recurrent layers],
/// rnn_layer.cpp), every step holding the whole batch: x [steps * B, in] (step t's rows
/// t*B..), w_ih [G, in], b_ih [G], w_hh [G, H], b_hh [G], h0 [B, H], c0 [B, H] (LSTM: G =
/// 4H, b_ih is b_ih + b_hh and b_hh undefined; GRU: G = 3H, c0 undefined); an undefined bias
/// is none; `reverse` runs the last step first. nullopt, with nothing recorded, where the
/// layer is not fused (the device has no fused cell, a dtype other than float and double,
/// tracing): the caller runs it step by step.
std::optional<RnnLayerResult> rnn_layer(bool lstm, const Tensor& x, const Tensor& w_ih,
                                        const Tensor& b_ih, const Tensor& w_hh, const Tensor& b_hh,
                                        const Tensor& h0, const Tensor& c0, int64_t steps,
                                        bool reverse);

}  // namespace nabla::ops
