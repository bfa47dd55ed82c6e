// Whole models on the static graph against the dynamic engine: W2's MLP, W3's CNN and an
// LSTM step give the same values and gradients in float64, and W2 trains step for step
// as in eager mode with an optimizer over the module's parameters (the graph's
// parameters share their storage).
#include <nabla/graph.h>

#include "w2_lockstep.h"

using namespace nabla;
namespace g = nabla::graph;
using nabla::testing::w2_mlp;

namespace {

constexpr double kTol = 1e-12;

// The module's parameters as graph parameters (shared storage), by their names.
std::vector<g::Value> parameters_of(g::Graph& graph, nn::Module& module) {
  std::vector<g::Value> out;
  for (const auto& p : module.named_parameters())
    out.push_back(graph.parameter(p.key(), p.value()));
  return out;
}

// Every parameter's gradient from the eager loss, then cleared for the graph's turn.
std::vector<Tensor> eager_grads(nn::Module& module, const Tensor& loss) {
  loss.backward();
  std::vector<Tensor> grads;
  for (auto& p : module.parameters()) {
    grads.push_back(p.grad().clone());
    p.mutable_grad() = Tensor();
  }
  return grads;
}

void expect_same_grads(const std::vector<g::Value>& params, const std::vector<Tensor>& expected) {
  ASSERT_EQ(params.size(), expected.size());
  for (size_t i = 0; i < params.size(); ++i) {
    ASSERT_TRUE(params[i].grad().defined()) << params[i].name();
    EXPECT_TRUE(allclose(params[i].grad(), expected[i], kTol, kTol)) << params[i].name();
  }
}

// W2's MLP on the graph: Linear, relu, Linear, relu, Linear, cross-entropy.
g::Value w2_graph(g::Graph& graph, const std::vector<g::Value>& p, g::Value x, g::Value y) {
  g::Value h = g::relu(g::linear(x, p[0], p[1]));
  h = g::relu(g::linear(h, p[2], p[3]));
  return g::cross_entropy(g::linear(h, p[4], p[5]), y);
}

}  // namespace

TEST(GraphModels, W2MlpMatchesTheDynamicEngine) {
  manual_seed(1);
  nn::Sequential net = w2_mlp();
  net->to(kDouble);
  Tensor xv = rand({16, 784}, kDouble), yv = randint(0, 10, {16}, kLong);
  Tensor eager_loss = nn::functional::cross_entropy(net->forward(xv), yv);
  const std::vector<Tensor> expected = eager_grads(*net, eager_loss);

  g::Graph graph;
  g::Value x = graph.input("x"), y = graph.input("y");
  std::vector<g::Value> p = parameters_of(graph, *net);
  g::Value loss = w2_graph(graph, p, x, y);
  graph.set_value(x, xv);
  graph.set_value(y, yv);
  EXPECT_TRUE(allclose(graph.forward(loss), eager_loss, kTol, kTol));
  graph.backward(loss);
  expect_same_grads(p, expected);
}

TEST(GraphModels, W3CnnMatchesTheDynamicEngine) {
  manual_seed(2);
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)), nn::Functional(relu),
                     nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                     nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)), nn::Functional(relu),
                     nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
                     nn::Linear(16 * 7 * 7, 32), nn::Functional(relu), nn::Linear(32, 10));
  net->to(kDouble);
  Tensor xv = rand({4, 1, 28, 28}, kDouble), yv = randint(0, 10, {4}, kLong);
  Tensor eager_loss = nn::functional::cross_entropy(net->forward(xv), yv);
  const std::vector<Tensor> expected = eager_grads(*net, eager_loss);

  g::Graph graph;
  g::Value x = graph.input("x"), y = graph.input("y");
  std::vector<g::Value> p = parameters_of(graph, *net);
  g::Value h = g::max_pool2d(g::relu(g::conv2d(x, p[0], p[1], {1, 1}, {1, 1})), {2, 2});
  h = g::max_pool2d(g::relu(g::conv2d(h, p[2], p[3], {1, 1}, {1, 1})), {2, 2});
  h = g::relu(g::linear(g::flatten(h, 1), p[4], p[5]));
  g::Value loss = g::cross_entropy(g::linear(h, p[6], p[7]), y);
  graph.set_value(x, xv);
  graph.set_value(y, yv);
  EXPECT_TRUE(allclose(graph.forward(loss), eager_loss, kTol, kTol));
  graph.backward(loss);
  expect_same_grads(p, expected);
}

TEST(GraphModels, LstmStepMatchesTheDynamicEngine) {
  manual_seed(3);
  nn::LSTMCell cell(nn::LSTMCellOptions(5, 7));
  cell->to(kDouble);
  Tensor xv = randn({3, 5}, kDouble), h0 = randn({3, 7}, kDouble), c0 = randn({3, 7}, kDouble);
  auto [h1, c1] = cell->forward(xv, std::make_tuple(h0, c0));
  Tensor eager_loss = h1.sum() + (c1 * c1).sum();
  const std::vector<Tensor> expected = eager_grads(*cell, eager_loss);

  g::Graph graph;
  g::Value x = graph.input("x"), h = graph.input("h"), c = graph.input("c");
  std::vector<g::Value> p = parameters_of(graph, *cell);  // weight_ih, weight_hh, bias_ih, bias_hh
  g::Value step = graph.call("lstm_cell", {x, h, c, p[0], p[1], p[2], p[3]});
  g::Value c_next = step.output(1);
  g::Value loss = step.sum() + (c_next * c_next).sum();
  graph.set_value(x, xv);
  graph.set_value(h, h0);
  graph.set_value(c, c0);
  EXPECT_TRUE(allclose(graph.forward(loss), eager_loss, kTol, kTol));
  graph.backward(loss);
  expect_same_grads(p, expected);
}

TEST(GraphModels, W2TrainsStepForStepAsEager) {
  // A hand-built graph over the module's parameters (shared storage), Adam on the module.
  manual_seed(4);
  nabla::testing::expect_w2_trains_as_eager(
      [](g::Graph& graph, nn::Sequential& net, const Tensor&, const Tensor&) {
        g::Value x = graph.input("x"), y = graph.input("y");
        return std::make_tuple(x, y, w2_graph(graph, parameters_of(graph, *net), x, y));
      });
}
