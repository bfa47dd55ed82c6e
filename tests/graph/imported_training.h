#pragma once
// Shared by the importers' tests: an imported W3 CNN's weights are parameters that train.
#include "test_util.h"

namespace nabla::testing {

/// `g` is W3 ([4, 1, 28, 28] images to 10 logits): its 8 parameters require grad, get
/// gradients through a cross-entropy node on its output, and 5 SGD steps on a fixed batch
/// lower the loss.
inline void expect_imported_w3_trains(graph::Graph& g) {
  std::vector<Tensor> params;
  for (const auto& p : g.parameters()) params.push_back(p.value());
  ASSERT_EQ(params.size(), 8u);  // two convolutions, two linears: weight and bias each
  for (const auto& p : params) EXPECT_TRUE(p.requires_grad());
  manual_seed(0);
  const Tensor x = rand({4, 1, 28, 28}), y = randint(0, 10, {4}, kLong);
  graph::Value target = g.input("target");
  graph::Value loss = g.call("cross_entropy_loss", {g.outputs()[0], target});
  g.set_value(g.inputs()[0], x);
  g.set_value(target, y);
  optim::SGD sgd(params, optim::SGDOptions(0.02));
  double first = 0, last = 0;
  for (int step = 0; step < 5; ++step) {
    sgd.zero_grad();
    g.zero_grad();
    last = g.forward(loss).item<double>();
    if (step == 0) first = last;
    g.backward(loss);
    for (const auto& p : params) ASSERT_TRUE(p.grad().defined());
    sgd.step();
  }
  EXPECT_LT(last, first);
}

}  // namespace nabla::testing
