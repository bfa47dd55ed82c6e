// nabla::amp::GradScaler (include/nabla/optim/grad_scaler.h): PyTorch's algorithm, one
// finiteness check per gradient, the unscale done in place under no_grad.
#include "nabla/optim/grad_scaler.h"

#include <cmath>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/error.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::amp {

GradScaler::GradScaler(GradScalerOptions options)
    : options_(options), scale_(static_cast<float>(options.init_scale)) {
  NABLA_CHECK(options.init_scale > 0 && std::isfinite(options.init_scale),
              "GradScaler: init_scale must be positive and finite, got ", options.init_scale);
  NABLA_CHECK(options.growth_factor > 1, "GradScaler: growth_factor must be above 1, got ",
              options.growth_factor);
  NABLA_CHECK(options.backoff_factor > 0 && options.backoff_factor < 1,
              "GradScaler: backoff_factor must be in (0, 1), got ", options.backoff_factor);
  NABLA_CHECK(options.growth_interval > 0, "GradScaler: growth_interval must be positive, got ",
              options.growth_interval);
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!options_.enabled) return outputs;
  NABLA_CHECK(outputs.defined() && outputs.is_floating_point(),
              "GradScaler.scale: expected a floating tensor (the loss)");
  // Times a 0-d float32 tensor, as PyTorch: a 16-bit loss (0-d) becomes float32, a
  // dimensioned 16-bit tensor keeps its dtype.
  return outputs * scalar_tensor(scale_, TensorOptions(kFloat).device(outputs.device()));
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!options_.enabled) return;
  PerOptimizer& s = per_optimizer_[&optimizer];
  NABLA_CHECK(!s.unscaled,
              "GradScaler.unscale_: unscale_() has already been called on this optimizer since "
              "the last update()");
  NABLA_CHECK(!s.stepped, "GradScaler.unscale_: unscale_() is being called after step()");
  NoGradGuard no_grad;
  const float inv = 1.0f / scale_;  // in float32, as PyTorch's scale tensor
  // Whether any gradient holds an infinity or NaN, checked before the multiply as PyTorch's
  // kernel does; read once at the end (one wait for the device, not one per parameter).
  Tensor bad;
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params()) {
      const Tensor& g = p.grad();
      if (!g.defined()) continue;
      NABLA_CHECK(g.scalar_type() != kHalf,
                  "GradScaler.unscale_: attempting to unscale float16 gradients (keep the "
                  "parameters in float32 and compute in 16 bits with autocast)");
      const Tensor here = isfinite(g).logical_not().any();
      bad = bad.defined() ? bad.logical_or(here) : here;
      g.mul_(inv);
    }
  s.found_inf = bad.defined() && bad.item<bool>();
  s.unscaled = true;
}

bool GradScaler::step(optim::Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  PerOptimizer& s = per_optimizer_[&optimizer];
  NABLA_CHECK(!s.stepped,
              "GradScaler.step: step() has already been called since the last update()");
  if (!s.unscaled) unscale_(optimizer);
  s.stepped = true;
  if (s.found_inf) return false;
  optimizer.step();
  return true;
}

void GradScaler::update(optional<double> new_scale) {
  if (!options_.enabled) return;
  if (new_scale) {
    NABLA_CHECK(*new_scale > 0 && std::isfinite(*new_scale),
                "GradScaler.update: new_scale must be positive and finite, got ", *new_scale);
    scale_ = static_cast<float>(*new_scale);
  } else {
    NABLA_CHECK(!per_optimizer_.empty(),
                "GradScaler.update: no inf checks were recorded prior to update (call step or "
                "unscale_ first)");
    bool found_inf = false;
    for (const auto& [opt, s] : per_optimizer_) found_inf = found_inf || s.found_inf;
    if (found_inf) {
      scale_ *= static_cast<float>(options_.backoff_factor);
      growth_tracker_ = 0;
    } else if (++growth_tracker_ == options_.growth_interval) {
      scale_ *= static_cast<float>(options_.growth_factor);
      growth_tracker_ = 0;
    }
  }
  per_optimizer_.clear();
}

double GradScaler::get_scale() const { return options_.enabled ? scale_ : 1.0; }

}  // namespace nabla::amp
