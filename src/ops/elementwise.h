#pragma once
// Entry points of elementwise.cpp used by other op files.
#include "nabla/backend/backend.h"

namespace nabla::ops {

/// out = op(x; p) for the parameterized activations (leaky_relu, elu, gelu, silu,
/// softplus): floating input only, as LibTorch; records the graph.
Tensor activation(const Tensor& x, UnaryOp op, UnaryParams p, const char* name);

}  // namespace nabla::ops
