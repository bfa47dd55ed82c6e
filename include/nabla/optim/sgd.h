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
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const SGDOptions& a, const SGDOptions& b) {
    return a.lr() == b.lr() && a.momentum() == b.momentum() && a.dampening() == b.dampening() &&
           a.weight_decay() == b.weight_decay() && a.nesterov() == b.nesterov();
  }
};

struct SGDParamState : OptimizerCloneableParamState<SGDParamState> {
  NABLA_ARG(Tensor, momentum_buffer);

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const SGDParamState& a, const SGDParamState& b) {
    return detail::same_state(a.momentum_buffer(), b.momentum_buffer());
  }
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  bool load_pre_1_5(serialize::InputArchive& archive) override;
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<SGDParamState>();
  }
};

}  // namespace nabla::optim
