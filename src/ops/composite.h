#pragma once
// Helpers for ops composed from other ops (src/ops/composite_*.cpp). Most composites get
// their gradient from their pieces; where a piece has a kink or a 0 * inf the function
// does not (sinc at 0, logaddexp of two infinities, xlogy at 0), the op computes its
// value without history and records one node with LibTorch's derivative.
#include <initializer_list>

#include "autograd/formula.h"
#include "nabla/autograd/grad_mode.h"
#include "ops/op_utils.h"

namespace nabla::ops {

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
