// Signatures and dtype rules LibTorch's own tests pin down: ATen's general elu, the
// dtypes of tensor literals, binary_cross_entropy pairing [N, 1] with [N], TensorOptions
// made of a device's parts.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(CompatSignatures, EluWithScaleAndInputScale) {
  Tensor x = tensor({-1.0, 0.5}, kDouble).requires_grad_();
  Tensor y = elu(x, 1.5, 2.0, 3.0);
  EXPECT_NEAR(y[0].item<double>(), 2.0 * 1.5 * (std::exp(-3.0) - 1), 1e-12);
  EXPECT_NEAR(y[1].item<double>(), 1.0, 1e-12);
  y.sum().backward();
  EXPECT_NEAR(x.grad()[0].item<double>(), 2.0 * 1.5 * 3.0 * std::exp(-3.0), 1e-12);
  EXPECT_NEAR(x.grad()[1].item<double>(), 2.0, 1e-12);
  EXPECT_TRUE(allclose(elu(x.detach(), 1.5), elu(x.detach(), 1.5, 1, 1)));
}

TEST(CompatSignatures, TensorLiteralDtypes) {
  EXPECT_EQ(tensor({1, 2, 3}).scalar_type(), kLong);
  EXPECT_EQ(tensor(ArrayRef<int>({1, 2})).scalar_type(), kLong);
  EXPECT_EQ(tensor(std::vector<int>{1, 2}).scalar_type(), kLong);
  EXPECT_EQ(tensor(ArrayRef<float>({1.f})).scalar_type(), get_default_dtype());
  EXPECT_EQ(tensor(std::vector<uint8_t>{1, 2}).scalar_type(), kByte);
  EXPECT_EQ(tensor({true, false}).scalar_type(), kBool);
  expect_error([] { (void)zeros({2}, kInt8); }, {"int8", "no"});
  EXPECT_NE(kInt16, kInt);
}

TEST(CompatSignatures, BinaryCrossEntropyPairsSqueezedSizes) {
  Tensor p = full({3, 1}, 0.25, kDouble);
  Tensor t = tensor({1.0, 0.0, 1.0}, kDouble);
  Tensor loss = binary_cross_entropy(p, t);
  const double want = -(2 * std::log(0.25) + std::log(0.75)) / 3;
  EXPECT_NEAR(loss.item<double>(), want, 1e-12);
  expect_error(
      [&] {
        (void)binary_cross_entropy(p, tensor({1.0, 0.0}, kDouble));
      },
      {"must be the same as input size"});
  expect_error([&] { (void)nn::functional::binary_cross_entropy(p, t); },
               {"different to the input size"});
}

TEST(CompatSignatures, TensorOptionsFromADevicesParts) {
  TensorOptions o = {kCUDA, 1};  // only a description: no GPU is needed
  EXPECT_TRUE(o.device().is_cuda());
  EXPECT_EQ(o.device().index(), 1);
  Device::Type type = kCPU;
  EXPECT_EQ(Device(type).type(), kCPU);
  EXPECT_EQ(typeMetaToScalarType(get_default_dtype()), kFloat);
}

}  // namespace
}  // namespace nabla::testing
