#pragma once
// gradcheck / gradgradcheck (docs/autograd.md): compare the gradients autograd computes
// with central finite differences, in float64. Public so users can check their own
// Functions, as torch.autograd.gradcheck.
#include <functional>

#include "nabla/autograd/node.h"

namespace nabla::autograd {

using TensorFn = std::function<variable_list(const variable_list&)>;

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  /// Throw a nabla::Error describing the first mismatch (else return false).
  bool raise_exception = true;
};

/// Requires float64 inputs; those with requires_grad are checked. Each output element's
/// gradient row is computed by a backward pass and compared with
/// (f(x + eps) - f(x - eps)) / (2 eps) for every input element.
bool gradcheck(const TensorFn& fn, const variable_list& inputs, GradcheckOptions opts = {});

/// Checks second derivatives: gradcheck of (inputs, v) -> d(fn(inputs) . v)/d(inputs)
/// with create_graph, for random v (or `grad_outputs` when given).
bool gradgradcheck(const TensorFn& fn, const variable_list& inputs,
                   const variable_list& grad_outputs = {}, GradcheckOptions opts = {});

}  // namespace nabla::autograd
