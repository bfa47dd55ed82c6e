#pragma once
// The pointwise part of an LSTM or GRU step (Note [Fused recurrent cells], rnn_cells.cpp),
// shared by the cells and the sequence ops of rnn.cpp.
#include <tuple>

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

}  // namespace nabla::ops
