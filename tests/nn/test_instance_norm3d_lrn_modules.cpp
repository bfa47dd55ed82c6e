// InstanceNorm1d/2d/3d's state (LibTorch's NormImplBase buffers), Softmax2d and
// CrossMapLRN2d, against their definitions (against LibTorch: tests/libtorch).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

using V = std::vector<int64_t>;

std::string norm3d_printed(const nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

}  // namespace

TEST(InstanceNormModules, StateAsLibTorch) {
  nn::InstanceNorm3d stateful(nn::InstanceNorm3dOptions(5).track_running_stats(true).affine(true));
  ASSERT_TRUE(stateful->num_batches_tracked.defined());
  EXPECT_EQ(stateful->num_batches_tracked.dim(), 0);
  EXPECT_EQ(stateful->num_batches_tracked.scalar_type(), nabla::kLong);
  EXPECT_EQ(stateful->running_mean.sizes().vec(), (V{5}));
  EXPECT_EQ(stateful->weight.sizes().vec(), (V{5}));
  std::vector<std::string> buffers;
  for (const auto& item : stateful->named_buffers()) buffers.push_back(item.key());
  EXPECT_EQ(buffers,
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));

  nn::InstanceNorm2d stateless(nn::InstanceNorm2dOptions(5));
  EXPECT_FALSE(stateless->num_batches_tracked.defined());
  EXPECT_FALSE(stateless->running_mean.defined());
  EXPECT_FALSE(stateless->weight.defined());
  EXPECT_TRUE(stateless->named_buffers().is_empty());

  EXPECT_EQ(norm3d_printed(*nn::InstanceNorm3d(
                nn::InstanceNorm3dOptions(4).eps(0.5).momentum(0.1).track_running_stats(true))),
            "nabla::nn::InstanceNorm3d(4, eps=0.5, momentum=0.1, affine=false, "
            "track_running_stats=true)");
}

TEST(InstanceNormModules, NormalizesEachInstanceAndTracksStats) {
  nabla::manual_seed(0);
  nn::InstanceNorm3d norm(nn::InstanceNorm3dOptions(3).track_running_stats(true));
  Tensor x = nabla::randn({2, 3, 2, 3, 4}, nabla::kDouble) * 3 + 1;
  norm->to(nabla::kDouble);
  Tensor y = norm(x);
  Tensor flat = y.reshape({2, 3, -1});
  EXPECT_TRUE(flat.mean({2}).allclose(nabla::zeros({2, 3}, nabla::kDouble), 0, 1e-10));
  EXPECT_TRUE(flat.var({2}, false).allclose(nabla::ones({2, 3}, nabla::kDouble), 1e-4, 1e-4));
  // running = 0.9 running + 0.1 (the batch's mean of instance statistics; unbiased variance).
  Tensor xf = x.reshape({2, 3, -1});
  EXPECT_TRUE(norm->running_mean.allclose(xf.mean({2}).mean({0}) * 0.1, 1e-10, 1e-12));
  EXPECT_TRUE(norm->running_var.allclose(xf.var({2}, true).mean({0}) * 0.1 + 0.9, 1e-10, 1e-12));
  EXPECT_EQ(norm->num_batches_tracked.item<int64_t>(), 0);  // LibTorch leaves it too
  // Unbatched input is one instance batch; eval uses the running statistics.
  Tensor one = norm(x[1]);
  EXPECT_EQ(one.sizes().vec(), (V{3, 2, 3, 4}));
  norm->eval();
  Tensor evaluated = norm(x);
  Tensor want = (x - norm->running_mean.view({1, 3, 1, 1, 1})) /
                (norm->running_var.view({1, 3, 1, 1, 1}) + 1e-5).sqrt();
  EXPECT_TRUE(evaluated.allclose(want, 1e-10, 1e-10));
  norm->reset_running_stats();
  EXPECT_EQ(norm->running_mean.abs().sum().item<double>(), 0);
  expect_error([&] { norm(nabla::randn({3, 4})); }, {"InstanceNorm3d", "expected 4D or 5D input"});
  expect_error(
      [&] {
        nn::InstanceNorm1d(2)(nabla::randn({1, 2, 3, 4}));
      },
      {"InstanceNorm1d", "expected 2D or 3D input (got 4D input)"});
}

TEST(Softmax2dModule, SoftmaxOverChannels) {
  Tensor x = nabla::randn({2, 3, 4, 5});
  nn::Softmax2d m;
  Tensor y = m(x);
  EXPECT_TRUE(y.allclose(x.exp() / x.exp().sum({1}, true), 1e-5, 1e-6));
  EXPECT_TRUE(m(x[0]).allclose(y[0], 1e-6, 1e-7));
  EXPECT_EQ(norm3d_printed(*m), "nabla::nn::Softmax2d()");
  expect_error([&] { m(nabla::randn({3, 4})); }, {"Softmax2d requires a 3D or 4D tensor"});
}

TEST(CrossMapLRN2dModule, LibTorchWindows) {
  // 5 channels, size 3 (pre_pad 2): LibTorch's recurrence sums the squares of channels
  // {0, 1}, {0, 1, 2}, {0, 1, 2, 3}, {0, 2, 3, 4}, {0, 3, 4}.
  nn::CrossMapLRN2d lrn(nn::CrossMapLRN2dOptions(3).alpha(0.3).beta(0.5).k(2));
  Tensor x = nabla::arange(1, 6, nabla::kDouble).view({1, 5, 1, 1});
  Tensor y = lrn(x).view({5});
  const std::vector<std::vector<int>> window = {
      {0, 1}, {0, 1, 2}, {0, 1, 2, 3}, {0, 2, 3, 4}, {0, 3, 4}};
  for (int c = 0; c < 5; ++c) {
    double sum = 0;
    for (int j : window[static_cast<size_t>(c)]) sum += (j + 1.0) * (j + 1.0);
    EXPECT_NEAR(y[c].item<double>(), (c + 1.0) / std::sqrt(2 + 0.1 * sum), 1e-12) << c;
  }
  // One channel: the gradient is the derivative of x (k + alpha / size x^2)^-beta.
  nn::CrossMapLRN2d single(3);
  Tensor z = nabla::arange(9, nabla::kDouble).view({1, 1, 3, 3}).requires_grad_(true);
  single(z).sum().backward();
  Tensor zd = z.detach(), s = 1 + 1e-4 / 3 * zd * zd;
  Tensor want = s.pow(-0.75) - zd * 0.75 * s.pow(-1.75) * 2e-4 / 3 * zd;
  EXPECT_TRUE(z.grad().allclose(want, 1e-12, 1e-12));
  EXPECT_EQ(
      norm3d_printed(*nn::CrossMapLRN2d(nn::CrossMapLRN2dOptions(3).alpha(1e-5).beta(0.1).k(10))),
      "nabla::nn::CrossMapLRN2d(3, alpha=1e-05, beta=0.1, k=10)");
  expect_error([&] { single(nabla::randn({2, 3, 4})); }, {"CrossMapLRN2d", "4-d input"});
}
