#pragma once
// Adam and AdamW (torch::optim::Adam / AdamW, LibTorch 1.13's update):
//   g = grad (+ weight_decay * p for Adam; AdamW instead scales p by 1 - lr * weight_decay)
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2  (amsgrad: vmax = max(vmax, v), used below)
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
#include <tuple>

#include "nabla/optim/optimizer.h"

namespace nabla::optim {

using betas_t = std::tuple<double, double>;

struct AdamOptions : OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}  // NOLINT
  NABLA_ARG(double, lr);
  NABLA_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  NABLA_ARG(double, eps) = 1e-8;
  NABLA_ARG(double, weight_decay) = 0;
  NABLA_ARG(bool, amsgrad) = false;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const AdamOptions& a, const AdamOptions& b) {
    return a.lr() == b.lr() && a.betas() == b.betas() && a.eps() == b.eps() &&
           a.weight_decay() == b.weight_decay() && a.amsgrad() == b.amsgrad();
  }
};

struct AdamWOptions : OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}  // NOLINT
  NABLA_ARG(double, lr);
  NABLA_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  NABLA_ARG(double, eps) = 1e-8;
  NABLA_ARG(double, weight_decay) = 1e-2;
  NABLA_ARG(bool, amsgrad) = false;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const AdamWOptions& a, const AdamWOptions& b) {
    return a.lr() == b.lr() && a.betas() == b.betas() && a.eps() == b.eps() &&
           a.weight_decay() == b.weight_decay() && a.amsgrad() == b.amsgrad();
  }
};

/// Shared by Adam and AdamW.
struct AdamParamState : OptimizerCloneableParamState<AdamParamState> {
  NABLA_ARG(int64_t, step) = 0;
  NABLA_ARG(Tensor, exp_avg);
  NABLA_ARG(Tensor, exp_avg_sq);
  NABLA_ARG(Tensor, max_exp_avg_sq);

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const AdamParamState& a, const AdamParamState& b) {
    return a.step() == b.step() && detail::same_state(a.exp_avg(), b.exp_avg()) &&
           detail::same_state(a.exp_avg_sq(), b.exp_avg_sq()) &&
           detail::same_state(a.max_exp_avg_sq(), b.max_exp_avg_sq());
  }
};
using AdamWParamState = AdamParamState;

class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
             std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  bool load_pre_1_5(serialize::InputArchive& archive) override;
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<AdamParamState>();
  }
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {})
      : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  bool load_pre_1_5(serialize::InputArchive& archive) override;
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<AdamParamState>();
  }
};

}  // namespace nabla::optim
