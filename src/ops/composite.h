#pragma once
// Helpers for ops composed from other ops (src/ops/composite_*.cpp,
// special_functions.cpp). Most composites get their gradient from their pieces; where a
// piece has a kink or a 0 * inf the function does not (sinc at 0, logaddexp of two
// infinities, xlogy at 0), or where LibTorch records the op as one node, the op computes
// its value without history and records one node with LibTorch's name and derivative
// (`with_node`).
#include <initializer_list>
#include <tuple>

#include "autograd/formula.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "ops/op_utils.h"

namespace nabla::ops {

/// `value()` computed without history; when an input requires grad (and grad mode is
/// on), the result becomes the output of one node of `type` with an edge per input, and
/// `fill(node->state, out)` saves what the formula reads (called after set_history, so it
/// may use autograd::save_output(out)).
template <class State, class F, class Fill>
Tensor with_node(const autograd::NodeType<State>& type, std::initializer_list<const Tensor*> inputs,
                 F&& value, Fill&& fill) {
  Tensor out = no_grad(std::forward<F>(value));
  if (auto node = autograd::record_node(type, inputs)) {
    autograd::set_history(out, node);
    fill(node->state, out);
  }
  return out;
}

/// States of composites whose formula reads only their inputs.
struct SelfState {
  autograd::SavedVariable self;
  auto saved() { return std::tie(self); }
};
struct SelfOtherState {
  autograd::SavedVariable self, other;
  auto saved() { return std::tie(self, other); }
};

/// The gradient `g` of a broadcast op summed down to an input of `sizes` (undefined stays
/// undefined).
inline Tensor grad_to(const Tensor& g, IntArrayRef sizes) {
  return g.defined() ? sum_to(g, sizes) : g;
}

// ---- Untyped form (autograd/formula.h), kept until composite_shape.cpp moves off it ---------

/// `value()` computed without history; when an input requires grad, the result becomes
/// the output of a node of `f` that saves every input (in order) and has `a` as its
/// constant.
template <class F>
Tensor with_formula(const autograd::Formula& f, std::initializer_list<const Tensor*> inputs,
                    F&& value, double a = 0) {
  Tensor out = no_grad(std::forward<F>(value));
  bool grad = false;
  for (const Tensor* t : inputs) grad = grad || autograd::any_requires_grad(*t);
  if (grad) {
    auto node = autograd::make_node(f, inputs);
    for (const Tensor* t : inputs) node->save(*t);
    node->a = a;
    autograd::set_history(out, node);
  }
  return out;
}

/// The gradient `g` of a broadcast binary op summed down to input i's shape.
inline Tensor to_input(autograd::FormulaNode& n, size_t i, const Tensor& g) {
  if (!g.defined()) return g;
  Tensor x = n.saved(i);
  return sum_to(g, x.sizes());
}

}  // namespace nabla::ops
