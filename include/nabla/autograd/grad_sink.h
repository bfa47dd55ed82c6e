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

/// autograd::grad(outputs, inputs, grad_outputs, retain_graph = true) in which the
/// gradient reaching inputs[i] may be added straight into sinks[i] (a contiguous tensor of
/// its shape and dtype without history; undefined: none) by the formulas that can
/// (add_to_leaf_grad's conditions); what else reaches inputs[i] is returned as grad
/// returns it (undefined when nothing else did), for the caller to add. The static
/// graph's backward passes parameters' .grad (Note [Graph backward]).
variable_list grad_into_sinks(const variable_list& outputs, const variable_list& inputs,
                              const variable_list& grad_outputs, const variable_list& sinks);

}  // namespace nabla::autograd::detail
