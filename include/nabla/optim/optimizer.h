#pragma once
// Optimizer: the base of SGD, Adam, AdamW, RMSprop and Adagrad, as torch::optim's.
// Parameters live in groups, each with its own options (lr, ...); per-parameter state
// (momentum buffers, moment estimates) is created on the first step that sees a
// gradient. Updates run under no_grad and in place, so parameters keep their identity.
//
//   nabla::optim::Adam opt(model->parameters(), nabla::optim::AdamOptions(1e-3));
//   opt.zero_grad(); loss.backward(); opt.step();
//   opt.param_groups()[0].options().set_lr(1e-4);
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/nn/options/arg.h"

namespace nabla::serialize {
class OutputArchive;
class InputArchive;
}  // namespace nabla::serialize

namespace nabla::optim {

/// Per-parameter state. save/load write and read its tensors and counters.
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Hyper-parameters of a group.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double get_lr() const override { return static_cast<const Derived&>(*this).lr(); }
  void set_lr(double lr) override { static_cast<Derived&>(*this).lr(lr); }
};

class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
      : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))},
                  std::move(defaults)) {}
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  /// Adds a group; options it lacks come from the defaults. A parameter may belong to
  /// one group only; parameters must be floating leaf tensors.
  void add_param_group(const OptimizerParamGroup& group);
  /// Appends parameters to the first group.
  void add_parameters(const std::vector<Tensor>& parameters);

  /// One update. The closure, if given, is called (with grad mode on) to recompute the
  /// loss first; its result is returned (undefined without a closure).
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// Clears every parameter's gradient: zeroed in place by default, as LibTorch 1.13's
  /// zero_grad(); undefined with set_to_none = true (LibTorch 2.x's default).
  void zero_grad(bool set_to_none = false);

  /// All parameters of all groups, in order.
  const std::vector<Tensor>& parameters() const noexcept { return parameters_; }
  size_t size() const noexcept { return parameters_.size(); }
  OptimizerOptions& defaults() { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state keyed by the parameter's identity (see state_key).
  std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  static std::string state_key(const Tensor& parameter);

  /// Writes the groups' options ("param_groups.<g>.<option>") and every parameter's
  /// state under its position in parameters() ("state.<i>.<field>").
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads them back into an optimizer built over the same parameters: the group count,
  /// group sizes and state shapes must match.
  virtual void load(serialize::InputArchive& archive);

 protected:
  /// The state of `p`, created by `make` on first use.
  template <class State, class Make>
  State& state_for(const Tensor& p, Make&& make) {
    auto& slot = state_[state_key(p)];
    if (!slot) slot = make();
    return static_cast<State&>(*slot);
  }
  /// The state of `p`, created empty (make_state) on first use.
  template <class State>
  State& state_for(const Tensor& p) {
    return state_for<State>(p, [&] { return make_state(p); });
  }
  /// Creates an empty state object for loading (each optimizer its own type).
  virtual std::unique_ptr<OptimizerParamState> make_state(const Tensor& parameter) const = 0;
  /// Runs `closure` with grad mode enabled (step() itself runs under no_grad).
  static Tensor run_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<Tensor> parameters_;
};

}  // namespace nabla::optim
