// Every optimizer against LibTorch's, step for step: the same float64 start, the same
// deterministic loss, ten steps (LBFGS: six, each of many closure calls); the parameters
// must agree to 1e-10 relative.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>

#include <nabla/nabla.h>

namespace {

// Parameters: a [4, 3] matrix and a [3] vector; loss = sum((x W + v)^2 sin-ish) with a
// fixed input, so gradients differ per element and change every step.
template <class T, class Lib>
T loss_of(const std::vector<T>& p, Lib lib) {
  T x = lib.input();
  T y = (x.matmul(p[0]) + p[1]).tanh();
  return (y * y).sum() + (p[0] * p[0] * p[0]).sum() * 0.1 + p[1].sin().sum();
}

struct TorchLib {
  at::Tensor input() const { return torch::arange(8, torch::kDouble).view({2, 4}) * 0.1 - 0.3; }
};
struct NablaLib {
  nabla::Tensor input() const { return nabla::arange(8, nabla::kDouble).view({2, 4}) * 0.1 - 0.3; }
};

std::vector<double> start_values(int64_t n, double scale) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(scale * std::sin(1.0 + 0.7 * static_cast<double>(i)));
  return v;
}

template <class TorchOpt, class NablaOpt, class TOpts, class NOpts>
void compare(const std::string& name, TOpts topts, NOpts nopts, int steps = 10) {
  auto w0 = start_values(12, 0.5), b0 = start_values(3, 0.3);
  std::vector<at::Tensor> tp{torch::tensor(w0, torch::kDouble).view({4, 3}).requires_grad_(),
                             torch::tensor(b0, torch::kDouble).requires_grad_()};
  std::vector<nabla::Tensor> np{
      nabla::tensor(w0, nabla::kDouble).view({4, 3}).detach().requires_grad_(),
      nabla::tensor(b0, nabla::kDouble).detach().requires_grad_()};
  TorchOpt topt(tp, topts);
  NablaOpt nopt(np, nopts);
  for (int s = 0; s < steps; ++s) {
    topt.zero_grad();
    loss_of(tp, TorchLib{}).backward();
    topt.step();
    nopt.zero_grad();
    loss_of(np, NablaLib{}).backward();
    nopt.step();
  }
  for (size_t i = 0; i < tp.size(); ++i) {
    at::Tensor want = tp[i].detach().contiguous();
    nabla::Tensor got = np[i].detach().contiguous();
    ASSERT_EQ(want.numel(), got.numel());
    const double* w = want.data_ptr<double>();
    const double* g = got.data_ptr<double>();
    for (int64_t k = 0; k < want.numel(); ++k)
      EXPECT_NEAR(g[k], w[k], 1e-10 * (1 + std::abs(w[k])))
          << name << " param " << i << " element " << k;
  }
}

}  // namespace

TEST(OptimizersVsLibTorch, SGD) {
  compare<torch::optim::SGD, nabla::optim::SGD>("plain", torch::optim::SGDOptions(0.1),
                                                nabla::optim::SGDOptions(0.1));
  compare<torch::optim::SGD, nabla::optim::SGD>(
      "momentum", torch::optim::SGDOptions(0.05).momentum(0.9).dampening(0.1).weight_decay(0.01),
      nabla::optim::SGDOptions(0.05).momentum(0.9).dampening(0.1).weight_decay(0.01));
  compare<torch::optim::SGD, nabla::optim::SGD>(
      "nesterov", torch::optim::SGDOptions(0.05).momentum(0.8).nesterov(true),
      nabla::optim::SGDOptions(0.05).momentum(0.8).nesterov(true));
}

TEST(OptimizersVsLibTorch, Adam) {
  compare<torch::optim::Adam, nabla::optim::Adam>("default", torch::optim::AdamOptions(0.01),
                                                  nabla::optim::AdamOptions(0.01));
  compare<torch::optim::Adam, nabla::optim::Adam>(
      "amsgrad+wd",
      torch::optim::AdamOptions(0.02).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1).amsgrad(true),
      nabla::optim::AdamOptions(0.02).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1).amsgrad(true));
}

TEST(OptimizersVsLibTorch, AdamW) {
  compare<torch::optim::AdamW, nabla::optim::AdamW>("default", torch::optim::AdamWOptions(0.01),
                                                    nabla::optim::AdamWOptions(0.01));
  compare<torch::optim::AdamW, nabla::optim::AdamW>(
      "amsgrad", torch::optim::AdamWOptions(0.03).weight_decay(0.2).amsgrad(true),
      nabla::optim::AdamWOptions(0.03).weight_decay(0.2).amsgrad(true));
}

TEST(OptimizersVsLibTorch, RMSprop) {
  compare<torch::optim::RMSprop, nabla::optim::RMSprop>(
      "default", torch::optim::RMSpropOptions(0.01), nabla::optim::RMSpropOptions(0.01));
  compare<torch::optim::RMSprop, nabla::optim::RMSprop>(
      "centered+momentum",
      torch::optim::RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(0.05),
      nabla::optim::RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(
          0.05));
}

TEST(OptimizersVsLibTorch, Adagrad) {
  compare<torch::optim::Adagrad, nabla::optim::Adagrad>(
      "default", torch::optim::AdagradOptions(0.1), nabla::optim::AdagradOptions(0.1));
  compare<torch::optim::Adagrad, nabla::optim::Adagrad>(
      "decay",
      torch::optim::AdagradOptions(0.1).lr_decay(0.05).weight_decay(0.01).initial_accumulator_value(
          0.3),
      nabla::optim::AdagradOptions(0.1).lr_decay(0.05).weight_decay(0.01).initial_accumulator_value(
          0.3));
}

// LBFGS runs many iterations per step, each calling the closure, so its loss must be
// bounded below (loss_of's cubic term is not): quartic and quadratic terms instead.
template <class T, class Lib>
T bounded_loss_of(const std::vector<T>& p, Lib lib) {
  T y = (lib.input().matmul(p[0]) + p[1]).tanh();
  return (y * y).sum() + (p[0] * p[0] * p[0] * p[0]).sum() * 0.1 +
         ((p[1] - 0.2) * (p[1] - 0.2)).sum() + p[1].sin().sum() * 0.3;
}

// The parameters, the loss and the global state's counters must agree with LibTorch's
// after every step.
void compare_lbfgs(const std::string& name, torch::optim::LBFGSOptions topts,
                   nabla::optim::LBFGSOptions nopts, double tol = 1e-10, int steps = 6) {
  auto w0 = start_values(12, 0.5), b0 = start_values(3, 0.3);
  std::vector<at::Tensor> tp{torch::tensor(w0, torch::kDouble).view({4, 3}).requires_grad_(),
                             torch::tensor(b0, torch::kDouble).requires_grad_()};
  std::vector<nabla::Tensor> np{
      nabla::tensor(w0, nabla::kDouble).view({4, 3}).detach().requires_grad_(),
      nabla::tensor(b0, nabla::kDouble).detach().requires_grad_()};
  torch::optim::LBFGS topt(tp, topts);
  nabla::optim::LBFGS nopt(np, nopts);
  int tcalls = 0, ncalls = 0;
  auto tclosure = [&] {
    ++tcalls;
    topt.zero_grad();
    auto loss = bounded_loss_of(tp, TorchLib{});
    loss.backward();
    return loss;
  };
  auto nclosure = [&] {
    ++ncalls;
    nopt.zero_grad();
    auto loss = bounded_loss_of(np, NablaLib{});
    loss.backward();
    return loss;
  };
  for (int s = 0; s < steps; ++s) {
    const double tloss = topt.step(tclosure).item<double>();
    const double nloss = nopt.step(nclosure).item<double>();
    EXPECT_NEAR(nloss, tloss, tol * (1 + std::abs(tloss))) << name << " step " << s;
    EXPECT_EQ(ncalls, tcalls) << name << " step " << s;
    for (size_t i = 0; i < tp.size(); ++i) {
      at::Tensor want = tp[i].detach().contiguous();
      nabla::Tensor got = np[i].detach().contiguous();
      const double* w = want.data_ptr<double>();
      const double* g = got.data_ptr<double>();
      for (int64_t k = 0; k < want.numel(); ++k)
        ASSERT_NEAR(g[k], w[k], tol * (1 + std::abs(w[k])))
            << name << " step " << s << " param " << i << " element " << k;
    }
    const auto& ts = static_cast<const torch::optim::LBFGSParamState&>(
        *topt.state().at(c10::guts::to_string(tp[0].unsafeGetTensorImpl())));
    const auto& ns = static_cast<const nabla::optim::LBFGSParamState&>(
        *nopt.state().at(nabla::optim::Optimizer::state_key(np[0])));
    EXPECT_EQ(ns.func_evals(), ts.func_evals()) << name << " step " << s;
    EXPECT_EQ(ns.n_iter(), ts.n_iter()) << name << " step " << s;
    EXPECT_EQ(ns.old_dirs().size(), ts.old_dirs().size()) << name << " step " << s;
    EXPECT_NEAR(ns.t(), ts.t(), tol * (1 + std::abs(ts.t()))) << name << " step " << s;
  }
}

TEST(OptimizersVsLibTorch, LBFGS) {
  compare_lbfgs("fixed step", torch::optim::LBFGSOptions(1), nabla::optim::LBFGSOptions(1));
  compare_lbfgs("fixed step, short history",
                torch::optim::LBFGSOptions(0.5).max_iter(7).history_size(3),
                nabla::optim::LBFGSOptions(0.5).max_iter(7).history_size(3));
}

TEST(OptimizersVsLibTorch, LBFGSStrongWolfe) {
  compare_lbfgs("strong_wolfe", torch::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"),
                nabla::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
  // The same evaluations and iterations (the counters agree exactly), but cubic
  // interpolation between nearby losses magnifies last-bit differences of the loss's ops
  // (sum, dot orders) to about 1e-9 after a few steps.
  compare_lbfgs(
      "strong_wolfe, short history, large lr",
      torch::optim::LBFGSOptions(3).line_search_fn("strong_wolfe").history_size(2).max_iter(9),
      nabla::optim::LBFGSOptions(3).line_search_fn("strong_wolfe").history_size(2).max_iter(9),
      1e-8);
}

TEST(SchedulersVsLibTorch, StepLR) {
  auto tp = torch::zeros({1}, torch::requires_grad());
  auto np = nabla::zeros({1}).requires_grad_();
  torch::optim::SGD topt({tp}, torch::optim::SGDOptions(1.0));
  nabla::optim::SGD nopt({np}, nabla::optim::SGDOptions(1.0));
  torch::optim::StepLR tsched(topt, 3, 0.5);
  nabla::optim::StepLR nsched(nopt, 3, 0.5);
  for (int i = 0; i < 10; ++i) {
    tsched.step();
    nsched.step();
    EXPECT_DOUBLE_EQ(nopt.param_groups()[0].options().get_lr(),
                     topt.param_groups()[0].options().get_lr())
        << i;
  }
}
