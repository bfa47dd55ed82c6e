// The learning-rate schedulers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "nabla/optim/schedulers/lr_scheduler.h"

namespace nabla::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  base_lrs_ = get_current_lrs();
  last_lrs_ = base_lrs_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

void LRScheduler::step() {
  std::vector<double> lrs = get_lrs();
  auto& groups = optimizer_.param_groups();
  NABLA_CHECK(lrs.size() == groups.size(), "LRScheduler: ", lrs.size(), " rates for ",
              groups.size(), " parameter groups");
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lrs_ = lrs;
  ++step_count_;
}

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  NABLA_CHECK(step_size > 0, "StepLR: step_size must be positive");
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ == 0 || step_count_ % step_size_ != 0) return lrs;
  for (auto& lr : lrs) lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
}

std::vector<double> MultiStepLR::get_lrs() {
  const int64_t k = static_cast<int64_t>(step_count_) + 1;
  const auto passed =
      std::upper_bound(milestones_.begin(), milestones_.end(), k) - milestones_.begin();
  std::vector<double> lrs = base_lrs();
  for (auto& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(passed));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {}

std::vector<double> ExponentialLR::get_lrs() {
  std::vector<double> lrs = base_lrs();
  for (auto& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(step_count_ + 1));
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  NABLA_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
}

std::vector<double> CosineAnnealingLR::get_lrs() {
  const double k = static_cast<double>(step_count_ + 1);
  std::vector<double> lrs = base_lrs();
  for (auto& lr : lrs)
    lr = eta_min_ +
         (lr - eta_min_) * (1 + std::cos(std::numbers::pi * k / static_cast<double>(t_max_))) / 2;
  return lrs;
}

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lambda)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.param_groups().size(), lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lambdas)
    : LRScheduler(optimizer), lambdas_(std::move(lambdas)) {
  NABLA_CHECK(lambdas_.size() == optimizer.param_groups().size(), "LambdaLR: ", lambdas_.size(),
              " lambdas for ", optimizer.param_groups().size(), " parameter groups");
}

std::vector<double> LambdaLR::get_lrs() {
  std::vector<double> lrs = base_lrs();
  for (size_t i = 0; i < lrs.size(); ++i)
    lrs[i] *= lambdas_[i](static_cast<int64_t>(step_count_) + 1);
  return lrs;
}

ReduceLROnPlateauScheduler::ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode,
                                                       float factor, int patience, double threshold,
                                                       ThresholdMode threshold_mode, int cooldown,
                                                       const std::vector<float>& min_lr, double eps,
                                                       bool verbose)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      eps_(eps),
      verbose_(verbose) {
  NABLA_CHECK(factor < 1, "ReduceLROnPlateau: factor must be < 1, got ", factor);
  const size_t groups = optimizer.param_groups().size();
  if (min_lr.empty()) {
    min_lrs_.assign(groups, 0.f);
  } else {
    NABLA_CHECK(min_lr.size() == groups, "ReduceLROnPlateau: ", min_lr.size(),
                " min_lr values for ", groups, " parameter groups");
    min_lrs_ = min_lr;
  }
  best_ = mode == min ? std::numeric_limits<float>::infinity()
                      : -std::numeric_limits<float>::infinity();
}

bool ReduceLROnPlateauScheduler::is_better(float a) const {
  if (mode_ == min && threshold_mode_ == rel) return a < best_ * (1.0 - threshold_);
  if (mode_ == min) return a < best_ - threshold_;
  if (threshold_mode_ == rel) return a > best_ * (threshold_ + 1.0);
  return a > best_ + threshold_;
}

void ReduceLROnPlateauScheduler::step(float metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > patience_) {
    auto& groups = optimizer_.param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options().get_lr();
      const double new_lr = std::max(old_lr * factor_, static_cast<double>(min_lrs_[i]));
      if (old_lr - new_lr > eps_) {
        groups[i].options().set_lr(new_lr);
        if (verbose_)
          std::fprintf(stderr, "Epoch %d: reducing learning rate of group %zu to %.4e.\n",
                       last_epoch_, i, new_lr);
      }
    }
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
}

std::vector<double> ReduceLROnPlateauScheduler::get_last_lr() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

}  // namespace nabla::optim
