#pragma once
// The nn ops' registry entries: each file of src/ops/nn/ defines the function for its ops;
// registry::add_nn_ops (registry_nn.cpp) calls them all.
#include <vector>

#include "ops/registry_impl.h"

namespace nabla::ops::registry {

void add_nn_activation_ops(std::vector<OpSchema>& table);
void add_nn_convolution_ops(std::vector<OpSchema>& table);
void add_nn_dropout_ops(std::vector<OpSchema>& table);
void add_nn_embedding_ops(std::vector<OpSchema>& table);
void add_nn_classification_loss_ops(std::vector<OpSchema>& table);
void add_nn_normalization_ops(std::vector<OpSchema>& table);
void add_nn_pooling_ops(std::vector<OpSchema>& table);
void add_nn_regression_loss_ops(std::vector<OpSchema>& table);
void add_nn_resample_ops(std::vector<OpSchema>& table);
void add_nn_rnn_ops(std::vector<OpSchema>& table);
void add_nn_softmax_ops(std::vector<OpSchema>& table);
void add_nn_window_ops(std::vector<OpSchema>& table);

using Inputs = std::vector<Tensor>;

/// Optional input i (bias, weight, running stats): undefined when the caller gave fewer.
inline Tensor optional_input(const Inputs& x, size_t i) { return i < x.size() ? x[i] : Tensor(); }

}  // namespace nabla::ops::registry
