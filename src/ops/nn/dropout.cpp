// Dropout family: a Bernoulli(1 - p) mask from the default generator, drawn per element
// or per (sample, channel), applied as one multiply (plus one add for alpha dropout). On
// the CPU LibTorch's dropout is that multiply, so its node is MulBackward0, and its mask
// the same draws (bernoulli_(1 - p) of a fresh tensor, then divided by 1 - p): after the
// same seed, the same elements drop (Note [Random streams]).
#include <cmath>
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/dropout.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

struct DropoutState {
  SavedVariable mask;  // 0 or 1 / (1 - p)
  auto saved() { return std::tie(mask); }
};
// grad_in = grad * mask: linear in grad, so higher orders are free.
variable_list dropout_backward(OpNode<DropoutState>& n, const variable_list& g) {
  return {g[0] * n.get(n.state.mask)};
}
constexpr NodeType<DropoutState> kDropout{"MulBackward0", dropout_backward};

void check_p(double p, const char* op) {
  NABLA_CHECK(p >= 0 && p <= 1, op, ": dropout probability has to be between 0 and 1, but got ", p);
}

// A Bernoulli(1 - p) draw of 0/1 in input's dtype: per element, or per (sample, channel)
// broadcast over the remaining dims.
Tensor keep_mask(const Tensor& input, double p, bool feature, const char* op) {
  std::vector<int64_t> shape = input.sizes().vec();
  if (feature) {
    NABLA_CHECK(input.dim() >= 2, op,
                ": feature dropout requires at least 2 dimensions in the "
                "input [N, C, *], got sizes ",
                input.sizes());
    for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  }
  return empty(shape, TensorOptions(input.scalar_type()).device(input.device())).bernoulli_(1 - p);
}

Tensor dropout_forward(const Tensor& input, double p, bool train, bool feature, bool alpha,
                       const char* op) {
  ops::check_defined(input, op);
  check_p(p, op);
  if (!train || p == 0 || input.numel() == 0) return input;
  NABLA_CHECK(input.is_floating_point(), op, ": expected a floating point input, got ",
              input.scalar_type());
  if (p == 1) return input * zeros_like(input);  // every variant: zeros, graph kept
  Tensor keep = keep_mask(input, p, feature, op);
  if (alpha) {
    // Dropped units take SELU's saturation value -alpha' (alpha' = scale * alpha), then
    // a * x + b restores the input's mean and variance (Klambauer et al. 2017).
    constexpr double kAlpha = 1.7580993408473766;
    const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
    Tensor b = (keep - 1) * (kAlpha * a) + kAlpha * a * p;
    return input * (keep * a) + b;
  }
  Tensor mask = keep.div_(1 - p);  // as LibTorch: divided, not multiplied by 1 / (1 - p)
  Tensor out;
  {
    NoGradGuard no_grad;
    out = input * mask;
  }
  if (auto node = autograd::record_node(kDropout, {&input})) {
    node->state.mask = autograd::save(mask);
    autograd::set_history(out, node);
  }
  return out;
}

// In place: computed out of place, then written into self (with its history when it
// takes part in autograd).
const Tensor& inplace(const Tensor& self, double p, bool train, bool feature, bool alpha,
                      const char* op) {
  ops::check_defined(self, op);
  check_p(p, op);
  if (!train || p == 0 || self.numel() == 0) return self;
  if (autograd::any_requires_grad(self))
    return ops::assign_with_history(
        self, dropout_forward(self.clone(), p, train, feature, alpha, op), op);
  Tensor r = dropout_forward(self, p, train, feature, alpha, op);
  self.copy_(r);
  return self;
}

}  // namespace

Tensor ops::dropout_impl(const Tensor& input, double p, bool train) {
  return dropout_forward(input, p, train, false, false, "dropout");
}
const Tensor& dropout_(const Tensor& self, double p, bool train) {
  return inplace(self, p, train, false, false, "dropout_");
}
Tensor ops::feature_dropout_impl(const Tensor& input, double p, bool train) {
  return dropout_forward(input, p, train, true, false, "feature_dropout");
}
const Tensor& feature_dropout_(const Tensor& self, double p, bool train) {
  return inplace(self, p, train, true, false, "feature_dropout_");
}
Tensor ops::alpha_dropout_impl(const Tensor& input, double p, bool train) {
  return dropout_forward(input, p, train, false, true, "alpha_dropout");
}
const Tensor& alpha_dropout_(const Tensor& self, double p, bool train) {
  return inplace(self, p, train, false, true, "alpha_dropout_");
}
Tensor ops::feature_alpha_dropout_impl(const Tensor& input, double p, bool train) {
  return dropout_forward(input, p, train, true, true, "feature_alpha_dropout");
}
const Tensor& feature_alpha_dropout_(const Tensor& self, double p, bool train) {
  return inplace(self, p, train, true, true, "feature_alpha_dropout_");
}

}  // namespace nabla
