// Autocast (Note [Autocast], src/ops/autocast/autocast.cpp): the region's state and guard,
// each policy, float32 gradients of float32 parameters, the weight cast cache, and the
// refusal while tracing. tests/libtorch/test_autocast_libtorch.cpp compares result dtypes
// with LibTorch's own autocast.
#include "nabla/graph.h"
#include "test_util.h"

using namespace nabla;

TEST(Autocast, GuardSetsAndRestoresTheRegion) {
  EXPECT_FALSE(autocast::is_cpu_enabled());
  Tensor x = randn({4, 3}), w = randn({5, 3});
  {
    autocast::AutocastGuard amp(kCPU, kBFloat16);
    EXPECT_TRUE(autocast::is_cpu_enabled());
    EXPECT_EQ(autocast::get_autocast_cpu_dtype(), kBFloat16);
    EXPECT_EQ(nn::functional::linear(x, w).scalar_type(), kBFloat16);
    EXPECT_EQ(x.mm(w.t()).scalar_type(), kBFloat16);
    {
      autocast::AutocastGuard off(kCPU, nullopt, /*enabled=*/false);
      EXPECT_EQ(x.mm(w.t()).scalar_type(), kFloat);
    }
    EXPECT_TRUE(autocast::is_cpu_enabled());
    // float64 is not lowered (LibTorch casts float32 only).
    EXPECT_EQ(x.to(kDouble).mm(w.t().to(kDouble)).scalar_type(), kDouble);
  }
  EXPECT_FALSE(autocast::is_cpu_enabled());
  EXPECT_EQ(x.mm(w.t()).scalar_type(), kFloat);
  EXPECT_THROW(autocast::set_autocast_cpu_dtype(kHalf), Error);
}

TEST(Autocast, PoliciesLowerFloat32AndPromote) {
  autocast::AutocastGuard amp(kCPU);
  Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3});
  Tensor y = conv2d(x, w);
  EXPECT_EQ(y.scalar_type(), kBFloat16);
  // A float32 op (the losses, ...) takes the bfloat16 result back to float32; layer_norm
  // keeps it (LibTorch 1.13's lists).
  EXPECT_EQ(nn::functional::mse_loss(y, zeros_like(y)).scalar_type(), kFloat);
  EXPECT_EQ(nn::functional::l1_loss(y, zeros_like(y)).scalar_type(), kFloat);
  EXPECT_EQ(layer_norm(y, {6}).scalar_type(), kBFloat16);
  // An op on no list keeps its input's dtype.
  EXPECT_EQ(y.relu().scalar_type(), kBFloat16);
  // Promote: the widest floating dtype among the inputs.
  EXPECT_EQ(cat({y.flatten(), randn({3})}).scalar_type(), kFloat);
}

TEST(Autocast, Float32ParametersGetFloat32Gradients) {
  manual_seed(3);
  Tensor x = randn({6, 8}), w = randn({4, 8}).requires_grad_(), b = randn({4}).requires_grad_();
  Tensor loss;
  {
    autocast::AutocastGuard amp(kCPU);
    loss = nn::functional::linear(x, w, b).to(kFloat).square().sum();
  }
  loss.backward();
  ASSERT_TRUE(w.grad().defined() && b.grad().defined());
  EXPECT_EQ(w.grad().scalar_type(), kFloat);
  EXPECT_EQ(b.grad().scalar_type(), kFloat);
  // Against the same step computed on the bfloat16-rounded operands in float32.
  Tensor w32 = w.detach().to(kBFloat16).to(kFloat).requires_grad_();
  Tensor b32 = b.detach().to(kBFloat16).to(kFloat).requires_grad_();
  Tensor y32 = nn::functional::linear(x.to(kBFloat16).to(kFloat), w32, b32).to(kBFloat16);
  y32.to(kFloat).square().sum().backward();
  EXPECT_TRUE(allclose(w.grad(), w32.grad(), 2e-2, 1e-2));
  EXPECT_TRUE(allclose(b.grad(), b32.grad(), 2e-2, 1e-2));
}

// The node of w's cast in y's graph: the one whose input is a leaf's gradient accumulator
// (x requires no grad, so w is the only leaf).
std::shared_ptr<autograd::Node> weight_cast(const Tensor& y) {
  std::vector<std::shared_ptr<autograd::Node>> stack = {y.grad_fn()};
  while (!stack.empty()) {
    auto n = stack.back();
    stack.pop_back();
    for (const auto& e : n->next_edges()) {
      if (!e.function) continue;
      if (e.function->name() == "AccumulateGrad") return n;
      stack.push_back(e.function);
    }
  }
  return nullptr;
}

TEST(Autocast, WeightCastsAreCachedWithinTheRegion) {
  Tensor x = randn({3, 4}), w = randn({2, 4}).requires_grad_();
  {
    autocast::AutocastGuard amp(kCPU);
    Tensor y1 = nn::functional::linear(x, w), y2 = nn::functional::linear(x * 2, w);
    ASSERT_TRUE(weight_cast(y1) && weight_cast(y2));
    EXPECT_EQ(weight_cast(y1), weight_cast(y2));  // one cast of w, reused
  }
  {
    autocast::AutocastGuard amp(kCPU, nullopt, true, /*cache_enabled=*/false);
    Tensor y1 = nn::functional::linear(x, w), y2 = nn::functional::linear(x, w);
    EXPECT_NE(weight_cast(y1), weight_cast(y2));
  }
  EXPECT_TRUE(autocast::is_autocast_cache_enabled());
}

TEST(Autocast, TracingRefusesAnAutocastRegion) {
  Tensor w = randn({2, 4}).requires_grad_();
  autocast::AutocastGuard amp(kCPU);
  try {
    graph::trace([&](const std::vector<Tensor>& in) { return nn::functional::linear(in[0], w); },
                 {randn({3, 4})});
    FAIL() << "traced an autocast region";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("autocast"), std::string::npos) << e.what();
  }
}
