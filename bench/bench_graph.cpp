// The static graph (docs/graph.md), nabla against itself:
//  1. Partial re-evaluation: 100 branches of 10 ops (1,000 op nodes) over [64, 64] float
//     tensors, joined by one sum per branch and a final stack + sum. One branch's input
//     changes: the forward that follows against a forward where every input changed (full
//     recomputation; goal <= 0.05x) and against the same ops run eagerly.
//  2. Dirty-check overhead: W2's training step (MLP 784-256-128-10, batch 128, Adam)
//     through a graph, where every node is dirty each step, against the eager step
//     (goal <= 1.05x).
// Median ms over --runs repetitions after warm-up; 1 and 2 threads.
#include <nabla/graph.h>
#include <nabla/nabla.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "median_ms.h"
#include "w2_nabla.h"

namespace g = nabla::graph;

namespace {

constexpr int kWarmup = 3;
constexpr int kBranches = 100;
constexpr int kDepth = 10;

// One branch's ops, eager: the same as the graph's nodes.
nabla::Tensor branch_eager(nabla::Tensor h) {
  for (int d = 0; d < kDepth; ++d) h = (d % 2 == 0) ? h.tanh() : h.mul(0.5);
  return h.sum();
}

struct Branches {
  g::Graph graph;
  std::vector<g::Value> inputs;
  g::Value out;
  std::vector<nabla::Tensor> values;
  Branches() {
    std::vector<g::Value> sums;
    for (int b = 0; b < kBranches; ++b) {
      std::string name = "x";  // appended, not "x" + ...: GCC 12's -Wrestrict false positive
      name += std::to_string(b);
      g::Value h = graph.input(name);
      inputs.push_back(h);
      values.push_back(nabla::randn({64, 64}));
      graph.set_value(h, values.back());
      for (int d = 0; d < kDepth; ++d)
        h = (d % 2 == 0) ? h.tanh() : graph.call("mul", {h}, {{"other", 0.5}});
      sums.push_back(h.sum());
    }
    out = graph.call("stack", sums).sum();
  }
};

void partial_reevaluation(int runs) {
  nabla::NoGradGuard no_grad;  // forward only: the dirty check itself
  Branches b;
  b.graph.forward(b.out);
  int next = 0;
  const double partial = median_ms(
      [&] {
        const int i = next++;
        b.graph.set_value(b.inputs[static_cast<size_t>(i % kBranches)],
                          b.values[static_cast<size_t>((i + 1) % kBranches)]);
        b.graph.forward(b.out);
      },
      runs, kWarmup);
  const int64_t computed = b.graph.last_forward_computed();
  const double full = median_ms(
      [&] {
        for (int i = 0; i < kBranches; ++i)
          b.graph.set_value(b.inputs[static_cast<size_t>(i)],
                            b.values[static_cast<size_t>((i + next) % kBranches)]);
        ++next;
        b.graph.forward(b.out);
      },
      runs, kWarmup);
  const int64_t computed_full = b.graph.last_forward_computed();
  const double eager = median_ms(
      [&] {
        std::vector<nabla::Tensor> sums;
        for (int i = 0; i < kBranches; ++i)
          sums.push_back(branch_eager(b.values[static_cast<size_t>(i)]));
        (void)nabla::stack(sums).sum();
      },
      runs, kWarmup);
  std::printf(
      "  partial re-evaluation (%lld of %lld nodes): %8.3f ms | full: %8.3f ms | eager: %8.3f ms"
      " | partial/full %.3f (goal <= 0.05), partial/eager %.3f\n",
      static_cast<long long>(computed), static_cast<long long>(computed_full), partial, full, eager,
      partial / full, partial / eager);
}

struct GraphW2 {
  NablaW2 eager;  // its module and Adam are reused: the graph's parameters share storage
  g::Graph graph;
  g::Value x = graph.input("x"), y = graph.input("y");
  g::Value loss;
  GraphW2() {
    std::vector<g::Value> p;
    for (const auto& kv : eager.net->named_parameters())
      p.push_back(graph.parameter(kv.key(), kv.value()));
    g::Value h = g::relu(g::linear(x, p[0], p[1]));
    h = g::relu(g::linear(h, p[2], p[3]));
    loss = g::cross_entropy(g::linear(h, p[4], p[5]), y);
  }
  void step() {
    eager.opt.zero_grad();
    graph.set_value(x, eager.x);
    graph.set_value(y, eager.y);
    graph.forward(loss);
    graph.backward(loss);
    eager.opt.step();
  }
};

void dirty_check_overhead(int runs) {
  NablaW2 eager;
  GraphW2 graph;
  const double e = median_ms([&] { eager.step(); }, runs, kWarmup);
  const double s = median_ms([&] { graph.step(); }, runs, kWarmup);
  std::printf("  W2 step: graph %8.3f ms | eager %8.3f ms | graph/eager %.3f (goal <= 1.05)\n", s,
              e, s / e);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 101;
  std::vector<int> threads = {1, 2};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = {std::stoi(argv[++i])};
  }
  std::printf("%s\n", nabla::show_config().c_str());
  for (int t : threads) {
    nabla::set_num_threads(t);
    std::printf("%d thread(s):\n", t);
    partial_reevaluation(runs);
    dirty_check_overhead(runs);
  }
}
