// The entry points of a backward pass (Note [Gradient arithmetic],
// nabla/autograd/detail/grad_arithmetic.h): each installs the ops that autograd's engine
// does its gradient arithmetic with, then runs the engine's pass. Declared in autograd's
// headers (nabla/autograd/autograd.h, grad_sink.h) and core's (Tensor::backward).
#include "nabla/autograd/autograd.h"
#include "nabla/autograd/detail/grad_arithmetic.h"
#include "nabla/autograd/grad_sink.h"
#include "nabla/ops/factories.h"

namespace nabla {

namespace {

const autograd::detail::GradArithmetic kOps = {
    [](const Tensor& a, const Tensor& b) { return a + b; },
    [](const Tensor& self, const Tensor& other) { self.add_(other); },
    [](const Tensor& x) { return x.clone(); },
    [](const Tensor& x) { return x.detach(); },
    [](const Tensor& x) { x.zero_(); },
    [](const Tensor& x, ScalarType dtype) { return x.to(dtype); },
    [](IntArrayRef sizes, ScalarType dtype, Device device) {
      return zeros(sizes, TensorOptions(dtype).device(device));
    },
    [](const Tensor& x) { return x.new_ones(x.sizes()); },
    [](const Tensor& x) { return x.isfinite().all().item<bool>(); },
};

}  // namespace

namespace autograd {

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              optional<bool> retain_graph, bool create_graph, const variable_list& inputs) {
  detail::install_grad_arithmetic(kOps);
  detail::backward_pass(tensors, grad_tensors, retain_graph, create_graph, inputs);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  detail::install_grad_arithmetic(kOps);
  return detail::grad_pass(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
}

variable_list detail::grad_into_sinks(const variable_list& outputs, const variable_list& inputs,
                                      const variable_list& grad_outputs,
                                      const variable_list& sinks) {
  install_grad_arithmetic(kOps);
  return grad_into_sinks_pass(outputs, inputs, grad_outputs, sinks);
}

void zero_grad(const Tensor& leaf, bool set_to_none) {
  detail::install_grad_arithmetic(kOps);
  detail::zero_leaf_grad(leaf, set_to_none);
}

}  // namespace autograd

void Tensor::backward(const Tensor& gradient, optional<bool> retain_graph, bool create_graph,
                      optional<TensorList> inputs) const {
  autograd::variable_list in;
  if (inputs) {
    NABLA_CHECK(!inputs->empty(),
                "backward: 'inputs' argument to backward() cannot be empty; "
                "leave it out to accumulate into every leaf");
    in.assign(inputs->begin(), inputs->end());
  }
  autograd::variable_list grads;
  if (gradient.defined()) grads.push_back(gradient);
  autograd::backward({*this}, grads, retain_graph, create_graph, in);
}

}  // namespace nabla
