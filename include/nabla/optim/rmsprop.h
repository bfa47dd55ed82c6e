#pragma once
// RMSprop (torch::optim::RMSprop): v = alpha v + (1 - alpha) g^2; centered subtracts the
// squared running mean of g; momentum keeps a buffer of g / (sqrt(v) + eps).
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

struct RMSpropOptions : OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT
  NABLA_ARG(double, lr);
  NABLA_ARG(double, alpha) = 0.99;
  NABLA_ARG(double, eps) = 1e-8;
  NABLA_ARG(double, weight_decay) = 0;
  NABLA_ARG(double, momentum) = 0;
  NABLA_ARG(bool, centered) = false;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const RMSpropOptions& a, const RMSpropOptions& b) {
    return a.lr() == b.lr() && a.alpha() == b.alpha() && a.eps() == b.eps() &&
           a.weight_decay() == b.weight_decay() && a.momentum() == b.momentum() &&
           a.centered() == b.centered();
  }
};

struct RMSpropParamState : OptimizerCloneableParamState<RMSpropParamState> {
  NABLA_ARG(int64_t, step) = 0;
  NABLA_ARG(Tensor, square_avg);
  NABLA_ARG(Tensor, momentum_buffer);
  NABLA_ARG(Tensor, grad_avg);

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const RMSpropParamState& a, const RMSpropParamState& b) {
    return a.step() == b.step() && detail::same_state(a.square_avg(), b.square_avg()) &&
           detail::same_state(a.momentum_buffer(), b.momentum_buffer()) &&
           detail::same_state(a.grad_avg(), b.grad_avg());
  }
};

class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  bool load_pre_1_5(serialize::InputArchive& archive) override;
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<RMSpropParamState>();
  }
};

}  // namespace nabla::optim
