// Optimizer base: parameter groups, zero_grad, state bookkeeping and save/load.
#include "nabla/optim/optimizer.h"

#include <cstdio>
#include <unordered_set>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/warning.h"
#include "nabla/serialize/archive.h"

namespace nabla::optim {

// ---- the defaults a LibTorch-style subclass may leave out (LibTorch 1.13's wording) ----

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  NABLA_CHECK(false,
              "clone() has not been implemented for nabla::optim::OptimizerParamState. "
              "Subclass nabla::optim::OptimizerCloneableParamState<YourOptimizerParamState> "
              "instead of nabla::optim::OptimizerParamState to inherit the ability to clone.");
  return nullptr;
}
void OptimizerParamState::serialize(serialize::OutputArchive&) const {
  NABLA_CHECK(false,
              "void serialize(nabla::serialize::OutputArchive& archive) has not been "
              "implemented for nabla::optim::OptimizerParamState. You must override it in your "
              "subclass of nabla::optim::OptimizerCloneableParamState<YourOptimizerParamState>.");
}
void OptimizerParamState::serialize(serialize::InputArchive&) {
  NABLA_CHECK(false,
              "void serialize(nabla::serialize::InputArchive& archive) has not been "
              "implemented for nabla::optim::OptimizerParamState. You must override it in your "
              "subclass of nabla::optim::OptimizerCloneableParamState<YourOptimizerParamState>.");
}

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  NABLA_CHECK(false,
              "clone() has not been implemented for nabla::optim::OptimizerOptions. "
              "Subclass nabla::optim::OptimizerCloneableOptions<YourOptimizerOptions> "
              "instead of nabla::optim::OptimizerOptions to inherit the ability to clone.");
  return nullptr;
}
// "overidden" is LibTorch 1.13's spelling, kept so that its message matches.
double OptimizerOptions::get_lr() const {
  NABLA_CHECK(false,
              "double get_lr() has not been overidden and implemented in subclass of "
              "nabla::optim::OptimizerOptions, you must override it in your subclass.");
  return 0;
}
void OptimizerOptions::set_lr(double) {
  NABLA_CHECK(false,
              "double set_lr() has not been overidden and implemented in subclass of "
              "nabla::optim::OptimizerOptions, you must override it in your subclass.");
}
void OptimizerOptions::serialize(serialize::OutputArchive&) const {
  NABLA_CHECK(false,
              "void serialize(nabla::serialize::OutputArchive& archive) has not been "
              "implemented for nabla::optim::OptimizerOptions. You must override it in your "
              "subclass of nabla::optim::OptimizerCloneableOptions<YourOptimizerOptions>.");
}
void OptimizerOptions::serialize(serialize::InputArchive&) {
  NABLA_CHECK(false,
              "void serialize(nabla::serialize::InputArchive& archive) has not been "
              "implemented for nabla::optim::OptimizerOptions. You must override it in your "
              "subclass of nabla::optim::OptimizerCloneableOptions<YourOptimizerOptions>.");
}

// ---- groups and the optimizer -----------------------------------------------------------

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  params_ = other.params_;
  options_ = other.options_ ? other.options_->clone() : nullptr;
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  NABLA_CHECK(options_ != nullptr,
              "OptimizerParamGroup::options: the group has no options "
              "(add it to an optimizer first)");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup&>(*this).options();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const auto& group : param_groups) add_param_group(group);
}

void Optimizer::add_param_group(const OptimizerParamGroup& group) {
  // Against the groups themselves: param_groups() is writable, so parameters_ may lag.
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_)
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  for (size_t i = 0; i < group.params().size(); ++i) {
    const Tensor& p = group.params()[i];
    NABLA_CHECK(p.defined(), "optimizer: parameter ", i, " of the new group is undefined");
    NABLA_CHECK(p.is_floating_point(), "optimizer: parameter ", i, " has dtype ", p.scalar_type(),
                "; only floating tensors can be optimized");
    NABLA_CHECK(p.is_leaf(), "optimizer: parameter ", i,
                " is not a leaf tensor (it was computed from others); optimize the leaves");
    // LibTorch's wording first, so that code matching it ports.
    NABLA_CHECK(seen.insert(p.unsafeGetTensorImpl()).second,
                "some parameters appear in more than one parameter group (parameter ", i,
                " of the new group already belongs to a parameter group)");
  }
  OptimizerParamGroup added(group.params(),
                            group.has_options() ? group.options().clone() : defaults_->clone());
  for (const auto& p : added.params()) parameters_.push_back(p);
  param_groups_.push_back(std::move(added));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  NABLA_WARN("Optimizer::add_parameters() will be removed (deprecated since LibTorch 1.5); ",
             "use add_param_group()");
  NABLA_CHECK(!param_groups_.empty(), "optimizer: add_parameters needs an existing group");
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_)
    for (const auto& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  for (const auto& p : parameters) {
    NABLA_CHECK(p.defined() && p.is_floating_point() && p.is_leaf(),
                "optimizer: add_parameters needs defined floating leaf tensors");
    NABLA_CHECK(seen.insert(p.unsafeGetTensorImpl()).second,
                "optimizer: a parameter passed to add_parameters is already optimized");
    param_groups_[0].params().push_back(p);
    parameters_.push_back(p);
  }
}

const std::vector<Tensor>& Optimizer::parameters() const {
  NABLA_WARN("Optimizer::parameters() will be removed (deprecated since LibTorch 1.5); ",
             "use param_groups()[i].params()");
  return parameters_;
}

size_t Optimizer::size() const {
  NABLA_WARN("Optimizer::size() will be removed (deprecated since LibTorch 1.5); ",
             "count param_groups()[i].params()");
  return parameters_.size();
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const auto& p : parameters_) autograd::zero_grad(p, set_to_none);
}

std::string Optimizer::state_key(const Tensor& parameter) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", static_cast<const void*>(parameter.unsafeGetTensorImpl()));
  return buf;
}

std::unique_ptr<OptimizerParamState> Optimizer::make_state(const Tensor&) const {
  NABLA_CHECK(false,
              "optimizer load: this optimizer does not say what its state is; override "
              "make_state (or load) in your subclass of nabla::optim::Optimizer");
  return nullptr;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return {};
  AutoGradMode enable(true);
  return closure();
}

void Optimizer::save_param_groups(serialize::OutputArchive& archive) const {
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    serialize::OutputArchive group;
    param_groups_[g].options().save(group);
    group.write("size", static_cast<int64_t>(param_groups_[g].params().size()));
    archive.write("param_groups." + std::to_string(g), group);
  }
}

void Optimizer::save(serialize::OutputArchive& archive) const {
  save_param_groups(archive);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    auto it = state_.find(state_key(parameters_[i]));
    if (it == state_.end()) continue;
    serialize::OutputArchive s;
    it->second->save(s);
    archive.write("state." + std::to_string(i), s);
  }
}

void Optimizer::load_param_groups(serialize::InputArchive& archive) {
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    serialize::InputArchive group;
    NABLA_CHECK(archive.try_read("param_groups." + std::to_string(g), group),
                "optimizer load: the file has no parameter group ", g, " (the optimizer has ",
                param_groups_.size(), ")");
    int64_t size = 0;
    group.read("size", size);
    NABLA_CHECK(size == static_cast<int64_t>(param_groups_[g].params().size()),
                "optimizer load: group ", g, " has ", size, " parameters in the file, ",
                param_groups_[g].params().size(), " here");
    param_groups_[g].options().load(group);
  }
  NABLA_CHECK(!archive.contains("param_groups." + std::to_string(param_groups_.size()) + ".size"),
              "optimizer load: the file has more parameter groups than the optimizer (",
              param_groups_.size(), ")");
}

bool Optimizer::load_pre_1_5(serialize::InputArchive&) { return false; }

void Optimizer::load(serialize::InputArchive& archive) {
  if (!archive.contains("param_groups.0.size") && load_pre_1_5(archive)) return;
  load_param_groups(archive);
  state_.clear();
  // A parameter's state lives on its device, wherever the file's tensors were (as
  // PyTorch's load_state_dict); the archive's own setting is restored after.
  const optional<Device> archive_device = archive.device();
  for (size_t i = 0; i < parameters_.size(); ++i) {
    serialize::InputArchive s;
    if (!archive.try_read("state." + std::to_string(i), s)) continue;
    s.set_device(parameters_[i].device());
    // Buffers must have the parameter's shape (scalars such as step are 0-d).
    for (const auto& key : s.keys()) {
      Tensor t;
      s.read(key, t);
      NABLA_CHECK(t.dim() == 0 || t.sizes() == parameters_[i].sizes(), "optimizer load: state.", i,
                  ".", key, " has shape ", t.sizes(), ", but parameter ", i, " has shape ",
                  parameters_[i].sizes());
    }
    auto state = make_state(parameters_[i]);
    state->load(s);
    state_[state_key(parameters_[i])] = std::move(state);
  }
  archive.set_device(archive_device);
}

}  // namespace nabla::optim
