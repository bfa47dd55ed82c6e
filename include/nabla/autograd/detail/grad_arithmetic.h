#pragma once
// Note [Gradient arithmetic]
// The engine does arithmetic on gradients: it sums those that reach one input, adds them
// into a leaf's .grad(), copies, casts and zeroes them, makes the implicit gradient of a
// scalar output, and checks them for NaN in anomaly mode. Those are tensor ops, which the
// ops layer above autograd defines, while autograd's objects may call nothing above
// autograd (docs/architecture.md, "Layers"). So autograd calls them through this table,
// and the ops layer installs it at the entry points of every backward pass:
// autograd::backward, autograd::grad, Tensor::backward and grad_into_sinks have their
// bodies in src/ops/backward_entry.cpp, which install the table and call the engine's
// passes below. Nothing in a pass runs before one of them, so the table is always there
// when the engine needs it. autograd::zero_grad, which nn and optim call outside any pass,
// is defined there too.
#include "nabla/autograd/node.h"
#include "nabla/core/tensor.h"

namespace nabla::autograd::detail {

struct GradArithmetic {
  Tensor (*add)(const Tensor& a, const Tensor& b);        // a + b, recorded in grad mode
  void (*add_)(const Tensor& self, const Tensor& other);  // self += other
  Tensor (*clone)(const Tensor& x);                       // recorded in grad mode
  Tensor (*detach)(const Tensor& x);
  void (*zero_)(const Tensor& x);
  Tensor (*to)(const Tensor& x, ScalarType dtype);  // recorded in grad mode
  Tensor (*zeros)(IntArrayRef sizes, ScalarType dtype, Device device);
  Tensor (*ones_like)(const Tensor& x);
  bool (*all_finite)(const Tensor& x);
};

/// The installed table (a nabla::Error if none is: a pass entered without it).
const GradArithmetic& grad_arithmetic();
void install_grad_arithmetic(const GradArithmetic& table);

// The engine's passes (src/autograd/engine.cpp); the public entry points call them.
void backward_pass(const variable_list& tensors, const variable_list& grad_tensors,
                   optional<bool> retain_graph, bool create_graph, const variable_list& inputs);
variable_list grad_pass(const variable_list& outputs, const variable_list& inputs,
                        const variable_list& grad_outputs, optional<bool> retain_graph,
                        bool create_graph, bool allow_unused);
variable_list grad_into_sinks_pass(const variable_list& outputs, const variable_list& inputs,
                                   const variable_list& grad_outputs, const variable_list& sinks);
/// Clears a leaf's grad (autograd::zero_grad's body, with the table given).
void zero_leaf_grad(const Tensor& leaf, bool set_to_none);

}  // namespace nabla::autograd::detail
