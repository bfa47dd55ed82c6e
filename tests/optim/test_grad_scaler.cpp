// nabla::amp::GradScaler: scaling, unscaling, skipped steps on infinities and NaNs, and the
// scale's backoff and growth, step by step on a small model. The expected values follow
// from PyTorch's algorithm (torch.amp.GradScaler): LibTorch 1.13 has no CPU kernels for
// it to compare with.
#include "nabla/optim/grad_scaler.h"
#include "test_util.h"

using namespace nabla;

namespace {
struct Tiny {
  Tensor w = tensor(std::vector<float>{0.5f, -1.0f}).requires_grad_();
  optim::SGD opt{{w}, optim::SGDOptions(0.1)};
  Tensor loss(float k) { return (w * k).sum(); }  // dloss/dw = k
};
}  // namespace

TEST(GradScaler, ScalesUnscalesAndSteps) {
  Tiny m;
  amp::GradScaler scaler(amp::GradScalerOptions{.init_scale = 8.0, .growth_interval = 2});
  Tensor scaled = scaler.scale(m.loss(1.5f));
  EXPECT_DOUBLE_EQ(scaled.item<double>(), 8.0 * (0.5 - 1.0) * 1.5);
  scaled.backward();
  EXPECT_TRUE(m.w.grad().equal(tensor(std::vector<float>{12.0f, 12.0f})));
  EXPECT_TRUE(scaler.step(m.opt));  // unscales first: the step uses grad 1.5
  EXPECT_TRUE(allclose(m.w.detach(), tensor(std::vector<float>{0.35f, -1.15f})));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 8.0);
  EXPECT_EQ(scaler.growth_tracker(), 1);
  // The second finite step in a row doubles the scale (growth_interval 2).
  m.opt.zero_grad();
  scaler.scale(m.loss(1.0f)).backward();
  scaler.unscale_(m.opt);  // as before clipping
  EXPECT_TRUE(m.w.grad().equal(tensor(std::vector<float>{1.0f, 1.0f})));
  EXPECT_THROW(scaler.unscale_(m.opt), Error);  // once per update
  EXPECT_TRUE(scaler.step(m.opt));
  EXPECT_THROW(scaler.step(m.opt), Error);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 16.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, SkipsTheStepOnInfinityOrNanAndBacksOff) {
  for (float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    Tiny m;
    amp::GradScaler scaler(amp::GradScalerOptions{.init_scale = 1024.0});
    scaler.scale(m.loss(bad)).backward();
    const Tensor before = m.w.detach().clone();
    EXPECT_FALSE(scaler.step(m.opt));
    EXPECT_TRUE(m.w.detach().equal(before));  // not stepped
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 512.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
  }
}

TEST(GradScaler, UpdateTakesANewScaleAndChecksItsUse) {
  Tiny m;
  amp::GradScaler scaler;
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  EXPECT_THROW(scaler.update(), Error);  // nothing recorded yet
  scaler.update(100.0);
  EXPECT_EQ(scaler.get_scale(), 100.0);
  EXPECT_THROW(amp::GradScaler(amp::GradScalerOptions{.backoff_factor = 1.5}), Error);
  // float16 gradients are refused, as PyTorch's.
  Tensor h = zeros({2}, kHalf).requires_grad_();
  optim::SGD opt({h}, optim::SGDOptions(0.1));
  (h.to(kFloat) * 2).sum().backward();
  EXPECT_THROW(scaler.unscale_(opt), Error);
  // Disabled: a pass-through.
  amp::GradScaler off(amp::GradScalerOptions{.enabled = false});
  Tensor l = m.loss(1.0f);
  EXPECT_TRUE(off.scale(l).is_same(l));
  EXPECT_EQ(off.get_scale(), 1.0);
}
