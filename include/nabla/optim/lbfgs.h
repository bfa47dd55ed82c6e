#pragma once
// L-BFGS (torch::optim::LBFGS, LibTorch 1.13's algorithm). One step runs up to max_iter
// iterations, each calling the closure (which must recompute the loss and its gradients):
//   d = -H g, H the inverse Hessian estimate from the last history_size pairs
//   (s = t d, y = g_new - g_old) by the two-loop recursion, scaled by y.s / y.y;
//   t = min(1, 1 / |g|_1) lr on the very first iteration, lr after; then either a fixed
//   step p += t d, or (line_search_fn = "strong_wolfe") a line search for t satisfying the
//   strong Wolfe conditions (c1 = 1e-4, c2 = 0.9) by cubic interpolation.
// Iterations stop at max_iter, after max_eval closure calls, when |g|_max <= tolerance_grad,
// when |t d|_max <= tolerance_change or when the loss changes by less than tolerance_change.
// The optimizer takes one parameter group. Its state is global (the parameters seen as one
// flat vector); as in LibTorch it is stored under the first parameter's key in state().
//
//   nabla::optim::LBFGS opt(model->parameters(),
//                           nabla::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
//   opt.step([&] {
//     opt.zero_grad();
//     auto loss = criterion(model->forward(x), y);
//     loss.backward();
//     return loss;
//   });
#include <deque>
#include <string>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

struct LBFGSOptions : OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1) : lr_(lr) {}  // NOLINT: implicit, as LibTorch
  NABLA_ARG(double, lr) = 1;
  NABLA_ARG(int64_t, max_iter) = 20;
  /// Closure calls per step; unset, the optimizer sets it to max_iter * 5 / 4.
  NABLA_ARG(optional<int64_t>, max_eval) = nullopt;
  NABLA_ARG(double, tolerance_grad) = 1e-7;
  NABLA_ARG(double, tolerance_change) = 1e-9;
  NABLA_ARG(int64_t, history_size) = 100;
  /// "strong_wolfe", or unset for fixed steps.
  NABLA_ARG(optional<std::string>, line_search_fn) = nullopt;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field, as LibTorch's operator==.
  friend bool operator==(const LBFGSOptions& a, const LBFGSOptions& b) {
    return a.lr() == b.lr() && a.max_iter() == b.max_iter() && a.max_eval() == b.max_eval() &&
           a.tolerance_grad() == b.tolerance_grad() &&
           a.tolerance_change() == b.tolerance_change() && a.history_size() == b.history_size() &&
           a.line_search_fn() == b.line_search_fn();
  }
};

/// The optimizer's global state (LibTorch's fields): d the last direction, t the last step
/// length, the curvature pairs (old_dirs holds the y, old_stps the s, ro 1 / y.s), al the
/// two-loop buffer (history_size entries, unset before the second iteration), the counters.
struct LBFGSParamState : OptimizerCloneableParamState<LBFGSParamState> {
  NABLA_ARG(int64_t, func_evals) = 0;
  NABLA_ARG(int64_t, n_iter) = 0;
  NABLA_ARG(double, t) = 0;
  NABLA_ARG(double, prev_loss) = 0;
  NABLA_ARG(Tensor, d);
  NABLA_ARG(Tensor, H_diag);
  NABLA_ARG(Tensor, prev_flat_grad);
  NABLA_ARG(std::deque<Tensor>, old_dirs);
  NABLA_ARG(std::deque<Tensor>, old_stps);
  NABLA_ARG(std::deque<Tensor>, ro);
  NABLA_ARG(optional<std::vector<Tensor>>, al) = nullopt;

 public:
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// Field by field (tensors: both undefined, or equal), as LibTorch's operator==.
  friend bool operator==(const LBFGSParamState& a, const LBFGSParamState& b) {
    auto same = [](const auto& x, const auto& y) {
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!detail::same_state(x[i], y[i])) return false;
      return true;
    };
    return a.func_evals() == b.func_evals() && a.n_iter() == b.n_iter() && a.t() == b.t() &&
           a.prev_loss() == b.prev_loss() && detail::same_state(a.d(), b.d()) &&
           detail::same_state(a.H_diag(), b.H_diag()) &&
           detail::same_state(a.prev_flat_grad(), b.prev_flat_grad()) &&
           same(a.old_dirs(), b.old_dirs()) && same(a.old_stps(), b.old_stps()) &&
           same(a.ro(), b.ro()) && a.al().has_value() == b.al().has_value() &&
           (!a.al() || same(*a.al(), *b.al()));
  }
};

class LBFGS : public Optimizer {
 public:
  /// Requires exactly one parameter group.
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {})
      : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

  /// Runs the iterations described above. Requires a closure (nabla::Error without one)
  /// that zeroes the gradients, recomputes the loss, calls backward and returns the loss
  /// (one element). Returns the loss of the first call. Parameters without a gradient
  /// count as zero gradient.
  Tensor step(LossClosure closure) override;

  /// Writes the group's options and the global state ("state.0.*": counters, tensors,
  /// and each history deque as "<name>.size" and "<name>.<k>").
  void save(serialize::OutputArchive& archive) const override;
  /// Reads what save wrote, or a file in LibTorch's format before 1.5 ("d", "t", "H_diag",
  /// "prev_flat_grad", "prev_loss", "old_dirs/<k>", "old_stps/<k>": with a warning, and
  /// func_evals, n_iter, ro, al left empty, as LibTorch's load).
  void load(serialize::InputArchive& archive) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state(const Tensor&) const override {
    return std::make_unique<LBFGSParamState>();
  }

 private:
  int64_t numel() const;
  Tensor gather_flat_grad() const;
  /// p += step_size * update, update being the flat direction.
  void add_grad(double step_size, const Tensor& update);
  /// Loss and flat gradient at x + t d, leaving the parameters at x.
  std::tuple<double, Tensor> directional_evaluate(const LossClosure& closure,
                                                  const std::vector<Tensor>& x, double t,
                                                  const Tensor& d);
};

}  // namespace nabla::optim
