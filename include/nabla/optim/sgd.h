#pragma once
// SGD with momentum, dampening, Nesterov momentum and weight decay (torch::optim::SGD):
//   d = grad + weight_decay * p;  buf = momentum * buf + (1 - dampening) * d
//   (buf = d on the first step);  d = nesterov ? d + momentum * buf : buf;  p -= lr * d
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

struct SGDOptions : OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr) : lr_(lr) {}  // NOLINT: implicit, as LibTorch
  NABLA_ARG(double, lr);
  NABLA_ARG(double, momentum) = 0;
  NABLA_ARG(double, dampening) = 0;
  NABLA_ARG(double, weight_decay) = 0;
  NABLA_ARG(bool, nesterov) = false;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

struct SGDParamState : OptimizerCloneableParamState<SGDParamState> {
  NABLA_ARG(Tensor, momentum_buffer);

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<SGDParamState>();
  }
};

}  // namespace nabla::optim
