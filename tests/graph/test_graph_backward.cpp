// The static graph's backward: topological order, accumulation,
// partial forward, detach, and gradients equal to the dynamic engine's.
#include <nabla/graph.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
namespace g = nabla::graph;

namespace {

bool same(const Tensor& a, const Tensor& b, double tol = 1e-12) {
  return a.defined() && b.defined() && a.sizes() == b.sizes() && allclose(a, b, tol, tol);
}

}  // namespace

TEST(GraphBackward, GradientsOfAnAffineLoss) {
  g::Graph graph;
  g::Value x = graph.input("x");
  Tensor w0 = randn({3, 2}, kDouble), b0 = randn({2}, kDouble);
  g::Value w = graph.parameter("w", w0.clone()), b = graph.parameter("b", b0.clone());
  g::Value h = g::matmul(x, w) + b;
  g::Value loss = (h * h).sum();
  Tensor xv = randn({4, 3}, kDouble);
  graph.set_value(x, xv);
  graph.forward(loss);
  graph.backward(loss);

  Tensor we = w0.clone().requires_grad_(), be = b0.clone().requires_grad_();
  Tensor he = xv.matmul(we) + be;
  Tensor le = (he * he).sum();
  le.backward();
  EXPECT_TRUE(same(w.grad(), we.grad()));
  EXPECT_TRUE(same(b.grad(), be.grad()));
  // A parameter's gradient is its tensor's .grad(); intermediate nodes keep theirs.
  EXPECT_TRUE(w.grad().is_same(w.value().grad()));
  EXPECT_TRUE(same(h.grad(), 2 * he.detach()));
  // x does not require grad: no gradient, and asking for it is an error.
  EXPECT_FALSE(x.grad().defined());
  expect_error([&] { graph.backward(loss, {x}); }, {"target 'x' does not require grad"});
}

TEST(GraphBackward, TwoBackwardCallsAccumulateUntilZeroGrad) {
  // Gradients of several backward calls add up until zero_grad.
  g::Graph graph;
  g::Value x = graph.input("x", /*requires_grad=*/true);
  g::Value w = graph.parameter("w", randn({3}, kDouble));
  g::Value y = (x * w).sum();
  graph.set_value(x, randn({3}, kDouble));
  graph.forward(y);
  graph.backward(y);
  Tensor once = w.grad().clone();
  EXPECT_TRUE(same(once, x.value()));
  EXPECT_TRUE(same(x.grad(), w.value().detach()));
  graph.backward(y);
  EXPECT_TRUE(same(w.grad(), 2 * once));
  // set_value does not clear gradients; zero_grad does.
  graph.set_value(x, randn({3}, kDouble));
  EXPECT_TRUE(same(w.grad(), 2 * once));
  graph.zero_grad();
  EXPECT_FALSE(w.grad().defined());
  EXPECT_FALSE(x.grad().defined());
  graph.forward(y);
  graph.backward(y);
  EXPECT_TRUE(same(w.grad(), x.value()));
}

TEST(GraphBackward, BranchesNoForwardEvaluatedGetNoGradient) {
  // A branch no forward evaluated gets no gradient: a feeds left_add,
  // which the loss uses, and new_add, which no forward evaluates.
  g::Graph graph;
  g::Value x = graph.input("x"), y = graph.input("y"), target = graph.input("target");
  g::Value a = graph.parameter("a", randn({2, 1}, kDouble));
  g::Value b = graph.parameter("b", randn({2, 1}, kDouble));
  g::Value c = graph.parameter("c", randn({2, 1}, kDouble));
  g::Value left = graph.call("add", {x, a}, {}, "left_add");
  g::Value right = graph.call("add", {y, b}, {}, "right_add");
  g::Value z = graph.call("add", {left, right}, {}, "z");
  g::Value loss = graph.call("mse_loss", {z, target}, {}, "loss");
  g::Value new_add = graph.call("add", {a, c}, {}, "new_add");

  // No forward yet: backward refuses, nothing gets a gradient.
  expect_error([&] { graph.backward(loss); }, {"node 'x' has no value", "call forward(loss)"});
  graph.set_value(x, randn({2, 1}, kDouble));
  graph.set_value(y, randn({2, 1}, kDouble));
  graph.set_value(target, randn({2, 1}, kDouble));
  expect_error([&] { graph.backward(loss); }, {"has no value", "call forward(loss)"});
  EXPECT_FALSE(a.grad().defined());

  graph.forward(loss);
  graph.backward(loss);
  const Tensor dz = 2 * (z.value() - target.value()) / 2;  // mse mean over 2 elements
  EXPECT_TRUE(same(a.grad(), dz));
  EXPECT_TRUE(same(b.grad(), dz));
  EXPECT_FALSE(c.grad().defined());
  EXPECT_FALSE(new_add.grad().defined());
  EXPECT_FALSE(new_add.value().defined());

  // Backward from a node whose inputs changed since its forward is refused.
  graph.set_value(x, randn({2, 1}, kDouble));
  expect_error([&] { graph.backward(loss); }, {"'left_add'", "changed after the last forward"});
}

TEST(GraphBackward, DetachCutsExactlyTheDetachedBranch) {
  // loss = sum(tanh(x w1) * (x w2)): detaching the second factor keeps w1's gradient
  // and gives w2 none; the detached node still receives its own gradient.
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value w1 = graph.parameter("w1", randn({3, 2}, kDouble));
  g::Value w2 = graph.parameter("w2", randn({3, 2}, kDouble));
  g::Value p = g::tanh(g::matmul(x, w1));
  g::Value q = g::matmul(x, w2);
  g::Value loss = (p * q).sum();
  graph.set_value(x, randn({4, 3}, kDouble));
  graph.set_detached(q);
  graph.forward(loss);
  graph.backward(loss);
  EXPECT_FALSE(w2.grad().defined());
  EXPECT_TRUE(same(q.grad(), p.value().detach()));

  Tensor e1 = w1.value().detach().clone().requires_grad_();
  Tensor qe = x.value().matmul(w2.value()).detach();
  (x.value().matmul(e1).tanh() * qe).sum().backward();
  EXPECT_TRUE(same(w1.grad(), e1.grad()));

  // Attached again, w2 gets its gradient too.
  graph.zero_grad();
  graph.set_detached(q, false);
  graph.backward(loss);
  EXPECT_TRUE(same(w2.grad(), x.value().t().matmul(p.value().detach())));
}

TEST(GraphBackward, TargetsLimitWhatIsComputed) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value w1 = graph.parameter("w1", randn({3}, kDouble));
  g::Value w2 = graph.parameter("w2", randn({3}, kDouble));
  g::Value h = x * w1;
  g::Value loss = (h * w2).sum();
  graph.set_value(x, randn({3}, kDouble));
  graph.forward(loss);
  graph.backward(loss, {w1});
  EXPECT_TRUE(same(w1.grad(), x.value() * w2.value().detach()));
  EXPECT_FALSE(w2.grad().defined());
  // An intermediate node can be a target: it requires grad through w1. (The first call
  // gave h its gradient on the way to w1 too: cleared first.)
  graph.zero_grad();
  graph.backward(loss, {h});
  EXPECT_TRUE(same(h.grad(), w2.value().detach()));
  EXPECT_FALSE(w1.grad().defined());
  // A loss of several elements needs grad_output.
  g::Value vec = h * w2;
  graph.forward(vec);
  expect_error([&] { graph.backward(vec); }, {"3 elements", "grad_output"});
  graph.backward(vec, {w2}, ones({3}, kDouble));
  EXPECT_TRUE(same(w2.grad(), h.value().detach()));
}

TEST(GraphBackward, NoGradForwardIsRecomputedWhenGradientsAreWanted) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value w = graph.parameter("w", randn({3}, kDouble));
  g::Value loss = (x * w).sum();
  graph.set_value(x, randn({3}, kDouble));
  {
    NoGradGuard no_grad;
    graph.forward(loss);
  }
  expect_error([&] { graph.backward(loss); }, {"without recording gradients"});
  graph.forward(loss);  // in grad mode: recorded now
  EXPECT_EQ(graph.last_forward_computed(), 2);
  graph.backward(loss);
  EXPECT_TRUE(same(w.grad(), x.value()));
}

TEST(GraphBackward, ALongChainNeedsNoRecursion) {
  g::Graph graph;
  g::Value w = graph.parameter("w", full({2}, 1.0, kDouble));
  g::Value v = w;
  constexpr int kNodes = 100000;
  for (int i = 0; i < kNodes; ++i) v = graph.call("mul", {v}, {{"other", 1.0000001}});
  g::Value loss = v.sum();
  graph.forward(loss);
  graph.backward(loss);
  EXPECT_NEAR(nabla::testing::values(w.grad())[0], std::pow(1.0000001, kNodes), 1e-9);
}

// zero_grad(set_to_none = false) zeroes parameters' .grad in place (products then add into
// them: Note [Gradient sinks]) and clears the other nodes' gradients; the next backward
// gives what a first one gives.
TEST(GraphBackward, ZeroGradInPlaceKeepsParameterGradients) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value w = graph.parameter("w", randn({4, 3}, kDouble));
  g::Value b = graph.parameter("b", randn({4}, kDouble));
  g::Value h = g::linear(x, w, b);
  g::Value loss = (h * h).sum();
  graph.set_value(x, randn({5, 3}, kDouble));
  graph.forward(loss);
  graph.backward(loss);
  const Tensor once = w.grad().clone(), h_once = h.grad().clone();
  Tensor& storage = w.value().mutable_grad();
  const void* data = storage.data_ptr();
  graph.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TRUE(same(w.grad(), zeros({4, 3}, kDouble)));
  EXPECT_EQ(w.grad().data_ptr(), data);
  EXPECT_FALSE(h.grad().defined());
  graph.backward(loss);
  EXPECT_TRUE(same(w.grad(), once));
  EXPECT_TRUE(same(h.grad(), h_once));
  graph.backward(loss);
  EXPECT_LE((w.grad() - 2 * once).abs().max().item<double>(), 1e-12);
  graph.zero_grad();
  EXPECT_FALSE(w.grad().defined());
}
