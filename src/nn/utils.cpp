// nn::utils: gradient clipping and parameter flattening.
#include <cmath>
#include <limits>

#include "nabla/autograd/grad_mode.h"
#include "nabla/nn/utils/clip_grad.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard guard;
  std::vector<Tensor> grads;
  for (const auto& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  double total = 0;
  if (std::isinf(norm_type)) {
    // A NaN anywhere makes the norm NaN (std::max would drop it).
    for (const auto& g : grads) {
      const double m = g.abs().max().item<double>();
      if (std::isnan(m) || m > total) total = m;
      if (std::isnan(total)) break;
    }
  } else {
    // Per-gradient norms, then the norm of the norms: PyTorch's order of operations.
    std::vector<Tensor> norms;
    for (const auto& g : grads) norms.push_back(g.norm(norm_type).to(kDouble));
    total = stack(norms).norm(norm_type).item<double>();
  }
  NABLA_CHECK(!error_if_nonfinite || std::isfinite(total),
              "clip_grad_norm_: the total norm of order ", norm_type,
              " of the gradients is non-finite (", total,
              "), so they cannot be clipped; pass error_if_nonfinite=false to clip anyway");
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1)
    for (auto& g : grads) g.mul_(coef);
  return total;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard guard;
  for (const auto& p : parameters)
    if (p.defined() && p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const auto& p : parameters) {
    NABLA_CHECK(p.defined(), "parameters_to_vector: a parameter is undefined");
    flat.push_back(p.reshape({-1}));
  }
  NABLA_CHECK(!flat.empty(), "parameters_to_vector: no parameters given");
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  NABLA_CHECK(vec.defined() && vec.dim() == 1, "vector_to_parameters: expected a 1-d tensor, got ",
              vec.defined() ? vec.dim() : -1, " dims");
  int64_t total = 0;
  for (const auto& p : parameters) total += p.numel();
  NABLA_CHECK(total == vec.numel(), "vector_to_parameters: the vector has ", vec.numel(),
              " elements, the parameters ", total);
  NoGradGuard guard;
  int64_t offset = 0;
  for (const auto& p : parameters) {
    p.copy_(vec.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace nabla::nn::utils
