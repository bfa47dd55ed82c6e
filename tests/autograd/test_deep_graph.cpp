// Deep graphs (docs/reliability.md, Limits): a chain of 10^6 ops runs backward and is
// destroyed — with or without backward — without deepening the stack per node (the
// engine schedules iteratively; Note [Iterative graph destruction] frees the chain).
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include <nabla/nabla.h>

#include "test_util.h"

using nabla::Tensor;

namespace {

constexpr int kDepth = 1'000'000;

Tensor chain(const Tensor& x, int depth) {
  Tensor y = x;
  for (int i = 0; i < depth; ++i) y = (i % 2 == 0) ? y + 0.5 : y * 1.0;
  return y;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST(DeepGraph, BackwardThroughAMillionNodes) {
  Tensor x = nabla::full({2}, 1.0, nabla::kDouble).requires_grad_();
  auto t0 = std::chrono::steady_clock::now();
  Tensor y = chain(x, kDepth).sum();
  const double build = seconds_since(t0);
  EXPECT_DOUBLE_EQ(y.item<double>(), 2 * (1.0 + 0.5 * kDepth / 2));
  t0 = std::chrono::steady_clock::now();
  y.backward();
  const double backward = seconds_since(t0);
  EXPECT_EQ(nabla::testing::values(x.grad()), (std::vector<double>{1, 1}));
  t0 = std::chrono::steady_clock::now();
  y = Tensor();  // the graph was released by backward; its nodes go now
  std::cout << kDepth << "-op chain: build " << build << " s, backward " << backward
            << " s, destruction " << seconds_since(t0) << " s\n";
  // And the engine still runs a small graph.
  Tensor z = (x * x).sum();
  z.backward();
  EXPECT_EQ(nabla::testing::values(x.grad()), (std::vector<double>{3, 3}));
}

TEST(DeepGraph, DestroyingAMillionNodeGraphWithoutBackward) {
  Tensor x = nabla::ones({3}).requires_grad_();
  {
    Tensor y = chain(x, kDepth);
    EXPECT_EQ(nabla::testing::name_of(y), "MulBackward1");
  }  // the last handle goes: the whole chain is freed here
  // With retain_graph, destruction after backward of a graph that kept its saved tensors.
  {
    Tensor w = nabla::ones({3}).requires_grad_();
    Tensor y = x;
    for (int i = 0; i < kDepth / 4; ++i) y = y * w;  // saves w and y at every node
    y.sum().backward({}, /*retain_graph=*/true);
    EXPECT_EQ(nabla::testing::values(x.grad()), (std::vector<double>{1, 1, 1}));
  }
  Tensor z = (x * 2).sum();
  z.backward();
  EXPECT_EQ(nabla::testing::values(x.grad()), (std::vector<double>{3, 3, 3}));
}
