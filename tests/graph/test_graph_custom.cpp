// Nodes made by Graph::custom: a C++ function of the inputs' values, evaluated, cached,
// differentiated and reported like op-table nodes.
#include <nabla/graph.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
namespace g = nabla::graph;

TEST(GraphCustom, ComputesCachesAndDifferentiates) {
  g::Graph graph;
  g::Value x = graph.input("x");
  Tensor w0 = randn({3}, kDouble);
  g::Value w = graph.parameter("w", w0.clone());
  int calls = 0;
  // Two outputs: x * w and its sum along dim 1 (as a reshape would read a shape tensor,
  // the function may read its inputs' values).
  g::Value both = graph.custom(
      "scale_and_sum",
      [&calls](const std::vector<Tensor>& in) {
        ++calls;
        Tensor y = in[0] * in[1];
        return std::vector<Tensor>{y, y.sum(1)};
      },
      {x, w}, "both");
  g::Value loss = (both.output(1) * both.output(1)).sum();
  Tensor xv = randn({4, 3}, kDouble);
  graph.set_value(x, xv);
  graph.forward(loss);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(both.op(), "scale_and_sum");
  EXPECT_TRUE(allclose(both.output(0).value(), xv * w0));
  graph.forward(loss);  // nothing changed: served from the cache
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(graph.last_forward_computed(), 0);
  graph.backward(loss);
  Tensor we = w0.clone().requires_grad_();
  Tensor s = (xv * we).sum(1);
  (s * s).sum().backward();
  EXPECT_TRUE(allclose(w.grad(), we.grad(), 1e-12, 1e-12));
  // A changed input recomputes it.
  graph.set_value(x, randn({4, 3}, kDouble));
  graph.forward(loss);
  EXPECT_EQ(calls, 2);
  EXPECT_NE(graph.to_dot().find("scale_and_sum"), std::string::npos);
}

TEST(GraphCustom, ErrorsNameTheNode) {
  g::Graph graph;
  g::Value x = graph.input("x");
  expect_error([&] { graph.custom("empty", {}, {x}); }, {"graph.custom('empty')", "empty"});
  g::Value bad = graph.custom(
      "needs_two_dims",
      [](const std::vector<Tensor>& in) {
        NABLA_CHECK(in[0].dim() == 2, "needs_two_dims: got ", in[0].dim(), " dims");
        return std::vector<Tensor>{in[0]};
      },
      {x}, "picky");
  graph.set_value(x, zeros({3}));
  expect_error([&] { graph.forward(bad); }, {"node 'picky'", "needs_two_dims", "got 1 dims"});
  g::Value one = graph.custom(
      "one_output", [](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0]}; }, {x});
  expect_error([&] { graph.forward(one.output(1)); }, {"has 1 output(s)", "asked for output 1"});
}

// Graph::apply runs the graph as eager ops on the tensors given: autograd records onto them,
// and the graph's own cached values stay as they were.
TEST(GraphApply, EagerOpsOntoTheTensorsGiven) {
  g::Graph graph;
  g::Value x = graph.input("x");
  g::Value w = graph.parameter("w", tensor({2.0, -1.0, 0.5}, kDouble));
  g::Value y = graph.custom(
      "times_w", [](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * in[1]}; },
      {x, w});
  graph.set_outputs({(y * y).sum(), y});
  Tensor xv = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  const std::vector<Tensor> out = graph.apply({xv});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[0].item<double>(), 4.0 + 4.0 + 2.25);
  out[0].backward();  // d/dx sum((x w)^2) = 2 x w^2
  EXPECT_TRUE(allclose(xv.grad(), tensor({8.0, 4.0, 1.5}, kDouble), 1e-12, 1e-12));
  EXPECT_EQ(graph.last_forward_computed(), 0);  // no forward ran
  expect_error([&] { graph.apply({}); }, {"graph.apply", "got 0 input(s)", "has 1"});
}
