// Note [Gradient sinks] (src/autograd/engine.cpp): products and embeddings add their
// gradient straight into a leaf's existing .grad. These tests check that the result is
// the usual accumulation's, that it happens (the nodes it bypasses do not run: the
// profiler records no event for them), and that every case it must leave alone — hooks,
// retain_grad, autograd::grad, create_graph, a .grad it cannot write — takes the usual
// path.
#include <nabla/autograd/grad_sink.h>
#include <nabla/autograd/profiler.h>

#include "test_util.h"

using namespace nabla;
namespace profiler = nabla::autograd::profiler;
namespace F = nabla::nn::functional;

namespace {

// How many backward nodes named `name` ran while `fn` did.
int64_t nodes_run_during(const std::string& name, const std::function<void()>& fn) {
  {
    profiler::ProfilerGuard guard;
    fn();
  }
  int64_t n = 0;
  for (const auto& e : profiler::events())
    if (e.kind == profiler::EventKind::Backward && e.name == name) ++n;
  return n;
}

Tensor param(IntArrayRef shape) { return randn(shape, kDouble).requires_grad_(); }

void expect_near_all(const Tensor& got, const Tensor& want, double tol = 1e-12) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_LE((got - want).abs().max().item<double>(), tol * (1 + want.abs().max().item<double>()));
}

}  // namespace

TEST(GradSinks, LinearWeightAccumulatesInPlace) {
  Tensor x = randn({5, 4}, kDouble), w = param({3, 4}), b = param({3});
  auto loss = [&] { return F::linear(x, w, b).tanh().sum(); };
  auto want = autograd::grad({loss()}, {w, b});  // captured: no sink
  EXPECT_FALSE(w.grad().defined());
  // The first backward keeps the fresh gradient (t()'s backward runs); the second adds
  // into it through the gemm, and t()'s backward gets nothing to run.
  EXPECT_EQ(nodes_run_during("TBackward0", [&] { loss().backward(); }), 1);
  const void* storage = w.grad().data_ptr();
  EXPECT_EQ(nodes_run_during("TBackward0", [&] { loss().backward(); }), 0);
  EXPECT_EQ(w.grad().data_ptr(), storage);
  expect_near_all(w.grad(), want[0] * 2);
  expect_near_all(b.grad(), want[1] * 2);
  // After zero_grad (in place, LibTorch 1.13's default) the sum is the gradient exactly.
  w.mutable_grad().zero_();
  loss().backward();
  EXPECT_TRUE(w.grad().equal(want[0]));
}

TEST(GradSinks, MatmulWithALeafOnEitherSide) {
  Tensor a = param({4, 6}), b = param({6, 3});
  auto loss = [&] { return a.mm(b).sin().sum(); };
  auto want = autograd::grad({loss()}, {a, b});
  loss().backward();
  EXPECT_EQ(nodes_run_during("AccumulateGrad", [&] { loss().backward(); }), 0);
  expect_near_all(a.grad(), want[0] * 2);
  expect_near_all(b.grad(), want[1] * 2);
}

TEST(GradSinks, TiedEmbeddingAndHeadSumBothUses) {
  // GPT-2's tied weight: rows looked up by the embedding, and the output projection.
  Tensor w = param({10, 4});
  Tensor idx = tensor({1, 3, 3, 7, 0, 9}, kLong).view({2, 3});
  auto loss = [&] { return F::linear(F::embedding(idx, w).tanh(), w).logsumexp(-1).sum(); };
  auto want = autograd::grad({loss()}, {w});
  loss().backward();
  w.mutable_grad().zero_();
  EXPECT_EQ(nodes_run_during("AccumulateGrad", [&] { loss().backward(); }), 0);
  expect_near_all(w.grad(), want[0]);
  loss().backward();
  expect_near_all(w.grad(), want[0] * 2);
}

TEST(GradSinks, HooksTakeTheUsualPath) {
  Tensor x = randn({5, 4}, kDouble), w = param({3, 4});
  auto loss = [&] { return F::linear(x, w).sum(); };
  auto want = autograd::grad({loss()}, {w})[0];
  int calls = 0;
  w.register_hook([&](const Tensor& g) {
    ++calls;
    return g * 3;
  });
  loss().backward();
  loss().backward();
  EXPECT_EQ(calls, 2);
  expect_near_all(w.grad(), want * 6);

  int post = 0;
  Tensor v = param({3, 4});
  autograd::register_post_accumulate_grad_hook(v, [&](const Tensor&) { ++post; });
  F::linear(x, v).sum().backward();
  F::linear(x, v).sum().backward();
  EXPECT_EQ(post, 2);
  expect_near_all(v.grad(), want * 2);
}

TEST(GradSinks, RetainedTransposeStillGetsItsGradient) {
  Tensor x = randn({5, 4}, kDouble), w = param({3, 4});
  auto run = [&] {
    Tensor wt = w.t();
    wt.retain_grad();
    x.mm(wt).sum().backward();
    return wt.grad();
  };
  run();
  Tensor wt_grad = run();
  ASSERT_TRUE(wt_grad.defined());
  expect_near_all(wt_grad, x.t().mm(ones({5, 3}, kDouble)));
  expect_near_all(w.grad(), wt_grad.t() * 2);
}

TEST(GradSinks, CreateGraphKeepsTheGradientDifferentiable) {
  Tensor x = randn({5, 4}, kDouble), w = param({3, 4});
  F::linear(x, w).pow(2).sum().backward();
  Tensor first = w.grad().clone();
  F::linear(x, w).pow(2).sum().backward({}, /*retain_graph=*/true, /*create_graph=*/true);
  EXPECT_TRUE(w.grad().requires_grad());  // g + new: a graph, not an in-place gemm
  expect_near_all(w.grad().detach(), first * 2);
  w.mutable_grad() = Tensor();
}

TEST(GradSinks, AGradItCannotWriteIsReplacedAsUsual) {
  Tensor x = randn({5, 4}, kDouble), w = param({3, 4});
  auto want = autograd::grad({F::linear(x, w).sum()}, {w})[0];
  // A non-contiguous .grad (a transposed tensor set by the program): added out of the gemm.
  w.mutable_grad() = zeros({4, 3}, kDouble).t();
  F::linear(x, w).sum().backward();
  expect_near_all(w.grad(), want);
  // Anomaly mode checks each node's outputs, so it keeps every node.
  {
    autograd::DetectAnomalyGuard anomaly;
    EXPECT_EQ(nodes_run_during("TBackward0", [&] { F::linear(x, w).sum().backward(); }), 1);
  }
  expect_near_all(w.grad(), want * 2);
}

// grad_into_sinks (the static graph's backward): the captured input's gradient goes into
// the tensor given for it; leaves that are not inputs keep their .grad untouched, as in
// autograd::grad.
TEST(GradSinks, GradIntoSinksAddsOnlyIntoTheGivenTensors) {
  Tensor x = randn({5, 4}, kDouble), w = param({3, 4}), v = param({3, 4});
  auto loss = [&] { return (F::linear(x, w) * F::linear(x, v)).sum(); };
  auto want = autograd::grad({loss()}, {w, v});
  v.mutable_grad() = zeros({3, 4}, kDouble);  // not an input below: must stay zero
  Tensor sink = ones({3, 4}, kDouble);
  auto got = autograd::detail::grad_into_sinks({loss()}, {w}, {}, {sink});
  EXPECT_FALSE(got[0].defined());  // all of it went into the sink
  expect_near_all(sink, want[0] + 1);
  EXPECT_TRUE(v.grad().equal(zeros({3, 4}, kDouble)));
  EXPECT_FALSE(w.grad().defined());
  // Without a sink: returned as grad returns it.
  got = autograd::detail::grad_into_sinks({loss()}, {w, v}, {}, {Tensor(), Tensor()});
  expect_near_all(got[0], want[0]);
  expect_near_all(got[1], want[1]);
  // A sink it cannot write (another shape): returned instead.
  Tensor wrong = zeros({4, 3}, kDouble);
  got = autograd::detail::grad_into_sinks({loss()}, {w}, {}, {wrong});
  expect_near_all(got[0], want[0]);
  EXPECT_TRUE(wrong.equal(zeros({4, 3}, kDouble)));
}
