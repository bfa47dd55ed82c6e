#pragma once
// Adagrad (torch::optim::Adagrad): sum += g^2; p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(sum) +
// eps).
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

struct AdagradOptions : OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT
  NABLA_ARG(double, lr);
  NABLA_ARG(double, lr_decay) = 0;
  NABLA_ARG(double, weight_decay) = 0;
  NABLA_ARG(double, initial_accumulator_value) = 0;
  NABLA_ARG(double, eps) = 1e-10;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const AdagradOptions& a, const AdagradOptions& b) {
    return a.lr() == b.lr() && a.lr_decay() == b.lr_decay() &&
           a.weight_decay() == b.weight_decay() &&
           a.initial_accumulator_value() == b.initial_accumulator_value() && a.eps() == b.eps();
  }
};

struct AdagradParamState : OptimizerCloneableParamState<AdagradParamState> {
  NABLA_ARG(Tensor, sum);
  NABLA_ARG(int64_t, step) = 0;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const AdagradParamState& a, const AdagradParamState& b) {
    return a.step() == b.step() && detail::same_state(a.sum(), b.sum());
  }
};

class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {})
      : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  bool load_pre_1_5(serialize::InputArchive& archive) override;
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<AdagradParamState>();
  }
};

}  // namespace nabla::optim
