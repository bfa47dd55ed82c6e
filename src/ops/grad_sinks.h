#pragma once
// Backward formulas adding their gradient straight into a leaf's .grad when the engine
// allows it (Note [Gradient sinks], src/autograd/engine.cpp).
#include "nabla/autograd/grad_sink.h"
#include "nabla/core/tensor.h"

namespace nabla::ops {

/// Whether `node` is t()'s backward (TBackward0/1): the gradient it passes on is its
/// input's transpose.
bool is_t_backward(const autograd::Node& node);

/// Adds a @ b (2-D) into the .grad of the leaf that `edge` leads to, as one gemm with
/// beta = 1, when the engine offers that .grad; through a t() (linear's weight.t()) the
/// leaf's .grad takes (a @ b)^T = b^T @ a^T. Returns false, adding nothing, otherwise:
/// the formula then returns the product as usual.
bool add_product_to_leaf_grad(const autograd::Edge& edge, const Tensor& a, const Tensor& b);

}  // namespace nabla::ops
