// L-BFGS: LibTorch 1.13's torch::optim::LBFGS, operation for operation (the same tensor
// ops in the same order, scalars taken out as doubles where LibTorch takes them), so that
// parameters and state agree with LibTorch's after every step.
#include "nabla/optim/lbfgs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <tuple>
#include <utility>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/warning.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/serialize/archive.h"

namespace nabla::optim {

namespace {

double value_of(const Tensor& t) { return t.item<double>(); }

// The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped
// to `bounds` (default: the interval between x1 and x2); the interval's middle when the
// cubic has no minimum (torch/optim's polyinterp, its common case).
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         optional<std::pair<double, double>> bounds = nullopt) {
  double lo = std::min(x1, x2);
  double hi = std::max(x1, x2);
  if (bounds) std::tie(lo, hi) = *bounds;
  const double d1 = (g1 + g2) - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  const double d2 = std::sqrt(d2_square);
  // Measured from the farther point.
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}

// A trial step of the line search: its length, the loss and flat gradient there, and the
// directional derivative g.d (a 0-d tensor, as LibTorch keeps it).
struct Trial {
  double t = 0;
  double f = 0;
  Tensor g;
  Tensor gtd;
};

struct LineSearchResult {
  double f;
  Tensor g;
  double t;
  int64_t evals;
};

// The loss and flat gradient at x + t d.
using Evaluate = std::function<std::tuple<double, Tensor>(double t)>;

// A step length along d satisfying the strong Wolfe conditions
//   f(t) <= f(0) + c1 t f'(0)  and  |f'(t)| <= -c2 f'(0),
// found by bracketing (the step grows by cubic extrapolation until an interval must hold
// such a point) and then zooming (cubic interpolation inside the interval, kept away from
// its ends). Returns the best point found within max_ls evaluations.
LineSearchResult strong_wolfe(const Evaluate& evaluate, double t, const Tensor& d, double f,
                              Tensor g, const Tensor& gtd, double c1 = 1e-4, double c2 = 0.9,
                              double tolerance_change = 1e-9, int max_ls = 25) {
  const double d_norm = value_of(d.abs().max());
  const double gtd0 = value_of(gtd);
  g = g.clone(MemoryFormat::Contiguous);
  auto [f_new, g_new] = evaluate(t);
  int64_t evals = 1;
  Tensor gtd_new = g_new.dot(d);

  // Bracketing.
  Trial prev{0, f, g, gtd};
  std::array<Trial, 2> bracket;
  bool done = false;
  int ls_iter = 0;
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd0 || (ls_iter > 1 && f_new >= prev.f)) {
      bracket = {prev, Trial{t, f_new, g_new.clone(MemoryFormat::Contiguous), gtd_new}};
      break;
    }
    if (std::abs(value_of(gtd_new)) <= -c2 * gtd0) {
      bracket = {Trial{t, f_new, g_new, {}}, Trial{t, f_new, g_new, {}}};
      done = true;
      break;
    }
    if (value_of(gtd_new) >= 0) {
      bracket = {prev, Trial{t, f_new, g_new.clone(MemoryFormat::Contiguous), gtd_new}};
      break;
    }
    // Extrapolate to a longer step, between 1.01 t and 10 t.
    const double min_step = t + 0.01 * (t - prev.t);
    const double max_step = t * 10;
    const double next = cubic_interpolate(prev.t, prev.f, value_of(prev.gtd), t, f_new,
                                          value_of(gtd_new), std::make_pair(min_step, max_step));
    prev = Trial{t, f_new, g_new.clone(MemoryFormat::Contiguous), gtd_new};
    t = next;
    std::tie(f_new, g_new) = evaluate(t);
    ++evals;
    gtd_new = g_new.dot(d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    // Out of evaluations: the better of the start and the last step (their slopes are not
    // needed, the zoom below does not run).
    bracket = {Trial{0, f, g, {}}, Trial{t, f_new, g_new, {}}};
  }

  // Zooming: shrink the bracket around a point satisfying the conditions.
  bool insufficient_progress = false;
  int low = bracket[0].f <= bracket[1].f ? 0 : 1;
  int high = 1 - low;
  while (!done && ls_iter < max_ls) {
    t = cubic_interpolate(bracket[0].t, bracket[0].f, value_of(bracket[0].gtd), bracket[1].t,
                          bracket[1].f, value_of(bracket[1].gtd));
    // A trial within 10% of an end twice running, or outside the bracket, moves to 10%
    // inside the nearer end.
    const double b_max = std::max(bracket[0].t, bracket[1].t);
    const double b_min = std::min(bracket[0].t, bracket[1].t);
    const double eps = 0.1 * (b_max - b_min);
    if (std::min(b_max - t, t - b_min) < eps) {
      if (insufficient_progress || t >= b_max || t <= b_min) {
        t = std::abs(t - b_max) < std::abs(t - b_min) ? b_max - eps : b_min + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }

    std::tie(f_new, g_new) = evaluate(t);
    ++evals;
    gtd_new = g_new.dot(d);
    ++ls_iter;

    Trial trial{t, f_new, g_new.clone(MemoryFormat::Contiguous), gtd_new};
    if (f_new > f + c1 * t * gtd0 || f_new >= bracket[low].f) {
      // Not a sufficient decrease, or no better than the low end: the new high end.
      bracket[high] = std::move(trial);
      low = bracket[0].f <= bracket[1].f ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(value_of(gtd_new)) <= -c2 * gtd0) {
        done = true;
      } else if (value_of(gtd_new) * (bracket[high].t - bracket[low].t) >= 0) {
        // The slope points away from the high end: the old low end replaces it.
        bracket[high] = bracket[low];
      }
      bracket[low] = std::move(trial);
    }
    if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change) break;
  }
  return {bracket[low].f, bracket[low].g, bracket[low].t, evals};
}

// ---- archive helpers ---------------------------------------------------------------------

void put_tensor(serialize::OutputArchive& a, const std::string& key, const Tensor& t) {
  if (t.defined()) a.write(key, t);
}
Tensor get_tensor(serialize::InputArchive& a, const std::string& key) {
  Tensor t;
  a.try_read(key, t);
  return t;
}
// A sequence of tensors as "<key>.size" and "<key>.<k>" (undefined entries left out).
template <class Seq>
void put_tensors(serialize::OutputArchive& a, const std::string& key, const Seq& seq) {
  a.write(key + ".size", static_cast<int64_t>(seq.size()));
  for (size_t k = 0; k < seq.size(); ++k) put_tensor(a, key + "." + std::to_string(k), seq[k]);
}
template <class Seq>
Seq get_tensors(serialize::InputArchive& a, const std::string& key,
                const std::string& separator = ".") {
  int64_t size = 0;
  a.read(key + separator + "size", size);
  NABLA_CHECK(size >= 0, "LBFGS load: ", key, " has a negative size ", size);
  Seq seq(static_cast<size_t>(size));
  for (size_t k = 0; k < seq.size(); ++k)
    seq[k] = get_tensor(a, key + separator + std::to_string(k));
  return seq;
}

}  // namespace

// ---- options and state serialisation ---------------------------------------------------

void LBFGSOptions::save(serialize::OutputArchive& a) const {
  a.write("lr", lr());
  a.write("max_iter", max_iter());
  if (max_eval()) a.write("max_eval", *max_eval());
  a.write("tolerance_grad", tolerance_grad());
  a.write("tolerance_change", tolerance_change());
  a.write("history_size", history_size());
  if (line_search_fn()) a.write("line_search_fn", IValue(*line_search_fn()));
}

void LBFGSOptions::load(serialize::InputArchive& a) {
  a.read("lr", lr_);
  a.read("max_iter", max_iter_);
  max_eval_ = nullopt;
  if (a.contains("max_eval")) {
    int64_t v = 0;
    a.read("max_eval", v);
    max_eval_ = v;
  }
  a.read("tolerance_grad", tolerance_grad_);
  a.read("tolerance_change", tolerance_change_);
  a.read("history_size", history_size_);
  IValue fn;
  line_search_fn_ =
      a.try_read("line_search_fn", fn) ? optional<std::string>(fn.toStringRef()) : nullopt;
}

void LBFGSParamState::save(serialize::OutputArchive& a) const {
  a.write("func_evals", func_evals());
  a.write("n_iter", n_iter());
  a.write("t", t());
  a.write("prev_loss", prev_loss());
  put_tensor(a, "d", d());
  put_tensor(a, "H_diag", H_diag());
  put_tensor(a, "prev_flat_grad", prev_flat_grad());
  put_tensors(a, "old_dirs", old_dirs());
  put_tensors(a, "old_stps", old_stps());
  put_tensors(a, "ro", ro());
  if (al()) put_tensors(a, "al", *al());
}

void LBFGSParamState::load(serialize::InputArchive& a) {
  a.read("func_evals", func_evals_);
  a.read("n_iter", n_iter_);
  a.read("t", t_);
  a.read("prev_loss", prev_loss_);
  d_ = get_tensor(a, "d");
  H_diag_ = get_tensor(a, "H_diag");
  prev_flat_grad_ = get_tensor(a, "prev_flat_grad");
  old_dirs_ = get_tensors<std::deque<Tensor>>(a, "old_dirs");
  old_stps_ = get_tensors<std::deque<Tensor>>(a, "old_stps");
  ro_ = get_tensors<std::deque<Tensor>>(a, "ro");
  al_ = nullopt;
  if (a.contains("al.size")) al_ = get_tensors<std::vector<Tensor>>(a, "al");
}

// ---- the optimizer -----------------------------------------------------------------------

LBFGS::LBFGS(std::vector<OptimizerParamGroup> groups, LBFGSOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<LBFGSOptions>(defaults)) {
  NABLA_CHECK(param_groups_.size() == 1,
              "LBFGS doesn't support per-parameter options (parameter groups): got ",
              param_groups_.size(), " groups");
  NABLA_CHECK(defaults.lr() >= 0, "LBFGS: invalid learning rate ", defaults.lr(),
              " (expected >= 0)");
  if (!defaults.max_eval()) {
    const int64_t max_eval = defaults.max_iter() * 5 / 4;
    static_cast<LBFGSOptions&>(param_groups_[0].options()).max_eval(max_eval);
    static_cast<LBFGSOptions&>(*defaults_).max_eval(max_eval);
  }
}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const auto& p : param_groups_[0].params()) n += p.numel();
  return n;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const auto& p : param_groups_[0].params())
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : p.new_zeros({p.numel()}));
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (auto& p : param_groups_[0].params()) {
    const int64_t n = p.numel();
    p.add_(update.slice(0, offset, offset + n).view_as(p), step_size);
    offset += n;
  }
}

std::tuple<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure,
                                                       const std::vector<Tensor>& x, double t,
                                                       const Tensor& d) {
  add_grad(t, d);
  const double loss = value_of(run_closure(closure));
  Tensor flat_grad = gather_flat_grad();
  auto& params = param_groups_[0].params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x[i]);
  return {loss, std::move(flat_grad)};
}

Tensor LBFGS::step(LossClosure closure) {
  NABLA_CHECK(closure != nullptr,
              "LBFGS::step: LBFGS requires a closure function (one that zeroes the gradients, "
              "recomputes the loss, calls backward and returns the loss)");
  NABLA_CHECK(param_groups_.size() == 1,
              "LBFGS doesn't support per-parameter options (parameter groups): it has ",
              param_groups_.size(), " groups");
  auto& params = param_groups_[0].params();
  NABLA_CHECK(!params.empty(), "LBFGS::step: there are no parameters to optimize");
  NoGradGuard no_grad;
  const auto& options = static_cast<const LBFGSOptions&>(param_groups_[0].options());
  const double lr = options.lr();
  const int64_t max_iter = options.max_iter();
  const int64_t max_eval = options.max_eval().value_or(max_iter * 5 / 4);
  const double tolerance_grad = options.tolerance_grad();
  const double tolerance_change = options.tolerance_change();
  const int64_t history_size = options.history_size();
  const optional<std::string> line_search_fn = options.line_search_fn();
  NABLA_CHECK(!line_search_fn || *line_search_fn == "strong_wolfe",
              "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got '", *line_search_fn,
              "'");

  // The state is global; as LibTorch, it is kept under the first parameter.
  auto& state = state_for<LBFGSParamState>(params[0]);

  Tensor orig_loss = run_closure(closure);
  double loss = value_of(orig_loss);
  int64_t current_evals = 1;
  state.func_evals(state.func_evals() + 1);
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = value_of(flat_grad.abs().max()) <= tolerance_grad;
  if (opt_cond) return orig_loss;

  Tensor& d = state.d();
  double& t = state.t();
  auto& old_dirs = state.old_dirs();
  auto& old_stps = state.old_stps();
  auto& ro = state.ro();
  Tensor& H_diag = state.H_diag();
  Tensor& prev_flat_grad = state.prev_flat_grad();
  double& prev_loss = state.prev_loss();

  for (int64_t n_iter = 1; n_iter <= max_iter; ++n_iter) {
    state.n_iter(state.n_iter() + 1);

    // The descent direction.
    if (state.n_iter() == 1) {
      d = flat_grad.neg();
      H_diag = scalar_tensor(int64_t{1}, TensorOptions(kLong).device(flat_grad.device()));
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
    } else {
      // Remember the last curvature pair, if the curvature is positive.
      Tensor y = flat_grad.sub(prev_flat_grad);
      Tensor s = d.mul(t);
      Tensor ys = y.dot(s);
      if (value_of(ys) > 1e-10) {
        if (static_cast<int64_t>(old_dirs.size()) == history_size) {
          old_dirs.pop_front();
          old_stps.pop_front();
          ro.pop_front();
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(ys.reciprocal());
        H_diag = ys / y.dot(y);  // the initial inverse Hessian's scale
      }
      // Two-loop recursion: d = -H g.
      const size_t num_old = old_dirs.size();
      if (!state.al()) state.al(std::vector<Tensor>(static_cast<size_t>(history_size)));
      auto& al = *state.al();
      if (al.size() < num_old) al.resize(num_old);  // history_size grew since
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = old_stps[k].dot(q) * ro[k];
        q.add_(old_dirs[k], -value_of(al[k]));
      }
      Tensor r = q.mul(H_diag);
      d = r;  // r is finished in place below
      for (size_t k = 0; k < num_old; ++k) {
        Tensor be_k = old_dirs[k].dot(r) * ro[k];
        r.add_(old_stps[k], value_of(al[k] - be_k));
      }
    }

    if (!prev_flat_grad.defined()) {
      prev_flat_grad = flat_grad.clone(MemoryFormat::Contiguous);
    } else {
      prev_flat_grad.copy_(flat_grad);
    }
    prev_loss = loss;

    // The step length: scaled by the gradient on the very first iteration.
    t = state.n_iter() == 1 ? std::min(1., 1. / value_of(flat_grad.abs().sum())) * lr : lr;

    Tensor gtd = flat_grad.dot(d);
    if (value_of(gtd) > -tolerance_change) break;  // not a descent direction any more

    int64_t ls_func_evals = 0;
    if (line_search_fn) {
      std::vector<Tensor> x_init;
      for (const auto& p : params) x_init.push_back(p.clone(MemoryFormat::Contiguous));
      auto evaluate = [&](double step) { return directional_evaluate(closure, x_init, step, d); };
      auto found = strong_wolfe(evaluate, t, d, loss, flat_grad, gtd);
      loss = found.f;
      flat_grad = found.g;
      t = found.t;
      ls_func_evals = found.evals;
      add_grad(t, d);
      opt_cond = value_of(flat_grad.abs().max()) <= tolerance_grad;
    } else {
      add_grad(t, d);
      // The last iteration skips the evaluation: its result would go unused.
      if (n_iter != max_iter) {
        loss = value_of(run_closure(closure));
        flat_grad = gather_flat_grad();
        opt_cond = value_of(flat_grad.abs().max()) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals(state.func_evals() + ls_func_evals);

    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (value_of(d.mul(t).abs().max()) <= tolerance_change) break;  // no progress in x
    if (std::abs(loss - prev_loss) < tolerance_change) break;       // nor in the loss
  }
  return orig_loss;
}

void LBFGS::save(serialize::OutputArchive& archive) const {
  save_param_groups(archive);
  const auto& params = param_groups_[0].params();
  if (params.empty()) return;
  auto it = state_.find(state_key(params[0]));
  if (it == state_.end()) return;
  serialize::OutputArchive s;
  it->second->save(s);
  archive.write("state.0", s);
}

void LBFGS::load(serialize::InputArchive& archive) {
  const auto& params = param_groups_[0].params();
  NABLA_CHECK(!params.empty(), "LBFGS load: the optimizer has no parameters");
  auto state = std::make_unique<LBFGSParamState>();
  const optional<Device> archive_device = archive.device();
  archive.set_device(params[0].device());
  if (archive.contains("old_dirs/size")) {
    // LibTorch's format before 1.5: the state's tensors at the top level, no options.
    NABLA_WARN(
        "Your serialized LBFGS optimizer is still using the old serialization format. The "
        "func_evals and n_iter value in state will be set to 0, ro will be set to an empty "
        "deque and al will be set to nullopt because the old LBFGS optimizer didn't save "
        "these values. You should re-save your LBFGS optimizer to use the new serialization "
        "format.");
    Tensor t, prev_loss;
    archive.read("d", state->d(), /*is_buffer=*/true);
    archive.read("t", t, /*is_buffer=*/true);
    archive.read("H_diag", state->H_diag(), /*is_buffer=*/true);
    archive.read("prev_flat_grad", state->prev_flat_grad(), /*is_buffer=*/true);
    archive.read("prev_loss", prev_loss, /*is_buffer=*/true);
    state->t(value_of(t)).prev_loss(value_of(prev_loss));
    state->old_dirs(get_tensors<std::deque<Tensor>>(archive, "old_dirs", "/"));
    state->old_stps(get_tensors<std::deque<Tensor>>(archive, "old_stps", "/"));
  } else {
    load_param_groups(archive);
    state_.clear();
    serialize::InputArchive s;
    if (!archive.try_read("state.0", s)) {
      archive.set_device(archive_device);
      return;
    }
    state->load(s);
    const int64_t n = numel();
    for (const Tensor* flat : {&state->d(), &state->prev_flat_grad()})
      NABLA_CHECK(!flat->defined() || flat->numel() == n, "LBFGS load: the state holds ",
                  flat->numel(), " values per flat vector, but the parameters have ", n);
  }
  archive.set_device(archive_device);
  state_[state_key(params[0])] = std::move(state);
}

}  // namespace nabla::optim
