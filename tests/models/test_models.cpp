// nabla::models beyond what test_from_pytorch.cpp checks against torchvision (keys, shapes
// and outputs): a backward pass that reaches every parameter, the head's size, the
// residual rule and cloning.
#include <nabla/models.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

// Training mode (batch statistics), as a training step would run it.
template <class Net>
void expect_grad_for_every_parameter(Net net, int64_t size) {
  net->train();
  const Tensor y = net(randn({2, 3, size, size}));
  y.square().mean().backward();
  int64_t count = 0;
  for (const auto& item : net->named_parameters()) {
    const Tensor& g = item.value().grad();
    ASSERT_TRUE(g.defined()) << item.key() << " got no gradient";
    EXPECT_EQ(shape(g), shape(item.value())) << item.key();
    EXPECT_TRUE(g.isfinite().all().item<bool>()) << item.key();
    EXPECT_TRUE(g.ne(0).any().item<bool>()) << item.key() << "'s gradient is all zero";
    ++count;
  }
  EXPECT_GT(count, 0);
}

TEST(ResNet18, BackwardReachesEveryParameter) {
  manual_seed(0);
  expect_grad_for_every_parameter(models::ResNet18(), 224);
}

TEST(MobileNetV2, BackwardReachesEveryParameter) {
  manual_seed(0);
  expect_grad_for_every_parameter(models::MobileNetV2(), 64);
}

TEST(ResNet18, NumClassesSizesOnlyTheHead) {
  models::ResNet18 net(10);
  EXPECT_EQ(shape(net->fc->weight), (std::vector<int64_t>{10, 512}));
  net->eval();
  NoGradGuard no_grad;
  EXPECT_EQ(shape(net(randn({1, 3, 32, 32}))), (std::vector<int64_t>{1, 10}));
}

TEST(MobileNetV2, ResidualOnlyWhereShapesAgree) {
  // torchvision's rule: stride 1 and as many channels out as in.
  EXPECT_TRUE(models::InvertedResidual(24, 24, 1, 6)->use_res_connect());
  EXPECT_FALSE(models::InvertedResidual(24, 24, 2, 6)->use_res_connect());
  EXPECT_FALSE(models::InvertedResidual(16, 24, 1, 6)->use_res_connect());
  expect_error([] { models::InvertedResidual(16, 24, 3, 6); }, {"stride must be 1 or 2"});
}

TEST(ResNet18, CloneCopiesEveryTensor) {
  // Cloneable all the way down: the blocks rebuild themselves in reset().
  models::ResNet18 net(10);
  auto copy = std::dynamic_pointer_cast<models::ResNet18Impl>(net->clone());
  ASSERT_NE(copy, nullptr);
  const auto mine = net->named_parameters();
  const auto theirs = copy->named_parameters();
  ASSERT_EQ(mine.size(), theirs.size());
  for (const auto& item : mine) {
    const Tensor* other = theirs.find(item.key());
    ASSERT_NE(other, nullptr) << item.key();
    EXPECT_TRUE(other->equal(item.value())) << item.key();
    EXPECT_FALSE(other->is_alias_of(item.value())) << item.key();
  }
  EXPECT_EQ(copy->named_buffers().size(), net->named_buffers().size());
}

}  // namespace
}  // namespace nabla::testing
