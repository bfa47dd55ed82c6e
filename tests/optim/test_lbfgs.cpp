// LBFGS: convergence (a quadratic, Rosenbrock), the counters and global state, the
// evaluation budget, save/load resuming exactly, and errors. Agreement with LibTorch step
// by step is in tests/libtorch/test_optim_libtorch.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include <nabla/nabla.h>

#include "test_util.h"

namespace optim = nabla::optim;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

// f(x) = 1/2 x'Ax - b'x with A symmetric positive definite: its gradient Ax - b vanishes
// at the minimum.
struct Quadratic {
  Tensor a =
      nabla::tensor({4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0}, nabla::kDouble).view({3, 3});
  Tensor b = nabla::tensor({1.0, -2.0, 0.5}, nabla::kDouble);
  Tensor loss(const Tensor& x) const { return 0.5 * x.dot(a.mv(x)) - b.dot(x); }
  double residual(const Tensor& x) const {
    return (a.mv(x.detach()) - b).abs().max().item<double>();
  }
};

Tensor rosenbrock(const Tensor& xy) {
  Tensor x = xy[0], y = xy[1];
  return (1 - x).pow(2) + 100 * (y - x * x).pow(2);
}

// The closure LBFGS needs: zero the gradients, recompute the loss, backward.
template <class Loss>
optim::Optimizer::LossClosure closure_of(optim::Optimizer& opt, Loss loss, int* calls = nullptr) {
  return [&opt, loss, calls] {
    if (calls) ++*calls;
    opt.zero_grad();
    Tensor l = loss();
    l.backward();
    return l;
  };
}

const optim::LBFGSParamState& global_state(optim::Optimizer& opt, const Tensor& first) {
  return static_cast<const optim::LBFGSParamState&>(
      *opt.state().at(optim::Optimizer::state_key(first)));
}

}  // namespace

TEST(LBFGS, ConvergesOnAQuadratic) {
  Quadratic q;
  for (bool wolfe : {false, true}) {
    SCOPED_TRACE(wolfe ? "strong_wolfe" : "fixed step");
    Tensor x = nabla::zeros({3}, nabla::kDouble).requires_grad_();
    // Iterations stop once the loss changes by less than tolerance_change: with the
    // default 1e-9 the residual ends near 1e-7; a loss change near double's resolution
    // (1e-16 here) bounds it near 1e-8 whatever the tolerance.
    auto options = optim::LBFGSOptions(1);
    if (wolfe) options.line_search_fn("strong_wolfe");
    optim::LBFGS opt({x}, options);
    auto closure = closure_of(opt, [&] { return q.loss(x); });
    for (int i = 0; i < 5; ++i) opt.step(closure);
    EXPECT_LE(q.residual(x), 1e-6);
  }
}

TEST(LBFGS, ConvergesOnRosenbrockWithLineSearch) {
  Tensor xy = nabla::tensor({-1.5, 2.0}, nabla::kDouble).requires_grad_();
  optim::LBFGS opt({xy}, optim::LBFGSOptions(1)
                             .line_search_fn("strong_wolfe")
                             .max_iter(50)
                             .tolerance_grad(1e-12)
                             .tolerance_change(1e-15));
  auto closure = closure_of(opt, [&] { return rosenbrock(xy); });
  Tensor first = opt.step(closure);
  for (int i = 0; i < 10; ++i) opt.step(closure);
  EXPECT_NEAR(first.item<double>(), 6.25 + 100 * 0.0625, 1e-12);  // the loss before any move
  EXPECT_NEAR(xy[0].item<double>(), 1.0, 1e-6);
  EXPECT_NEAR(xy[1].item<double>(), 1.0, 1e-6);
}

TEST(LBFGS, CountersBudgetAndGlobalState) {
  Quadratic q;
  Tensor x = nabla::zeros({3}, nabla::kDouble).requires_grad_();
  Tensor unused = nabla::ones({2}, nabla::kDouble).requires_grad_();  // never gets a gradient
  optim::LBFGS opt({x, unused}, optim::LBFGSOptions(0.5).max_iter(8).history_size(2));
  // Unset max_eval becomes max_iter * 5 / 4, in the group and the defaults alike.
  const auto& group = static_cast<const optim::LBFGSOptions&>(opt.param_groups()[0].options());
  EXPECT_EQ(group.max_eval(), nabla::optional<int64_t>(10));
  EXPECT_EQ(static_cast<const optim::LBFGSOptions&>(opt.defaults()).max_eval(), group.max_eval());

  int calls = 0;
  opt.step(closure_of(
      opt, [&] { return q.loss(x); }, &calls));
  // Fixed steps: one evaluation up front, one after each iteration but the last.
  EXPECT_EQ(calls, 8);
  ASSERT_EQ(opt.state().size(), 1u);  // one global state, under the first parameter
  const auto& s = global_state(opt, x);
  EXPECT_EQ(s.n_iter(), 8);
  EXPECT_EQ(s.func_evals(), 8);
  EXPECT_EQ(s.old_dirs().size(), 2u);  // history_size bounds the curvature pairs
  EXPECT_EQ(s.ro().size(), 2u);
  ASSERT_TRUE(s.al().has_value());
  EXPECT_EQ(s.al()->size(), 2u);
  EXPECT_EQ(s.d().numel(), 5);  // both parameters, flattened
  EXPECT_TRUE(nabla::equal(unused, nabla::ones({2}, nabla::kDouble)));  // zero gradient: no move

  // The line search stops at max_eval evaluations in all.
  Tensor y = nabla::tensor({-1.5, 2.0}, nabla::kDouble).requires_grad_();
  optim::LBFGS wolfe({y}, optim::LBFGSOptions(1).line_search_fn("strong_wolfe").max_eval(7));
  calls = 0;
  wolfe.step(closure_of(
      wolfe, [&] { return rosenbrock(y); }, &calls));
  EXPECT_LE(calls, 7 + 25);  // the search may finish its own evaluations
  EXPECT_EQ(global_state(wolfe, y).func_evals(), calls);

  // A gradient already below tolerance_grad: one evaluation, no move, no iteration.
  Tensor at_min = nabla::zeros({3}, nabla::kDouble).requires_grad_();
  optim::LBFGS done({at_min}, optim::LBFGSOptions());
  calls = 0;
  done.step(closure_of(
      done, [&] { return (at_min * at_min).sum(); }, &calls));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(global_state(done, at_min).n_iter(), 0);
}

TEST(LBFGS, SaveLoadResumesExactly) {
  auto dir = std::filesystem::temp_directory_path() / ("nabla_lbfgs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "lbfgs.safetensors").string();
  auto make_params = [] {
    return std::vector<Tensor>{nabla::tensor({-1.2, 1.0}, nabla::kDouble).requires_grad_()};
  };
  auto options = optim::LBFGSOptions(1).line_search_fn("strong_wolfe").max_iter(4).history_size(3);
  auto a = make_params();
  optim::LBFGS opt_a(a, options);
  auto closure_a = closure_of(opt_a, [&] { return rosenbrock(a[0]); });
  for (int i = 0; i < 3; ++i) opt_a.step(closure_a);
  ASSERT_EQ(global_state(opt_a, a[0]).old_dirs().size(), 3u);  // history full: wrapped
  nabla::save(opt_a, path);

  auto b = make_params();
  {
    nabla::NoGradGuard g;
    b[0].copy_(a[0]);
  }
  optim::LBFGS opt_b(b, optim::LBFGSOptions(0.1));
  nabla::load(opt_b, path);
  EXPECT_TRUE(static_cast<const optim::LBFGSOptions&>(opt_b.param_groups()[0].options()) ==
              static_cast<const optim::LBFGSOptions&>(opt_a.param_groups()[0].options()));
  ASSERT_EQ(opt_b.state().size(), 1u);
  EXPECT_TRUE(global_state(opt_b, b[0]) == global_state(opt_a, a[0]));

  auto closure_b = closure_of(opt_b, [&] { return rosenbrock(b[0]); });
  opt_a.step(closure_a);
  opt_b.step(closure_b);
  EXPECT_TRUE(a[0].equal(b[0]));
  EXPECT_TRUE(global_state(opt_b, b[0]) == global_state(opt_a, a[0]));

  // State for other parameters is refused with the reason.
  optim::LBFGS opt_c({nabla::zeros({5}, nabla::kDouble).requires_grad_()});
  expect_error([&] { nabla::load(opt_c, path); }, {"LBFGS load", "5"});
  std::filesystem::remove_all(dir);
}

TEST(LBFGS, OptionsAndStateCompareFieldByField) {
  EXPECT_TRUE(optim::LBFGSOptions() == optim::LBFGSOptions(1));
  EXPECT_FALSE(optim::LBFGSOptions() == optim::LBFGSOptions().line_search_fn("strong_wolfe"));
  EXPECT_FALSE(optim::LBFGSOptions() == optim::LBFGSOptions().max_eval(3));
  optim::LBFGSParamState s, t;
  EXPECT_TRUE(s == t);
  t.al(std::vector<Tensor>(3));
  EXPECT_FALSE(s == t);
  s.al(std::vector<Tensor>(3));
  EXPECT_TRUE(s == t);
  s.old_dirs().push_back(nabla::ones({2}));
  EXPECT_FALSE(s == t);
}

TEST(LBFGS, Errors) {
  Tensor x = nabla::zeros({2}).requires_grad_();
  optim::LBFGS opt({x});
  optim::Optimizer& base = opt;
  expect_error([&] { base.step(); }, {"LBFGS", "closure"});
  expect_error([&] { opt.step(nullptr); }, {"LBFGS", "closure"});
  Tensor y = nabla::zeros({2}).requires_grad_();
  expect_error(
      [&] {
        optim::LBFGS bad({optim::OptimizerParamGroup({x}), optim::OptimizerParamGroup({y})});
      },
      {"LBFGS", "parameter groups"});
  opt.add_param_group(optim::OptimizerParamGroup({y}));
  expect_error([&] { opt.step([] { return nabla::zeros({}); }); }, {"LBFGS", "parameter groups"});
  optim::LBFGS bogus({y}, optim::LBFGSOptions().line_search_fn("backtracking"));
  expect_error([&] { bogus.step([] { return nabla::ones({}); }); },
               {"strong_wolfe", "backtracking"});
  optim::LBFGS empty(std::vector<Tensor>{});
  expect_error([&] { empty.step([] { return nabla::ones({}); }); }, {"LBFGS", "no parameters"});
}
