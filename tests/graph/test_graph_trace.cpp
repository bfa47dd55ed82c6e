// graph::trace: a dynamic forward recorded into a static graph (Note [Tracing]).
#include <nabla/graph.h>

#include "w2_lockstep.h"

using namespace nabla;
using nabla::testing::expect_error;
namespace g = nabla::graph;
using nabla::testing::w2_mlp;

TEST(GraphTrace, AModuleForwardBecomesOneNodePerOp) {
  manual_seed(5);
  nn::Sequential net = w2_mlp();
  Tensor x = rand({8, 784});
  g::Graph graph =
      g::trace([&](const std::vector<Tensor>& in) { return net->forward(in[0]); }, {x});
  ASSERT_EQ(graph.inputs().size(), 1u);
  ASSERT_EQ(graph.outputs().size(), 1u);
  EXPECT_EQ(graph.parameters().size(), 6u);  // three weights, three biases, shared
  EXPECT_TRUE(graph.parameters()[0].value().is_same(net->parameters()[0]));
  // input + 6 parameters + linear, relu, linear, relu, linear
  EXPECT_EQ(graph.size(), 12);
  Tensor out = graph.forward(graph.outputs()[0]);
  EXPECT_TRUE(allclose(out, net->forward(x)));
  EXPECT_EQ(graph.last_forward_computed(), 5);
  // A new input recomputes everything, and only that.
  Tensor x2 = rand({8, 784});
  graph.set_value(graph.inputs()[0], x2);
  EXPECT_TRUE(allclose(graph.forward(graph.outputs()[0]), net->forward(x2)));
  EXPECT_EQ(graph.last_forward_computed(), 5);
}

TEST(GraphTrace, ATracedW2TrainsStepForStepAsEager) {
  // The module's forward and the loss traced together: inputs x and y.
  manual_seed(6);
  nabla::testing::expect_w2_trains_as_eager(
      [](g::Graph& graph, nn::Sequential& net, const Tensor& x, const Tensor& y) {
        graph = g::trace(
            [&](const std::vector<Tensor>& in) {
              return nn::functional::cross_entropy(net->forward(in[0]), in[1]);
            },
            {x, y});
        return std::make_tuple(graph.inputs()[0], graph.inputs()[1], graph.outputs()[0]);
      });
}

TEST(GraphTrace, ACnnTracesAndNodesCanBeAddedAfterwards) {
  manual_seed(7);
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::Functional(relu),
                     nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
                     nn::Linear(4 * 14 * 14, 10));
  Tensor x = rand({2, 1, 28, 28});
  g::Graph graph =
      g::trace([&](const std::vector<Tensor>& in) { return net->forward(in[0]); }, {x});
  g::Value logits = graph.outputs()[0];
  g::Value probs = g::softmax(logits, 1);  // a node added after tracing
  EXPECT_TRUE(allclose(graph.forward(probs), net->forward(x).softmax(1), 1e-5, 1e-6));
}

TEST(GraphTrace, AnLstmStepHasTwoOutputs) {
  manual_seed(8);
  nn::LSTMCell cell(nn::LSTMCellOptions(5, 7));
  Tensor x = randn({3, 5}), h = randn({3, 7}), c = randn({3, 7});
  g::Graph graph = g::trace(
      [&](const std::vector<Tensor>& in) {
        auto [h1, c1] = cell->forward(in[0], std::make_tuple(in[1], in[2]));
        return std::vector<Tensor>{h1, c1};
      },
      {x, h, c});
  ASSERT_EQ(graph.outputs().size(), 2u);
  EXPECT_EQ(graph.outputs()[1].output_index(), 1);
  auto [h1, c1] = cell->forward(x, std::make_tuple(h, c));
  std::vector<Tensor> out = graph.forward(graph.outputs());
  EXPECT_TRUE(allclose(out[0], h1));
  EXPECT_TRUE(allclose(out[1], c1));
  EXPECT_EQ(graph.last_forward_computed(), 1);
}

namespace {
// A custom Function: not an op of the op table.
struct Twice : autograd::Function<Twice> {
  static Tensor forward(autograd::AutogradContext*, const Tensor& x) { return x * 2.0; }
  static autograd::variable_list backward(autograd::AutogradContext*, autograd::variable_list g) {
    return {g[0] * 2.0};
  }
};
}  // namespace

TEST(GraphTrace, WhatAGraphCannotHoldIsAnError) {
  Tensor x = rand({3, 4});
  auto trace1 = [&](std::function<Tensor(const Tensor&)> f) {
    return g::trace([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x});
  };
  expect_error([&] { trace1([](const Tensor& t) { return Twice::apply(t).relu(); }); },
               {"graph::trace", "custom autograd Function", "Twice"});
  // Computed before tracing with a history the graph could not pass a gradient into.
  Tensor w = rand({3, 4}).requires_grad_();
  Tensor computed = w * 3.0;
  expect_error([&] { trace1([&](const Tensor& t) { return t + computed; }); },
               {"graph::trace", "'add'", "computed before tracing", "MulBackward"});
  // A traced tensor changed in place.
  expect_error(
      [&] {
        trace1([](const Tensor& t) {
          Tensor h = t.tanh();
          {
            NoGradGuard no_grad;
            h.mul_(2.0);
          }
          return h.exp();
        });
      },
      {"graph::trace", "'exp'", "changed in place"});
  // A constant made inside and then changed in place: the graph would keep the change once.
  expect_error(
      [&] {
        trace1([](const Tensor& t) {
          Tensor c = zeros({3, 4});
          c.add_(1.0);
          return t * c;
        });
      },
      {"graph::trace", "'mul'", "made by a factory and then changed in place"});
  // Random factories: one draw would become a constant.
  expect_error([&] { trace1([](const Tensor& t) {
                       return t + randn({3, 4});
                     }); },
               {"graph::trace", "randn", "draws random numbers"});
  // Constants made inside the traced code are fine.
  g::Graph graph = trace1([](const Tensor& t) { return t * full({3, 4}, 2.0); });
  EXPECT_TRUE(allclose(graph.forward(graph.outputs()[0]), x * 2.0));
}

// Absent optional inputs before present ones are constants without a value: a batch norm
// without affine parameters but with running stats, an LSTM without a state.
TEST(GraphTrace, AbsentOptionalInputsKeepTheirPlace) {
  manual_seed(3);
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(4).affine(false));
  bn->eval();
  Tensor x = rand({5, 4});
  g::Graph graph = g::trace([&](const std::vector<Tensor>& in) { return bn(in[0]); }, {x});
  EXPECT_TRUE(allclose(graph.forward(graph.outputs()[0]), bn(x)));
  nn::LSTM lstm(nn::LSTMOptions(4, 3));
  Tensor seq = rand({6, 2, 4});
  g::Graph rnn = g::trace(
      [&](const std::vector<Tensor>& in) { return std::get<0>(lstm->forward(in[0])); }, {seq});
  EXPECT_TRUE(allclose(rnn.forward(rnn.outputs()[0]), std::get<0>(lstm->forward(seq))));
  // Its gradients flow to the parameters through the graph as in eager code.
  g::Value loss = rnn.call("sum", {rnn.outputs()[0]});
  rnn.forward(loss);
  rnn.backward(loss);
  Tensor eager = std::get<0>(lstm->forward(seq)).sum();
  std::vector<Tensor> want = autograd::grad({eager}, lstm->parameters());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(allclose(lstm->parameters()[i].grad(), want[i], 1e-5, 1e-6)) << i;
}

// detach in traced code is a node that stops the gradient, as in eager code.
TEST(GraphTrace, DetachStopsTheGradient) {
  Tensor w = rand({3}).requires_grad_();
  Tensor x = rand({3});
  g::Graph graph = g::trace(
      [&](const std::vector<Tensor>& in) { return (in[0] * w).detach() * w + in[0] * w; }, {x});
  g::Value loss = graph.call("sum", {graph.outputs()[0]});
  graph.forward(loss);
  graph.backward(loss);
  Tensor y = (x * w).detach() * w + x * w;
  EXPECT_TRUE(allclose(w.grad(), autograd::grad({y.sum()}, {w})[0]));
}
