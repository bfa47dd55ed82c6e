#pragma once
// W2 trained twice from one initial model, eagerly and through a static graph, step for
// step (tests/graph: a hand-built graph and a traced one).
#include <nabla/graph.h>

#include <functional>

#include "test_util.h"

namespace nabla::testing {

inline nn::Sequential w2_mlp() {
  return nn::Sequential(nn::Linear(784, 256), nn::Functional(relu), nn::Linear(256, 128),
                        nn::Functional(relu), nn::Linear(128, 10));
}

/// Makes a graph computing W2's cross-entropy loss over `net`'s parameters; returns the
/// graph's (x, y, loss) values.
using W2GraphMaker = std::function<std::tuple<graph::Value, graph::Value, graph::Value>(
    graph::Graph&, nn::Sequential&, const Tensor& x, const Tensor& y)>;

/// Trains two copies of one W2 with Adam for 200 steps over 4 fixed batches, one eagerly
/// and one through the graph `make` builds; losses and parameters must be bit-equal.
inline void expect_w2_trains_as_eager(const W2GraphMaker& make) {
  nn::Sequential eager = w2_mlp(), graph_net = w2_mlp();
  {
    NoGradGuard no_grad;
    auto from = eager->parameters(), to = graph_net->parameters();
    for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  }
  std::vector<Tensor> xs, ys;
  for (int b = 0; b < 4; ++b) {
    xs.push_back(rand({32, 784}));
    ys.push_back(randint(0, 10, {32}, kLong));
  }
  graph::Graph g;
  auto [x, y, loss] = make(g, graph_net, xs[0], ys[0]);
  optim::Adam eager_opt(eager->parameters(), optim::AdamOptions(1e-3));
  optim::Adam graph_opt(graph_net->parameters(), optim::AdamOptions(1e-3));
  for (int step = 0; step < 200; ++step) {
    const size_t b = static_cast<size_t>(step % 4);
    eager_opt.zero_grad();
    Tensor le = nn::functional::cross_entropy(eager->forward(xs[b]), ys[b]);
    le.backward();
    eager_opt.step();

    graph_opt.zero_grad();
    g.set_value(x, xs[b]);
    g.set_value(y, ys[b]);
    Tensor lg = g.forward(loss);
    g.backward(loss);
    graph_opt.step();
    ASSERT_EQ(le.item<float>(), lg.item<float>()) << "step " << step;
  }
  auto a = eager->parameters(), s = graph_net->parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].equal(s[i])) << "parameter " << i;
}

}  // namespace nabla::testing
