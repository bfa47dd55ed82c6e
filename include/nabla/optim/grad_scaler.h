#pragma once
// nabla::amp::GradScaler: loss scaling for 16-bit training, PyTorch's torch.amp.GradScaler
// (docs/amp.md). The loss is multiplied by a scale before backward, so that small
// gradients survive 16-bit floats; unscale_ divides the gradients back and looks for
// infinities and NaNs; step skips the optimizer's step when it found one; update halves the
// scale after a skipped step and doubles it after growth_interval steps in a row without.
//
//   nabla::amp::GradScaler scaler;
//   for (...) {
//     opt.zero_grad();
//     scaler.scale(loss_fn(model->forward(x), y)).backward();
//     scaler.step(opt);      // unscales (unless unscale_ was called), steps if finite
//     scaler.update();
//   }
#include <map>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/optim/optimizer.h"

namespace nabla::amp {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  /// `outputs` times the current scale (float32), as it is when disabled.
  Tensor scale(const Tensor& outputs);
  /// Divides the gradients of `optimizer`'s parameters by the scale, in place, and records
  /// whether any is infinite or NaN. Once per optimizer between updates (a nabla::Error
  /// otherwise, as PyTorch's RuntimeError).
  void unscale_(optim::Optimizer& optimizer);
  /// Unscales if unscale_ was not called, then runs optimizer.step() unless a gradient was
  /// not finite. Returns whether the step ran.
  bool step(optim::Optimizer& optimizer);
  /// The scale for the next iteration: backoff_factor times after a step that found an
  /// infinity or NaN (in any optimizer since the last update), growth_factor times after
  /// growth_interval finite steps in a row; or `new_scale` when given.
  void update(optional<double> new_scale = nullopt);

  double get_scale() const;
  double get_growth_factor() const { return options_.growth_factor; }
  double get_backoff_factor() const { return options_.backoff_factor; }
  int64_t get_growth_interval() const { return options_.growth_interval; }
  /// Finite steps since the scale last changed.
  int64_t growth_tracker() const { return growth_tracker_; }
  bool is_enabled() const { return options_.enabled; }

 private:
  struct PerOptimizer {
    bool unscaled = false, stepped = false, found_inf = false;
  };
  GradScalerOptions options_;
  float scale_;  // float32, as PyTorch's scale tensor
  int64_t growth_tracker_ = 0;
  std::map<const optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace nabla::amp
