// Optimizers: hand-checked steps, groups, zero_grad, closures, errors, schedulers and
// state save/load (resuming gives the same next step).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace optim = nabla::optim;
using nabla::Tensor;
using nabla::testing::expect_error;

TEST(Optim, SgdStepByHand) {
  Tensor p = nabla::tensor({1.0, 2.0}).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(0.1).momentum(0.5));
  (p * p).sum().backward();  // grad = 2p = [2, 4]
  opt.step();
  auto first = nabla::testing::values(p);
  EXPECT_NEAR(first[0], 0.8, 1e-6);
  EXPECT_NEAR(first[1], 1.6, 1e-6);
  opt.zero_grad();
  (p * p).sum().backward();  // grad [1.6, 3.2]; buf = 0.5 [2, 4] + [1.6, 3.2] = [2.6, 5.2]
  opt.step();
  auto v = nabla::testing::values(p);
  EXPECT_NEAR(v[0], 0.8 - 0.26, 1e-6);
  EXPECT_NEAR(v[1], 1.6 - 0.52, 1e-6);
  EXPECT_TRUE(p.is_leaf());
}

TEST(Optim, AdamFirstStepIsLrTimesSign) {
  Tensor p = nabla::tensor({1.0, -2.0, 0.5}, nabla::kDouble).requires_grad_();
  optim::Adam opt({p}, optim::AdamOptions(0.01));
  (p * p * p).sum().backward();
  opt.step();
  // First Adam step: m/(sqrt(v)+eps) with bias correction is sign(g) (up to eps).
  auto v = nabla::testing::values(p);
  EXPECT_NEAR(v[0], 0.99, 1e-9);
  EXPECT_NEAR(v[1], -2.01, 1e-9);
  EXPECT_NEAR(v[2], 0.49, 1e-9);
}

// Contiguous parameters take the fused kernel (KernelBackend::adam_step), others the
// tensor-op path; both must follow the same trajectory (Adam with L2 decay and amsgrad,
// AdamW with decoupled decay), in float and double.
TEST(Optim, FusedAdamMatchesTensorOps) {
  for (nabla::ScalarType dt : {nabla::kFloat, nabla::kDouble}) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE("variant " + std::to_string(variant) +
                   (dt == nabla::kFloat ? " float" : " double"));
      nabla::manual_seed(7);
      auto opts = nabla::TensorOptions().dtype(dt);
      // One large parameter (several kernel pieces, threads) and a small one.
      Tensor a0 = nabla::randn({300, 200}, opts), b0 = nabla::randn({7}, opts);
      Tensor fa = a0.clone().requires_grad_(), fb = b0.clone().requires_grad_();
      // The same values behind transposed strides: not fusable.
      Tensor sa = a0.t().contiguous().t().requires_grad_(), sb = b0.clone().requires_grad_();
      ASSERT_FALSE(sa.is_contiguous());
      auto make = [&](std::vector<Tensor> ps) -> std::unique_ptr<optim::Optimizer> {
        if (variant == 0) return std::make_unique<optim::Adam>(ps, optim::AdamOptions(0.01));
        if (variant == 1)
          return std::make_unique<optim::Adam>(
              ps, optim::AdamOptions(0.01).weight_decay(0.1).amsgrad(true));
        return std::make_unique<optim::AdamW>(ps, optim::AdamWOptions(0.01).weight_decay(0.1));
      };
      auto fused = make({fa, fb}), ops = make({sa, sb});
      for (int step = 0; step < 20; ++step) {
        for (auto* pair : {&fa, &sa}) {
          Tensor& p = *pair;
          Tensor& q = pair == &fa ? fb : sb;
          ((p * p * p).sum() + (q.sin() * p.sum()).sum()).backward();
        }
        fused->step();
        ops->step();
        fused->zero_grad();
        ops->zero_grad();
      }
      const double tol = dt == nabla::kFloat ? 1e-5 : 1e-12;
      EXPECT_LE((fa - sa).abs().max().item<double>(), tol);
      EXPECT_LE((fb - sb).abs().max().item<double>(), tol);
      EXPECT_GT((fa - a0).abs().max().item<double>(), 0.05);  // the parameters did move
    }
  }
}

TEST(Optim, GroupsZeroGradClosureErrors) {
  Tensor a = nabla::ones({2}).requires_grad_(), b = nabla::ones({2}).requires_grad_();
  optim::SGD opt({optim::OptimizerParamGroup({a}),
                  optim::OptimizerParamGroup({b}, std::make_unique<optim::SGDOptions>(1.0))},
                 optim::SGDOptions(0.1));
  EXPECT_EQ(opt.param_groups().size(), 2u);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].options().get_lr(), 1.0);
  EXPECT_DOUBLE_EQ(static_cast<optim::SGDOptions&>(opt.param_groups()[0].options()).lr(), 0.1);
  opt.param_groups()[0].options().set_lr(0.5);
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (a + b).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(loss.item<double>(), 4);
  EXPECT_EQ(nabla::testing::values(a), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(nabla::testing::values(b), (std::vector<double>{0.0, 0.0}));
  opt.zero_grad();  // LibTorch 1.13: zeroed in place by default
  EXPECT_EQ(a.grad().sum().item<double>(), 0);
  opt.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(a.grad().defined());
  expect_error([&] { opt.add_param_group(optim::OptimizerParamGroup({a})); }, {"already belongs"});
  expect_error([] { optim::Adam bad({nabla::ones({1}).requires_grad_()}, optim::AdamOptions(-1)); },
               {"Adam", "learning rate"});
  expect_error(
      [] {
        optim::Adam bad({nabla::ones({1}).requires_grad_()},
                        optim::AdamOptions().betas({1.0, 0.9}));
      },
      {"betas"});
  Tensor nonleaf = nabla::ones({1}).requires_grad_() * 2;
  expect_error([&] { optim::SGD bad({nonleaf}, 0.1); }, {"leaf"});
  expect_error([] { optim::SGD bad({nabla::ones({1}, nabla::kLong)}, 0.1); }, {"floating"});
}

TEST(Optim, SchedulerSequences) {
  Tensor p = nabla::zeros({1}).requires_grad_();
  auto lrs_of = [&](auto make, int n) {
    optim::SGD opt({p}, optim::SGDOptions(1.0));
    auto sched = make(opt);
    std::vector<double> out;
    for (int i = 0; i < n; ++i) {
      sched.step();
      out.push_back(opt.param_groups()[0].options().get_lr());
    }
    return out;
  };
  auto exp = lrs_of([](optim::SGD& o) { return optim::ExponentialLR(o, 0.5); }, 3);
  EXPECT_EQ(exp, (std::vector<double>{0.5, 0.25, 0.125}));
  auto multi = lrs_of([](optim::SGD& o) { return optim::MultiStepLR(o, {2, 4}, 0.1); }, 5);
  EXPECT_NEAR(multi[0], 1, 1e-12);
  EXPECT_NEAR(multi[1], 0.1, 1e-12);
  EXPECT_NEAR(multi[3], 0.01, 1e-12);
  auto cosine = lrs_of([](optim::SGD& o) { return optim::CosineAnnealingLR(o, 4, 0.0); }, 4);
  EXPECT_NEAR(cosine[1], 0.5, 1e-12);
  EXPECT_NEAR(cosine[3], 0.0, 1e-12);
  auto lambda = lrs_of(
      [](optim::SGD& o) { return optim::LambdaLR(o, [](int64_t k) { return 1.0 / (k + 1); }); }, 2);
  EXPECT_NEAR(lambda[1], 1.0 / 3, 1e-12);
  // ReduceLROnPlateau (not in LibTorch 1.13's C++ API): PyTorch's rule by hand. Patience
  // 1: the second non-improving metric in a row halves the rate.
  optim::SGD opt({p}, optim::SGDOptions(1.0));
  optim::ReduceLROnPlateauScheduler plateau(opt, optim::ReduceLROnPlateauScheduler::min, 0.5, 1);
  std::vector<double> got;
  for (float m : {5.f, 4.f, 4.f, 4.f, 4.5f, 3.f, 3.f, 3.f}) {
    plateau.step(m);
    got.push_back(opt.param_groups()[0].options().get_lr());
  }
  EXPECT_EQ(got, (std::vector<double>{1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25}));
}

// The same state gives the same step bit for bit wherever it sits in memory: a state
// loaded from a stream lies at odd offsets of the stream's buffer, a fresh one 64-byte
// aligned (float32, weight decay and amsgrad: every branch of the fused update).
TEST(Optim, AdamStepDoesNotDependOnTheStatesAlignment) {
  for (int64_t n : {10, 37, 100}) {
    auto make = [n] {
      return std::vector<Tensor>{nabla::linspace(-1, 1, n).detach().requires_grad_(),
                                 nabla::linspace(0.5, 2, 7).detach().requires_grad_()};
    };
    auto loss = [](const std::vector<Tensor>& p) {
      return (p[0].cos() * 3).sum() + p[1].exp().sum();
    };
    const auto opts = optim::AdamOptions(0.99999).amsgrad(true).weight_decay(0.5);
    auto a = make(), b = make();
    optim::Adam opt_a(a, opts), opt_b(b, opts), opt_b2(b, opts);
    auto step = [&](optim::Optimizer& o, const std::vector<Tensor>& p) {
      o.zero_grad();
      loss(p).backward();
      o.step();
    };
    step(opt_a, a);
    step(opt_a, a);
    step(opt_b, b);
    std::stringstream stream;
    nabla::save(opt_b, stream);
    nabla::load(opt_b2, stream);
    step(opt_b2, b);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(a[i].equal(b[i])) << "n=" << n << " param " << i;
  }
}

TEST(Optim, SaveLoadResumesExactly) {
  auto dir = std::filesystem::temp_directory_path() / ("nabla_optim_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "adam.safetensors").string();
  auto make_params = [] {
    return std::vector<Tensor>{
        nabla::arange(6, nabla::kDouble).view({2, 3}).detach().requires_grad_(),
        nabla::ones({3}, nabla::kDouble).requires_grad_()};
  };
  auto loss = [](const std::vector<Tensor>& p) {
    return (p[0].sin() * p[1]).sum() + (p[1] * p[1]).sum();
  };
  auto a = make_params();
  optim::Adam opt_a(a, optim::AdamOptions(0.05).amsgrad(true));
  for (int i = 0; i < 3; ++i) {
    opt_a.zero_grad();
    loss(a).backward();
    opt_a.step();
  }
  nabla::save(opt_a, path);
  // A fresh optimizer over copies of the parameters, loaded from the file, then one more step each.
  auto b = make_params();
  {
    nabla::NoGradGuard g;
    for (size_t i = 0; i < a.size(); ++i) b[i].copy_(a[i]);
  }
  optim::Adam opt_b(b, optim::AdamOptions(0.5));
  nabla::load(opt_b, path);
  EXPECT_DOUBLE_EQ(opt_b.param_groups()[0].options().get_lr(), 0.05);
  opt_a.zero_grad();
  loss(a).backward();
  opt_a.step();
  opt_b.zero_grad();
  loss(b).backward();
  opt_b.step();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].equal(b[i])) << i;
  // A mismatched optimizer is refused with the reason.
  std::vector<Tensor> other{nabla::ones({4}, nabla::kDouble).requires_grad_()};
  optim::Adam opt_c(other);
  expect_error([&] { nabla::load(opt_c, path); }, {"group 0 has 2 parameters"});
}

namespace {
// An optimizer written against LibTorch's API compiles and runs unchanged: options with
// only an lr (no get_lr/set_lr, no save/load), options that override LibTorch's serialize,
// an optimizer that overrides only step.
struct LrOnlyOptions : optim::OptimizerCloneableOptions<LrOnlyOptions> {
  LrOnlyOptions(double lr = 1.0) : lr_(lr) {}  // NOLINT
  NABLA_ARG(double, lr) = 1.0;
};
struct NoLrOptions : optim::OptimizerCloneableOptions<NoLrOptions> {
  NABLA_ARG(int64_t, k) = 0;
};
struct SerializingOptions : optim::OptimizerCloneableOptions<SerializingOptions> {
  NABLA_ARG(double, lr) = 0.5;

 public:
  void serialize(nabla::serialize::OutputArchive& archive) const override {
    archive.write("lr", lr());
  }
  void serialize(nabla::serialize::InputArchive& archive) override {
    double v = 0;
    archive.read("lr", v);
    lr(v);
  }
};
struct StepOnlyOptimizer : optim::Optimizer {
  using Optimizer::Optimizer;
  Tensor step(LossClosure) override { return {}; }
};
struct CollectWarnings : nabla::WarningHandler {
  std::vector<std::string> seen;
  void process(const nabla::SourceLocation&, const std::string& msg, bool) override {
    seen.push_back(msg);
  }
};
}  // namespace

TEST(Optim, LibTorchStyleCustomOptimizer) {
  Tensor p = nabla::ones({2}).requires_grad_(), q = nabla::ones({3}).requires_grad_();
  StepOnlyOptimizer opt(std::vector<Tensor>{p}, std::make_unique<LrOnlyOptions>(0.1));
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.1);  // from lr()
  opt.param_groups()[0].options().set_lr(0.2);
  EXPECT_DOUBLE_EQ(static_cast<LrOnlyOptions&>(opt.param_groups()[0].options()).lr(), 0.2);
  EXPECT_DOUBLE_EQ(static_cast<const StepOnlyOptimizer&>(opt).defaults().get_lr(), 0.1);

  // LibTorch's deprecated accessors work and warn, once a call.
  CollectWarnings warnings;
  {
    nabla::WarningUtils::WarningHandlerGuard guard(&warnings);
    opt.add_parameters({q});
    EXPECT_EQ(opt.size(), 2u);
    EXPECT_EQ(opt.parameters().size(), 2u);
  }
  ASSERT_EQ(warnings.seen.size(), 3u);
  for (const auto& w : warnings.seen) EXPECT_NE(w.find("will be removed"), std::string::npos) << w;
  expect_error([&] { opt.add_param_group(optim::OptimizerParamGroup({p})); },
               {"some parameters appear in more than one parameter group"});

  // What a subclass leaves out raises LibTorch's message when used.
  NoLrOptions no_lr;
  expect_error([&] { (void)no_lr.get_lr(); }, {"get_lr() has not been overidden"});
  expect_error([&] { no_lr.set_lr(1); }, {"set_lr() has not been overidden"});
  nabla::serialize::OutputArchive out;
  expect_error([&] { LrOnlyOptions().save(out); },
               {"serialize", "OptimizerCloneableOptions<YourOptimizerOptions>"});
  expect_error([&] { nabla::save(opt, std::string("unused.safetensors")); }, {"serialize"});

  // save/load reach an override of serialize.
  SerializingOptions written;
  written.lr(0.25);
  written.save(out);
  std::stringstream stream;
  out.save_to(stream);
  nabla::serialize::InputArchive in;
  in.load_from(stream);
  SerializingOptions read;
  read.load(in);
  EXPECT_DOUBLE_EQ(read.lr(), 0.25);
}
