// Conv and pooling modules and their F:: spellings (values are checked against LibTorch
// in tests/conformance/table_nn_conv.cpp and tests/libtorch).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;
using nabla::testing::expect_error;

TEST(ConvModules, ShapesOptionsAndPrinting) {
  nn::Conv2d conv(nn::Conv2dOptions(3, 8, 3).stride(2).padding(1).bias(false));
  EXPECT_EQ(conv->weight.sizes().vec(), (std::vector<int64_t>{8, 3, 3, 3}));
  EXPECT_FALSE(conv->bias.defined());
  EXPECT_EQ(conv(nabla::randn({2, 3, 9, 9})).sizes().vec(), (std::vector<int64_t>{2, 8, 5, 5}));
  std::ostringstream os;
  os << *conv;
  EXPECT_EQ(
      os.str(),
      "nabla::nn::Conv2d(3, 8, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], bias=false)");

  nn::Conv2d same(nn::Conv2dOptions(2, 2, {3, 4}).padding(nabla::kSame));
  EXPECT_EQ(same(nabla::randn({1, 2, 6, 7})).sizes().vec(), (std::vector<int64_t>{1, 2, 6, 7}));
  // Reflect padding mode equals explicit F::pad + an unpadded convolution.
  nn::Conv2d reflect(nn::Conv2dOptions(1, 1, 3).padding(1).padding_mode(nabla::kReflect));
  Tensor x = nabla::randn({1, 1, 5, 5});
  Tensor want = F::conv2d(F::pad(x, F::PadFuncOptions({1, 1, 1, 1}).mode(nabla::kReflect)),
                          reflect->weight, F::Conv2dFuncOptions().bias(reflect->bias));
  EXPECT_TRUE(reflect(x).allclose(want, 1e-5, 1e-6));

  nn::Conv1d c1(nn::Conv1dOptions(4, 2, 3).dilation(2));
  EXPECT_EQ(c1(nabla::randn({3, 4, 10})).sizes().vec(), (std::vector<int64_t>{3, 2, 6}));
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1));
  EXPECT_EQ(up(nabla::randn({1, 4, 5, 5})).sizes().vec(), (std::vector<int64_t>{1, 2, 9, 9}));
  EXPECT_EQ(up->forward(nabla::randn({1, 4, 5, 5}), {10, 10}).sizes().vec(),
            (std::vector<int64_t>{1, 2, 10, 10}));
  expect_error([&] { up->forward(nabla::randn({1, 4, 5, 5}), {12, 12}); }, {"output size"});
  expect_error([] { nn::Conv2d bad(nn::Conv2dOptions(3, 4, 3).groups(2)); },
               {"divisible by groups"});
  expect_error([&] { conv(nabla::randn({2, 4, 9, 9})); }, {"conv2d", "3 channels", "4 channels"});

  auto copy = std::dynamic_pointer_cast<nn::Conv2dImpl>(conv->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->weight.equal(conv->weight));
  EXPECT_NE(copy->weight.data_ptr(), conv->weight.data_ptr());
}

TEST(ConvModules, DefaultInitBounds) {
  nabla::manual_seed(3);
  nn::Conv2d conv(nn::Conv2dOptions(16, 32, 3));
  const double bound = 1.0 / std::sqrt(16.0 * 9);
  EXPECT_LE(conv->weight.abs().max().item<double>(), bound);
  EXPECT_GT(conv->weight.abs().max().item<double>(), 0.95 * bound);
  EXPECT_LE(conv->bias.abs().max().item<double>(), bound);
}

TEST(PoolModules, FunctionalAndModules) {
  Tensor x = nabla::arange(16, nabla::kFloat).view({1, 1, 4, 4});
  nn::MaxPool2d pool(nn::MaxPool2dOptions(2));
  EXPECT_EQ(nabla::testing::values(pool(x)), (std::vector<double>{5, 7, 13, 15}));
  auto [v, i] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2));
  EXPECT_EQ(nabla::testing::values(i), (std::vector<double>{5, 7, 13, 15}));
  nn::AvgPool2d avg(nn::AvgPool2dOptions(2).stride(1));
  EXPECT_NEAR(avg(x)[0][0][0][0].item<double>(), (0 + 1 + 4 + 5) / 4.0, 1e-6);
  nn::AdaptiveAvgPool2d gap(nn::AdaptiveAvgPool2dOptions(1));
  EXPECT_NEAR(gap(x).item<double>(), 7.5, 1e-6);
  std::ostringstream os;
  os << *pool;
  EXPECT_EQ(os.str(),
            "nabla::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], "
            "dilation=[1, 1], ceil_mode=false)");
  // Unfold then fold sums every pixel once per window covering it.
  Tensor ones = nabla::ones({1, 1, 3, 3});
  Tensor counts = F::fold(F::unfold(ones, F::UnfoldFuncOptions(2)), F::FoldFuncOptions(3, 2));
  EXPECT_EQ(nabla::testing::values(counts), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(ConvModules, SecondDerivativesThroughConvAndPool) {
  // Gradient penalty style: d/dw of ||d out / d x||^2 exists (every piece is differentiable).
  Tensor x = nabla::randn({1, 1, 5, 5}, nabla::kDouble).requires_grad_();
  Tensor w = nabla::randn({2, 1, 3, 3}, nabla::kDouble).requires_grad_();
  auto f = [](const nabla::autograd::variable_list& in) {
    return nabla::autograd::variable_list{
        nabla::max_pool2d(nabla::conv2d(in[0], in[1], {}, 1, 1).tanh(), {2})};
  };
  EXPECT_TRUE(nabla::autograd::gradgradcheck(f, {x, w}));
}
