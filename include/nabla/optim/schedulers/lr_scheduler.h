#pragma once
// Learning-rate schedulers, as torch::optim's. Call step() once per epoch (after the
// optimizer's steps); the scheduler sets every group's lr.
//
// Counting follows LibTorch 1.13's C++ LRScheduler: the k-th call of step() computes the
// new rates with step_count() == k - 1, then increments it. StepLR therefore decays on
// calls step_size + 1, 2 step_size + 1, ... exactly as LibTorch's (Python's StepLR,
// whose constructor makes an implicit first step, decays one call earlier). The other
// schedulers give Python's rates after k calls: lr_k = f(k).
#include <functional>
#include <string>
#include <vector>

#include "nabla/optim/optimizer.h"

namespace nabla::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  void step();
  /// The rates set by the last step (the initial rates before any).
  std::vector<double> get_last_lr() const { return last_lrs_; }
  unsigned step_count() const { return step_count_; }

 protected:
  /// The new rate of every group, from step_count_ and the current/initial rates.
  virtual std::vector<double> get_lrs() = 0;
  std::vector<double> get_current_lrs() const;
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  unsigned step_count_ = 0;

 private:
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lrs_;
};

/// lr *= gamma every step_size steps (LibTorch's counting, see above).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;
  unsigned step_size_;
  double gamma_;
};

/// lr = base * gamma^(number of milestones <= k).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

/// lr = base * gamma^k.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  std::vector<double> get_lrs() override;
  double gamma_;
};

/// lr = eta_min + (base - eta_min) (1 + cos(pi k / T_max)) / 2 (Python's closed form).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 private:
  std::vector<double> get_lrs() override;
  int64_t t_max_;
  double eta_min_;
};

/// lr = base * lambda(k) (one lambda for all groups, or one per group).
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lambda);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lambdas);

 private:
  std::vector<double> get_lrs() override;
  std::vector<Lambda> lambdas_;
};

/// Lowers the rates by `factor` when the metric passed to step(metric) has not improved
/// for `patience` calls (LibTorch 1.13's ReduceLROnPlateauScheduler).
class ReduceLROnPlateauScheduler {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };
  ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode = min, float factor = 0.1,
                             int patience = 10, double threshold = 1e-4,
                             ThresholdMode threshold_mode = rel, int cooldown = 0,
                             const std::vector<float>& min_lr = std::vector<float>(),
                             double eps = 1e-8, bool verbose = false);
  void step(float metric);
  std::vector<double> get_last_lr() const;

 private:
  bool is_better(float a) const;
  Optimizer& optimizer_;
  SchedulerMode mode_;
  float factor_;
  int patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int cooldown_;
  int cooldown_counter_ = 0;
  std::vector<float> min_lrs_;
  double eps_;
  bool verbose_;
  float best_;
  int num_bad_epochs_ = 0;
  int last_epoch_ = 0;
};
using ReduceLROnPlateau = ReduceLROnPlateauScheduler;

}  // namespace nabla::optim
