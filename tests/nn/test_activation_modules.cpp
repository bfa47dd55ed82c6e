// Activation modules: forward equals the F:: function, options, PReLU's parameter, use in
// a Sequential, printing.
#include <gtest/gtest.h>

#include <sstream>

#include <nabla/nabla.h>

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;

TEST(ActivationModules, MatchFunctional) {
  Tensor x = nabla::randn({4, 6});
  EXPECT_TRUE(nn::ReLU()(x).equal(nabla::relu(x)));
  EXPECT_TRUE(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))(x).equal(
      nabla::leaky_relu(x, 0.2)));
  EXPECT_TRUE(nn::GELU(nn::GELUOptions().approximate("tanh"))(x).allclose(nabla::gelu(x, "tanh")));
  EXPECT_TRUE(nn::Softmax(1)(x).allclose(x.softmax(1)));
  EXPECT_TRUE(nn::LogSoftmax(0)(x).allclose(x.log_softmax(0)));
  EXPECT_TRUE(nn::Softmin(1)(x).allclose((-x).softmax(1)));
  EXPECT_TRUE(nn::Sigmoid()(x).equal(x.sigmoid()));
  EXPECT_TRUE(nn::Tanh()(x).equal(x.tanh()));
  EXPECT_TRUE(
      nn::Hardtanh(nn::HardtanhOptions().min_val(-0.5).max_val(0.5))(x).equal(x.clamp(-0.5, 0.5)));
  EXPECT_TRUE(nn::Threshold(0.1, 20)(x).equal(nabla::where(x > 0.1, x, nabla::full_like(x, 20))));
  EXPECT_TRUE(nn::Softplus(nn::SoftplusOptions().beta(2))(x).allclose(
      F::softplus(x, F::SoftplusFuncOptions().beta(2))));
  // RReLU is deterministic in eval mode: the mean slope.
  nn::RReLU rrelu;
  rrelu->eval();
  Tensor neg = -nabla::ones({3});
  EXPECT_TRUE(rrelu(neg).allclose(neg * ((1.0 / 8 + 1.0 / 3) / 2)));
}

TEST(ActivationModules, PReLUHasAParameter) {
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(3).init(0.1));
  EXPECT_EQ(prelu->named_parameters().keys(), std::vector<std::string>{"weight"});
  Tensor x = nabla::tensor({-1.0f, 2.0f, -3.0f}).view({1, 3});
  EXPECT_TRUE(prelu(x).allclose(nabla::tensor({-0.1f, 2.0f, -0.3f}).view({1, 3})));
  prelu(x).sum().backward();
  EXPECT_TRUE(prelu->weight.grad().allclose(nabla::tensor({-1.0f, 0.0f, -3.0f})));
}

TEST(ActivationModules, InSequentialAndPrinted) {
  nn::Sequential net(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 2), nn::LogSoftmax(1));
  EXPECT_EQ(net->forward(nabla::randn({5, 4})).sizes().vec(), (std::vector<int64_t>{5, 2}));
  std::ostringstream os;
  os << *net;
  EXPECT_NE(os.str().find("(1): nabla::nn::ReLU()"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("(3): nabla::nn::LogSoftmax(dim=1)"), std::string::npos) << os.str();
}
