#pragma once
// Recurrent cells and multi-layer recurrent networks with at::'s signatures; the
// nn::RNN/LSTM/GRU modules call these. Gate order as PyTorch: LSTM (i, f, g, o), GRU
// (r, z, n) with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)). `params` is flat, per
// layer and direction: w_ih [G*H, in], w_hh [G*H, H], then (has_biases) b_ih, b_hh, then
// for an LSTM with projections w_hr [P, H] (h is then P wide: w_hh is [4*H, P], and the
// next layer's input P * directions).
#include <tuple>

#include "nabla/core/tensor.h"

namespace nabla {

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = {}, const Tensor& b_hh = {});
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = {}, const Tensor& b_hh = {});
/// hx = {h, c}; returns (h', c').
std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih = {},
                                     const Tensor& b_hh = {});
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih = {}, const Tensor& b_hh = {});

/// input [T, N, in] ([N, T, in] when batch_first; [T, in] unbatched); hx = {h0, c0}, each
/// [layers * directions, N, H]. Returns (output [T, N, directions * H], h_n, c_n).
/// dropout applies between layers when train.
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx, TensorList params,
                                        bool has_biases, int64_t num_layers, double dropout,
                                        bool train, bool bidirectional, bool batch_first);
/// As lstm, with one hidden state: returns (output, h_n).
std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, TensorList params,
                               bool has_biases, int64_t num_layers, double dropout, bool train,
                               bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx, TensorList params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx, TensorList params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first);

/// The packed forms, as at::'s: `data` [rows, in] and `batch_sizes` (int64 on the CPU,
/// not increasing) are a PackedSequence's; h0 (c0) is [layers * directions, batch_sizes[0],
/// H]. Each sequence's final state is taken at its own last step. Returns (output [rows,
/// directions * H], h_n[, c_n]).
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes,
                                        TensorList hx, TensorList params, bool has_biases,
                                        int64_t num_layers, double dropout, bool train,
                                        bool bidirectional);
std::tuple<Tensor, Tensor> gru(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                               TensorList params, bool has_biases, int64_t num_layers,
                               double dropout, bool train, bool bidirectional);
std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    TensorList params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional);
std::tuple<Tensor, Tensor> rnn_relu(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    TensorList params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional);

}  // namespace nabla
