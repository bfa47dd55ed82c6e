// SGD, Adam, AdamW, RMSprop, Adagrad: LibTorch 1.13's update rules
// (torch/csrc/api/src/optim/*.cpp), step for step.
#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/backend/backend.h"
#include "nabla/core/warning.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/optim/adagrad.h"
#include "nabla/optim/adam.h"
#include "nabla/optim/rmsprop.h"
#include "nabla/optim/sgd.h"
#include "nabla/serialize/archive.h"

namespace nabla::optim {

namespace {

void put(serialize::OutputArchive& a, const char* key, double v) { a.write(key, v); }
void put(serialize::OutputArchive& a, const char* key, bool v) { a.write(key, int64_t{v}); }
void put_tensor(serialize::OutputArchive& a, const char* key, const Tensor& t) {
  if (t.defined()) a.write(key, t);
}
double get_double(serialize::InputArchive& a, const char* key) {
  double v = 0;
  a.read(key, v);
  return v;
}
bool get_bool(serialize::InputArchive& a, const char* key) {
  int64_t v = 0;
  a.read(key, v);
  return v != 0;
}
Tensor get_tensor(serialize::InputArchive& a, const char* key) {
  Tensor t;
  a.try_read(key, t);
  return t;
}

void check_lr(const char* who, double lr) {
  NABLA_CHECK(lr >= 0, who, ": invalid learning rate ", lr, " (expected >= 0)");
}
void check_non_negative(const char* who, const char* what, double v) {
  NABLA_CHECK(v >= 0, who, ": invalid ", what, " ", v, " (expected >= 0)");
}
void check_betas(const char* who, const betas_t& b) {
  auto [b1, b2] = b;
  NABLA_CHECK(b1 >= 0 && b1 < 1 && b2 >= 0 && b2 < 1, who, ": invalid betas (", b1, ", ", b2,
              "): each must be in [0, 1)");
}

// Adam/AdamW's per-parameter state for this step: the moments (created on the first
// step), the step count, and the update's slot for the fused kernel.
AdamSlot adam_slot(const Tensor& p, const Tensor& grad, AdamParamState& s, double lr,
                   const betas_t& betas, bool amsgrad) {
  auto [beta1, beta2] = betas;
  if (!s.exp_avg().defined()) {
    s.exp_avg(zeros_like(p));
    s.exp_avg_sq(zeros_like(p));
  }
  if (amsgrad && !s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(zeros_like(p));
  s.step(s.step() + 1);
  const double bias1 = 1 - std::pow(beta1, static_cast<double>(s.step()));
  const double bias2 = 1 - std::pow(beta2, static_cast<double>(s.step()));
  return {p,
          grad,
          s.exp_avg(),
          s.exp_avg_sq(),
          amsgrad ? s.max_exp_avg_sq() : Tensor(),
          lr / bias1,
          std::sqrt(bias2)};
}

// The fused kernel takes contiguous tensors of one floating dtype and size.
bool fusable(const AdamSlot& a) {
  const Tensor* ts[] = {&a.param, &a.grad, &a.exp_avg, &a.exp_avg_sq, &a.max_exp_avg_sq};
  for (const Tensor* t : ts) {
    if (!t->defined()) continue;
    if (!t->is_contiguous() || t->scalar_type() != a.param.scalar_type() ||
        t->sizes() != a.param.sizes() || t->device() != a.param.device())
      return false;
  }
  return a.param.scalar_type() == kFloat || a.param.scalar_type() == kDouble;
}

// The same update as tensor ops, for parameters the kernel does not take (any strides
// or dtypes): g already has the weight decay added, p the decoupled decay applied.
void adam_with_ops(const AdamSlot& a, const AdamHyper& h) {
  a.exp_avg.mul_(h.beta1).add_(a.grad, 1 - h.beta1);
  a.exp_avg_sq.mul_(h.beta2).addcmul_(a.grad, a.grad, 1 - h.beta2);
  Tensor v = a.exp_avg_sq;
  if (h.amsgrad) {
    a.max_exp_avg_sq.copy_(maximum(a.max_exp_avg_sq, a.exp_avg_sq));
    v = a.max_exp_avg_sq;
  }
  a.param.addcdiv_(a.exp_avg, (v.sqrt() / a.bias2_sqrt).add_(h.eps), -a.step_size);
}

// One step of a parameter group: the fusable parameters in one kernel call.
void adam_group(OptimizerParamGroup& group, double lr, const betas_t& betas, double eps,
                double weight_decay, bool decoupled, bool amsgrad,
                const std::function<AdamParamState&(const Tensor&)>& state) {
  AdamHyper h;
  std::tie(h.beta1, h.beta2) = betas;
  h.eps = eps;
  h.amsgrad = amsgrad;
  h.weight_decay = decoupled ? 0 : weight_decay;
  h.param_scale = decoupled ? 1 - lr * weight_decay : 1;
  // One kernel call per device (a group may hold parameters on several).
  std::vector<std::pair<Device, std::vector<AdamSlot>>> fused;
  for (const auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    AdamSlot slot = adam_slot(p, p.grad(), state(p), lr, betas, amsgrad);
    if (fusable(slot)) {
      auto it = std::find_if(fused.begin(), fused.end(),
                             [&](const auto& f) { return f.first == p.device(); });
      if (it == fused.end()) {
        fused.emplace_back(p.device(), std::vector<AdamSlot>{});
        it = std::prev(fused.end());
      }
      it->second.push_back(std::move(slot));
      continue;
    }
    if (decoupled && weight_decay != 0) p.mul_(h.param_scale);
    if (!decoupled && weight_decay != 0) slot.grad = slot.grad.add(p, weight_decay);
    adam_with_ops(slot, h);
  }
  for (const auto& [device, slots] : fused) backend_for(device).adam_step(slots, h);
}

// Adam's and AdamW's step over every group: `decoupled` for AdamW's weight decay.
template <class Options>
void adam_step(std::vector<OptimizerParamGroup>& groups, bool decoupled,
               const std::function<AdamParamState&(const Tensor&)>& state) {
  for (auto& group : groups) {
    const auto& o = static_cast<const Options&>(group.options());
    adam_group(group, o.lr(), o.betas(), o.eps(), o.weight_decay(), decoupled, o.amsgrad(), state);
  }
}

// Adagrad's state before the first step: the accumulator at its initial value.
std::unique_ptr<AdagradParamState> adagrad_state(const Tensor& p, double initial_value) {
  auto state = std::make_unique<AdagradParamState>();
  state->sum(full_like(p, initial_value));
  return state;
}

template <class Options>
void check_adam_options(const char* who, const Options& o) {
  check_lr(who, o.lr());
  check_non_negative(who, "eps", o.eps());
  check_non_negative(who, "weight_decay", o.weight_decay());
  check_betas(who, o.betas());
}
// ---- LibTorch's layout before 1.5 (Optimizer::load_pre_1_5) ----

std::string old_format_warning(const std::string& name, const std::string& detail = "") {
  return "Your serialized " + name + " optimizer is still using the old serialization format. " +
         detail + "You should re-save your " + name +
         " optimizer to use the new serialization format.";
}

// The buffers stored as "<key>/size" and "<key>/<k>" (none when absent).
std::vector<Tensor> old_buffers(serialize::InputArchive& a, const std::string& key) {
  std::vector<Tensor> out;
  if (!a.contains(key + "/size")) return out;
  Tensor size;
  a.read(key + "/size", size, /*is_buffer=*/true);
  for (int64_t k = 0; k < size.item<int64_t>(); ++k) {
    Tensor t;
    a.read(key + "/" + std::to_string(k), t, /*is_buffer=*/true);
    out.push_back(t);
  }
  return out;
}

// Buffer k belonged to parameter k of the (then only) first group.
const std::vector<Tensor>& old_params(const std::vector<OptimizerParamGroup>& groups,
                                      size_t buffers, const char* who) {
  NABLA_CHECK(!groups.empty() && buffers <= groups[0].params().size(), who,
              " load: the file holds state for ", buffers,
              " parameters, but the optimizer's first group has ",
              groups.empty() ? 0 : groups[0].params().size());
  return groups[0].params();
}

Tensor on_device_of(const Tensor& t, const Tensor& p) { return t.defined() ? t.to(p.device()) : t; }

using StateMap = std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>;

// Adam's and AdamW's old layout.
bool load_old_adam(serialize::InputArchive& a, const char* who,
                   const std::vector<OptimizerParamGroup>& groups, StateMap& state) {
  if (!a.contains("step_buffers/size") || !a.contains("exp_average_buffers/size")) return false;
  NABLA_WARN(old_format_warning(who));
  auto steps = old_buffers(a, "step_buffers");
  auto avg = old_buffers(a, "exp_average_buffers");
  auto avg_sq = old_buffers(a, "exp_average_sq_buffers");
  auto max_avg_sq = old_buffers(a, "max_exp_average_sq_buffers");
  NABLA_CHECK(avg.size() == steps.size() && avg_sq.size() == steps.size(), who,
              " load: the old format's buffers differ in count");
  const auto& params = old_params(groups, steps.size(), who);
  for (size_t k = 0; k < steps.size(); ++k) {
    auto s = std::make_unique<AdamParamState>();
    s->step(steps[k].item<int64_t>());
    s->exp_avg(on_device_of(avg[k], params[k])).exp_avg_sq(on_device_of(avg_sq[k], params[k]));
    if (k < max_avg_sq.size()) s->max_exp_avg_sq(on_device_of(max_avg_sq[k], params[k]));
    state[Optimizer::state_key(params[k])] = std::move(s);
  }
  return true;
}

}  // namespace

// ---- options and state serialisation ---------------------------------------------------

void SGDOptions::save(serialize::OutputArchive& a) const {
  put(a, "lr", lr());
  put(a, "momentum", momentum());
  put(a, "dampening", dampening());
  put(a, "weight_decay", weight_decay());
  put(a, "nesterov", nesterov());
}
void SGDOptions::load(serialize::InputArchive& a) {
  lr(get_double(a, "lr")).momentum(get_double(a, "momentum")).dampening(get_double(a, "dampening"));
  weight_decay(get_double(a, "weight_decay")).nesterov(get_bool(a, "nesterov"));
}
void SGDParamState::save(serialize::OutputArchive& a) const {
  put_tensor(a, "momentum_buffer", momentum_buffer());
}
void SGDParamState::load(serialize::InputArchive& a) {
  momentum_buffer(get_tensor(a, "momentum_buffer"));
}

template <class O>
void save_adam_options(const O& o, serialize::OutputArchive& a) {
  put(a, "lr", o.lr());
  put(a, "beta1", std::get<0>(o.betas()));
  put(a, "beta2", std::get<1>(o.betas()));
  put(a, "eps", o.eps());
  put(a, "weight_decay", o.weight_decay());
  put(a, "amsgrad", o.amsgrad());
}
template <class O>
void load_adam_options(O& o, serialize::InputArchive& a) {
  o.lr(get_double(a, "lr")).betas({get_double(a, "beta1"), get_double(a, "beta2")});
  o.eps(get_double(a, "eps"))
      .weight_decay(get_double(a, "weight_decay"))
      .amsgrad(get_bool(a, "amsgrad"));
}
void AdamOptions::save(serialize::OutputArchive& a) const { save_adam_options(*this, a); }
void AdamOptions::load(serialize::InputArchive& a) { load_adam_options(*this, a); }
void AdamWOptions::save(serialize::OutputArchive& a) const { save_adam_options(*this, a); }
void AdamWOptions::load(serialize::InputArchive& a) { load_adam_options(*this, a); }

void AdamParamState::save(serialize::OutputArchive& a) const {
  a.write("step", step());
  put_tensor(a, "exp_avg", exp_avg());
  put_tensor(a, "exp_avg_sq", exp_avg_sq());
  put_tensor(a, "max_exp_avg_sq", max_exp_avg_sq());
}
void AdamParamState::load(serialize::InputArchive& a) {
  int64_t s = 0;
  a.read("step", s);
  step(s).exp_avg(get_tensor(a, "exp_avg")).exp_avg_sq(get_tensor(a, "exp_avg_sq"));
  max_exp_avg_sq(get_tensor(a, "max_exp_avg_sq"));
}

void RMSpropOptions::save(serialize::OutputArchive& a) const {
  put(a, "lr", lr());
  put(a, "alpha", alpha());
  put(a, "eps", eps());
  put(a, "weight_decay", weight_decay());
  put(a, "momentum", momentum());
  put(a, "centered", centered());
}
void RMSpropOptions::load(serialize::InputArchive& a) {
  lr(get_double(a, "lr")).alpha(get_double(a, "alpha")).eps(get_double(a, "eps"));
  weight_decay(get_double(a, "weight_decay"))
      .momentum(get_double(a, "momentum"))
      .centered(get_bool(a, "centered"));
}
void RMSpropParamState::save(serialize::OutputArchive& a) const {
  a.write("step", step());
  put_tensor(a, "square_avg", square_avg());
  put_tensor(a, "momentum_buffer", momentum_buffer());
  put_tensor(a, "grad_avg", grad_avg());
}
void RMSpropParamState::load(serialize::InputArchive& a) {
  int64_t s = 0;
  a.read("step", s);
  step(s).square_avg(get_tensor(a, "square_avg")).momentum_buffer(get_tensor(a, "momentum_buffer"));
  grad_avg(get_tensor(a, "grad_avg"));
}

void AdagradOptions::save(serialize::OutputArchive& a) const {
  put(a, "lr", lr());
  put(a, "lr_decay", lr_decay());
  put(a, "weight_decay", weight_decay());
  put(a, "initial_accumulator_value", initial_accumulator_value());
  put(a, "eps", eps());
}
void AdagradOptions::load(serialize::InputArchive& a) {
  lr(get_double(a, "lr"))
      .lr_decay(get_double(a, "lr_decay"))
      .weight_decay(get_double(a, "weight_decay"));
  initial_accumulator_value(get_double(a, "initial_accumulator_value")).eps(get_double(a, "eps"));
}
void AdagradParamState::save(serialize::OutputArchive& a) const {
  a.write("step", step());
  put_tensor(a, "sum", sum());
}
void AdagradParamState::load(serialize::InputArchive& a) {
  int64_t s = 0;
  a.read("step", s);
  step(s).sum(get_tensor(a, "sum"));
}

// ---- the updates -----------------------------------------------------------------------

SGD::SGD(std::vector<OptimizerParamGroup> groups, SGDOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<SGDOptions>(defaults)) {
  check_lr("SGD", defaults.lr());
  check_non_negative("SGD", "momentum", defaults.momentum());
  check_non_negative("SGD", "weight_decay", defaults.weight_decay());
  NABLA_CHECK(!defaults.nesterov() || (defaults.momentum() > 0 && defaults.dampening() == 0),
              "SGD: Nesterov momentum requires a momentum and zero dampening");
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard guard;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor d = p.grad();
      if (o.weight_decay() != 0) d = d.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        auto& s = state_for<SGDParamState>(p);
        if (!s.momentum_buffer().defined()) {
          s.momentum_buffer(d.clone().detach());
        } else {
          s.momentum_buffer().mul_(o.momentum()).add_(d, 1 - o.dampening());
        }
        d = o.nesterov() ? d.add(s.momentum_buffer(), o.momentum()) : s.momentum_buffer();
      }
      p.add_(d, -o.lr());
    }
  }
  return loss;
}

Adam::Adam(std::vector<OptimizerParamGroup> groups, AdamOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<AdamOptions>(defaults)) {
  check_adam_options("Adam", defaults);
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard guard;
  adam_step<AdamOptions>(
      param_groups_, /*decoupled=*/false, [this](const Tensor& p) -> auto& {
        return state_for<AdamParamState>(p);
      });
  return loss;
}

AdamW::AdamW(std::vector<OptimizerParamGroup> groups, AdamWOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<AdamWOptions>(defaults)) {
  check_adam_options("AdamW", defaults);
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard guard;
  adam_step<AdamWOptions>(
      param_groups_, /*decoupled=*/true, [this](const Tensor& p) -> auto& {
        return state_for<AdamParamState>(p);
      });
  return loss;
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> groups, RMSpropOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<RMSpropOptions>(defaults)) {
  check_lr("RMSprop", defaults.lr());
  check_non_negative("RMSprop", "eps", defaults.eps());
  check_non_negative("RMSprop", "momentum", defaults.momentum());
  check_non_negative("RMSprop", "weight_decay", defaults.weight_decay());
  check_non_negative("RMSprop", "alpha", defaults.alpha());
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard guard;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = state_for<RMSpropParamState>(p);
      if (!s.square_avg().defined()) {
        s.square_avg(zeros_like(p));
        if (o.momentum() > 0) s.momentum_buffer(zeros_like(p));
        if (o.centered()) s.grad_avg(zeros_like(p));
      }
      s.step(s.step() + 1);
      Tensor grad = p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.square_avg().mul_(o.alpha()).addcmul_(grad, grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        s.grad_avg().mul_(o.alpha()).add_(grad, 1 - o.alpha());
        avg = s.square_avg().addcmul(s.grad_avg(), s.grad_avg(), -1).sqrt().add_(o.eps());
      } else {
        avg = s.square_avg().sqrt().add_(o.eps());
      }
      if (o.momentum() > 0) {
        s.momentum_buffer().mul_(o.momentum()).addcdiv_(grad, avg);
        p.add_(s.momentum_buffer(), -o.lr());
      } else {
        p.addcdiv_(grad, avg, -o.lr());
      }
    }
  }
  return loss;
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> groups, AdagradOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<AdagradOptions>(defaults)) {
  check_lr("Adagrad", defaults.lr());
  check_non_negative("Adagrad", "lr_decay", defaults.lr_decay());
  check_non_negative("Adagrad", "weight_decay", defaults.weight_decay());
  check_non_negative("Adagrad", "initial_accumulator_value", defaults.initial_accumulator_value());
  check_non_negative("Adagrad", "eps", defaults.eps());
  // LibTorch creates every parameter's state here, so state() holds it before any step.
  for (auto& group : param_groups_) {
    const double init =
        static_cast<const AdagradOptions&>(group.options()).initial_accumulator_value();
    for (const auto& p : group.params())
      state_for<AdagradParamState>(p, [&] { return adagrad_state(p, init); });
  }
}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard guard;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = state_for<AdagradParamState>(
          p, [&] { return adagrad_state(p, o.initial_accumulator_value()); });
      s.step(s.step() + 1);
      Tensor grad = p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const double clr = o.lr() / (1 + static_cast<double>(s.step() - 1) * o.lr_decay());
      s.sum().addcmul_(grad, grad, 1.0);
      p.addcdiv_(grad, s.sum().sqrt().add_(o.eps()), -clr);
    }
  }
  return loss;
}

// ---- LibTorch's layout before 1.5 ------------------------------------------------------

bool SGD::load_pre_1_5(serialize::InputArchive& a) {
  if (!a.contains("momentum_buffers/size")) return false;
  NABLA_WARN(old_format_warning("SGD"));
  auto buffers = old_buffers(a, "momentum_buffers");
  if (a.contains("iteration_")) {  // LibTorch 1.4's step count, unused since
    IValue unused;
    a.read("iteration_", unused);
  }
  const auto& params = old_params(param_groups_, buffers.size(), "SGD");
  for (size_t k = 0; k < buffers.size(); ++k) {
    auto s = std::make_unique<SGDParamState>();
    s->momentum_buffer(on_device_of(buffers[k], params[k]));
    state_[state_key(params[k])] = std::move(s);
  }
  return true;
}

bool Adam::load_pre_1_5(serialize::InputArchive& a) {
  return load_old_adam(a, "Adam", param_groups_, state_);
}

bool AdamW::load_pre_1_5(serialize::InputArchive& a) {
  return load_old_adam(a, "AdamW", param_groups_, state_);
}

bool RMSprop::load_pre_1_5(serialize::InputArchive& a) {
  if (!a.contains("square_average_buffers/size")) return false;
  NABLA_WARN(old_format_warning("RMSprop",
                                "The step value in state will be set to 0 because the old "
                                "RMSprop optimizer didn't track the step value. "));
  auto square_avg = old_buffers(a, "square_average_buffers");
  auto momentum = old_buffers(a, "momentum_buffers");
  auto grad_avg = old_buffers(a, "grad_average_buffers");
  const auto& params = old_params(param_groups_, square_avg.size(), "RMSprop");
  for (size_t k = 0; k < square_avg.size(); ++k) {
    auto s = std::make_unique<RMSpropParamState>();
    s->square_avg(on_device_of(square_avg[k], params[k]));
    if (k < momentum.size()) s->momentum_buffer(on_device_of(momentum[k], params[k]));
    if (k < grad_avg.size()) s->grad_avg(on_device_of(grad_avg[k], params[k]));
    state_[state_key(params[k])] = std::move(s);
  }
  return true;
}

bool Adagrad::load_pre_1_5(serialize::InputArchive& a) {
  if (!a.contains("sum_buffers/size")) return false;
  NABLA_WARN(old_format_warning("Adagrad"));
  auto sums = old_buffers(a, "sum_buffers");
  auto steps = old_buffers(a, "step_buffers");
  const auto& params = old_params(param_groups_, sums.size(), "Adagrad");
  for (size_t k = 0; k < sums.size(); ++k) {
    auto s = std::make_unique<AdagradParamState>();
    s->sum(on_device_of(sums[k], params[k]));
    s->step(k < steps.size() ? steps[k].item<int64_t>() : 0);
    state_[state_key(params[k])] = std::move(s);
  }
  return true;
}

}  // namespace nabla::optim
