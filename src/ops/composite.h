#pragma once
// Helpers for ops composed from other ops (the composed.cpp files of src/ops/elementwise, shape and
// reduction, elementwise/special.cpp). Most composites get their gradient from their pieces; where
// a piece has a kink or a 0 * inf the function does not (sinc at 0, logaddexp of two infinities,
// xlogy at 0), or where LibTorch records the op as one node, the op computes its value without
// history and records one node with LibTorch's name and derivative
// (`with_node`).
#include <initializer_list>
#include <tuple>

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

/// `t * k`, or `t` itself when k is 1 (LibTorch's maybe_multiply; formulas with a Scalar
/// factor: alpha, beta, value).
inline Tensor scaled(const Tensor& t, const Scalar& k) { return k.toDouble() == 1 ? t : t * k; }

/// The sizes of `t`, for a node state (the shape a broadcast gradient is summed back to).
inline DimVector sizes_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end()); }

/// The gradient `g` of a broadcast op summed down to an input of `sizes` (undefined stays
/// undefined).
inline Tensor grad_to(const Tensor& g, IntArrayRef sizes) {
  return g.defined() ? sum_to(g, sizes) : g;
}

}  // namespace nabla::ops
