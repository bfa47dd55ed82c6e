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

#include "nabla/core/flat_hash_map.h"
#include "nabla/core/tensor.h"
#include "nabla/nn/options/arg.h"

namespace nabla::serialize {
class OutputArchive;
class InputArchive;
}  // namespace nabla::serialize

namespace nabla::optim {

namespace detail {
/// Whether two pieces of optimizer state hold the same values (both undefined counts).
inline bool same_state(const Tensor& a, const Tensor& b) {
  return a.defined() == b.defined() && (!a.defined() || a.equal(b));
}
}  // namespace detail

/// Per-parameter state. Optimizer::save/load call save/load, which by default call
/// serialize, LibTorch's name: a state class written for LibTorch overrides serialize, one
/// of nabla's overrides save/load. The base versions of clone and serialize raise
/// nabla::Error (LibTorch 1.13's behaviour): derive from OptimizerCloneableParamState.
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  virtual void serialize(serialize::OutputArchive& archive) const;
  virtual void serialize(serialize::InputArchive& archive);
  virtual void save(serialize::OutputArchive& archive) const { serialize(archive); }
  virtual void load(serialize::InputArchive& archive) { serialize(archive); }
};

template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Hyper-parameters of a group. As OptimizerParamState, save/load default to serialize.
/// get_lr/set_lr (the learning rate, for schedulers) raise in the base, as LibTorch's;
/// OptimizerCloneableOptions<Derived> provides them when Derived has an lr() option.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual double get_lr() const;
  virtual void set_lr(double lr);
  virtual void serialize(serialize::OutputArchive& archive) const;
  virtual void serialize(serialize::InputArchive& archive);
  virtual void save(serialize::OutputArchive& archive) const { serialize(archive); }
  virtual void load(serialize::InputArchive& archive) { serialize(archive); }
};

template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double get_lr() const override {
    if constexpr (requires(const Derived& d) { static_cast<double>(d.lr()); }) {
      return static_cast<double>(static_cast<const Derived&>(*this).lr());
    } else {
      return OptimizerOptions::get_lr();
    }
  }
  void set_lr(double lr) override {
    if constexpr (requires(Derived & d, double v) { d.lr(v); }) {
      static_cast<Derived&>(*this).lr(lr);
    } else {
      OptimizerOptions::set_lr(lr);
    }
  }
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
  /// Appends parameters to the first group. Deprecated in LibTorch (it warns, as LibTorch
  /// 1.13 does): add a group instead.
  void add_parameters(const std::vector<Tensor>& parameters);

  /// One update. The closure, if given, is called (with grad mode on) to recompute the
  /// loss first; its result is returned (undefined without a closure).
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// Clears every parameter's gradient: zeroed in place by default, as LibTorch 1.13's
  /// zero_grad(); undefined with set_to_none = true (LibTorch 2.x's default).
  void zero_grad(bool set_to_none = false);

  /// All parameters of all groups, in order, and their count. Both warn that they are
  /// deprecated, as LibTorch 1.13's: use param_groups().
  const std::vector<Tensor>& parameters() const;
  size_t size() const;
  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state keyed by the parameter's identity (see state_key).
  std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>& state() noexcept {
    return state_;
  }
  const std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>& state()
      const noexcept {
    return state_;
  }
  /// The key of `parameter`'s state: its TensorImpl's address as LibTorch writes it
  /// (c10::guts::to_string(p.unsafeGetTensorImpl())), so code that indexes state() by
  /// that string ports unchanged.
  static std::string state_key(const Tensor& parameter);

  /// Writes the groups' options ("param_groups.<g>.<option>") and every parameter's
  /// state under its position in parameters() ("state.<i>.<field>").
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads them back into an optimizer built over the same parameters: the group count,
  /// group sizes and state shapes must match.
  virtual void load(serialize::InputArchive& archive);

 protected:
  /// Reads a file in LibTorch's layout from before 1.5 (no groups; each kind of buffer as
  /// "<name>/size" and "<name>/<k>", k a position in the first group), warning as LibTorch
  /// does, and returns true; false (the base) when the archive is not in that layout.
  /// load calls it for an archive without "param_groups.0.size".
  virtual bool load_pre_1_5(serialize::InputArchive& archive);
  /// The halves of save/load that write and read the groups' options, for optimizers
  /// whose state is laid out differently (LBFGS).
  void save_param_groups(serialize::OutputArchive& archive) const;
  void load_param_groups(serialize::InputArchive& archive);
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
  /// Creates an empty state object for loading (each optimizer its own type). The base
  /// raises: an optimizer written for LibTorch, which has no such hook, can run and save
  /// but not load state.
  virtual std::unique_ptr<OptimizerParamState> make_state(const Tensor& parameter) const;
  /// Runs `closure` with grad mode enabled (step() itself runs under no_grad).
  static Tensor run_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<Tensor> parameters_;
};

}  // namespace nabla::optim
