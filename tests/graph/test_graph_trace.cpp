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

TEST(GraphTrace, UntracedOpsAndInPlaceChangesAreErrors) {
  Tensor x = rand({3, 4});
  // cumsum has no tracer hook yet: its result reaching a traced op is refused.
  expect_error(
      [&] { g::trace([](const std::vector<Tensor>& in) { return in[0].cumsum(1).relu(); }, {x}); },
      {"graph::trace", "'relu'", "cannot be traced yet", "CumsumBackward0"});
  // An untraced result returned directly.
  expect_error(
      [&] { g::trace([](const std::vector<Tensor>& in) { return in[0].cumsum(1); }, {x}); },
      {"graph::trace", "not made by a traced op"});
  // A traced tensor changed in place.
  expect_error(
      [&] {
        g::trace(
            [](const std::vector<Tensor>& in) {
              Tensor h = in[0].tanh();
              {
                NoGradGuard no_grad;
                h.mul_(2.0);
              }
              return h.exp();
            },
            {x});
      },
      {"graph::trace", "changed in place"});
  // Constants made inside the traced code are fine.
  g::Graph graph = g::trace(
      [](const std::vector<Tensor>& in) {
        return in[0] * full({3, 4}, 2.0);
      },
      {x});
  EXPECT_TRUE(allclose(graph.forward(graph.outputs()[0]), x * 2.0));
}
