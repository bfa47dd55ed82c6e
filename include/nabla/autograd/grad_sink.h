#pragma once
// Adding a backward formula's gradient straight into a leaf's .grad (Note [Gradient
// sinks], src/autograd/engine.cpp): for the ops whose gradient is a product or a scatter
// that can accumulate in place (a weight's gemm with beta = 1, an embedding's rows).
#include <functional>

#include "nabla/autograd/node.h"

namespace nabla::autograd::detail {

/// During a backward pass that allows it (no create_graph, no captured edges, anomaly mode
/// off), when `e` leads to a leaf's AccumulateGrad — directly, or with `through` set,
/// through the one-input node e leads to (the caller has checked that it is t()'s
/// backward) — whose leaf has a defined, contiguous .grad without history, and no hook
/// is on the way: calls add(grad) under the accumulator's lock and returns its result
/// (add returns false, adding nothing, when it cannot add there: another shape or dtype).
/// When this returns true the caller sends no gradient along e.
bool add_to_leaf_grad(const Edge& e, bool through,
                      const std::function<bool(const Tensor& grad)>& add);

}  // namespace nabla::autograd::detail
