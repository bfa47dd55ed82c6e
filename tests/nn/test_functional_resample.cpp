// F::pad, F::interpolate and pixel_shuffle: option spellings, dispatch and errors (the
// kernels are checked against LibTorch in tests/conformance/table_nn_resample.cpp).
#include <gtest/gtest.h>

#include <nabla/nabla.h>

#include "test_util.h"

namespace F = nabla::nn::functional;
using nabla::Tensor;
using nabla::testing::expect_error;
using nabla::testing::values;

TEST(FunctionalResample, PadModes) {
  Tensor x = nabla::arange(3, nabla::kFloat).view({1, 1, 3});  // [0, 1, 2]
  EXPECT_EQ(values(F::pad(x, F::PadFuncOptions({2, 1}).mode(nabla::kReflect))),
            (std::vector<double>{2, 1, 0, 1, 2, 1}));
  EXPECT_EQ(values(F::pad(x, F::PadFuncOptions({2, 1}).mode(nabla::kReplicate))),
            (std::vector<double>{0, 0, 0, 1, 2, 2}));
  EXPECT_EQ(values(F::pad(x, F::PadFuncOptions({2, 1}).mode(nabla::kCircular))),
            (std::vector<double>{1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(values(F::pad(x, F::PadFuncOptions({1, 1}).value(-1))),
            (std::vector<double>{-1, 0, 1, 2, -1}));
  expect_error(
      [&] {
        F::pad(x, F::PadFuncOptions({3, 0}).mode(nabla::kReflect));
      },
      {"reflection_pad1d", "smaller"});
  expect_error([&] { F::pad(x, F::PadFuncOptions({1})); }, {"divisible by 2"});
  // Gradients flow back through the gathered copies (the reflected 1 gets three).
  Tensor y = x.detach().requires_grad_();
  F::pad(y, F::PadFuncOptions({2, 1}).mode(nabla::kReflect)).sum().backward();
  EXPECT_EQ(values(y.grad()), (std::vector<double>{1, 3, 2}));
}

TEST(FunctionalResample, InterpolateOptions) {
  Tensor x = nabla::arange(4, nabla::kFloat).view({1, 1, 2, 2});
  Tensor up =
      F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}));
  EXPECT_EQ(up.sizes().vec(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_EQ(values(up[0][0][1]), (std::vector<double>{0, 0, 1, 1}));
  Tensor bl = F::interpolate(x, F::InterpolateFuncOptions()
                                    .size(std::vector<int64_t>{3, 3})
                                    .mode(nabla::kBilinear)
                                    .align_corners(true));
  EXPECT_NEAR(bl[0][0][1][1].item<double>(), 1.5, 1e-6);
  expect_error([&] { F::interpolate(x); }, {"either size or scale_factor"});
  expect_error(
      [&] {
        F::interpolate(x, F::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{3, 3})
                              .scale_factor(std::vector<double>{2, 2}));
      },
      {"only one of size or scale_factor"});
  expect_error(
      [&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).align_corners(true));
      },
      {"align_corners option can only be set"});
  expect_error(
      [&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).mode(nabla::kLinear));
      },
      {"size shape must match"});
  expect_error(
      [&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(nabla::kLinear));
      },
      {"linear mode needs 3D input"});
  expect_error(
      [&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(nabla::kBicubic));
      },
      {"kBicubic is not implemented"});
}

TEST(FunctionalResample, PixelShuffleRoundTrip) {
  Tensor x = nabla::arange(2 * 8 * 3 * 3, nabla::kFloat).view({2, 8, 3, 3});
  Tensor y = F::pixel_shuffle(x, 2);
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 2, 6, 6}));
  // Output pixel (h*r + i, w*r + j) of channel c is input channel c*r*r + i*r + j at (h, w).
  EXPECT_EQ(y[0][1][3][2].item<double>(), x[0][1 * 4 + 1 * 2 + 0][1][1].item<double>());
  EXPECT_TRUE(F::pixel_unshuffle(y, 2).equal(x));
  expect_error([&] { F::pixel_shuffle(x, 3); }, {"divisible"});
}
