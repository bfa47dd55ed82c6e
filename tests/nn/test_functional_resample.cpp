// F::pad, F::interpolate, pixel_shuffle, F::grid_sample, F::affine_grid and F::pdist:
// option spellings, dispatch, errors and values worked by hand (the kernels are checked
// against LibTorch in tests/conformance/table_nn_resample.cpp and table_nn_sampling.cpp).
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
  // kArea is adaptive average pooling.
  EXPECT_EQ(
      values(F::interpolate(
          x, F::InterpolateFuncOptions().size(std::vector<int64_t>{1, 1}).mode(nabla::kArea))),
      (std::vector<double>{1.5}));
  expect_error(
      [&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).antialias(true));
      },
      {"Anti-alias option is only supported for bilinear and bicubic"});
  expect_error(
      [&] { F::interpolate(x[0][0], F::InterpolateFuncOptions().size(std::vector<int64_t>{3})); },
      {"Only 3D, 4D and 5D input Tensors supported (got 2D)"});
}

TEST(FunctionalResample, Bicubic) {
  // Cubic convolution reproduces constants, and straight lines away from the clamped edges.
  Tensor ones = nabla::ones({1, 1, 3, 3}, nabla::requires_grad());
  Tensor up = F::interpolate(ones, F::InterpolateFuncOptions()
                                       .size(std::vector<int64_t>{5, 7})
                                       .mode(nabla::kBicubic)
                                       .align_corners(false));
  EXPECT_TRUE(up.allclose(nabla::ones({1, 1, 5, 7})));
  Tensor ramp = nabla::arange(4, nabla::kFloat).view({1, 1, 1, 4}).expand({1, 1, 2, 4});
  Tensor line = F::interpolate(ramp, F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{2, 7})
                                         .mode(nabla::kBicubic)
                                         .align_corners(true));
  EXPECT_TRUE(line[0][0][0].allclose(nabla::tensor({0., 0.40625, 1., 1.5, 2., 2.59375, 3.})));
  // Each input pixel's gradient is the sum of its weights over the outputs.
  up.sum().backward();
  EXPECT_NEAR(ones.grad().sum().item<double>(), 35.0, 1e-4);
  // Antialiased downsampling by 2: a triangle filter twice as wide, cut at the borders
  // and renormalised (the first output weighs pixels 0, 1, 2 by 3/7, 3/7, 1/7).
  Tensor x = nabla::arange(8, nabla::kFloat).view({1, 1, 1, 8});
  Tensor aa = nabla::_upsample_bilinear2d_aa(x, {1, 4}, false);
  EXPECT_TRUE(aa.allclose(nabla::tensor({5. / 7, 2.5, 4.5, 44. / 7}).view({1, 1, 1, 4})));
}

TEST(FunctionalResample, GridSampleAndAffineGrid) {
  // The identity map resamples an image onto itself, in either corner convention.
  Tensor img = nabla::arange(12, nabla::kFloat).view({1, 1, 3, 4});
  for (bool align : {false, true}) {
    Tensor theta = nabla::tensor({1., 0., 0., 0., 1., 0.}).view({1, 2, 3});
    Tensor grid = F::affine_grid(theta, {1, 1, 3, 4}, align);
    EXPECT_EQ(grid.sizes().vec(), (std::vector<int64_t>{1, 3, 4, 2}));
    EXPECT_TRUE(F::grid_sample(img, grid, F::GridSampleFuncOptions().align_corners(align))
                    .allclose(img, 1e-5, 1e-5));
  }
  // Halfway between pixels 1 and 2 of the first row; well past the edge, zeros or the border.
  Tensor grid = nabla::tensor({0., -1., 2., -1.}).view({1, 1, 2, 2});
  EXPECT_TRUE(F::grid_sample(img, grid, F::GridSampleFuncOptions().align_corners(true))
                  .allclose(nabla::tensor({1.5, 0.}).view({1, 1, 1, 2})));
  EXPECT_TRUE(
      F::grid_sample(img, grid,
                     F::GridSampleFuncOptions().align_corners(true).padding_mode(nabla::kBorder))
          .allclose(nabla::tensor({1.5, 3.}).view({1, 1, 1, 2})));
  expect_error([&] { F::grid_sample(img, grid, F::GridSampleFuncOptions().mode(nabla::kBicubic)); },
               {"grid_sampler", "bicubic"});
  expect_error(
      [&] {
        F::affine_grid(nabla::zeros({1, 2, 3}, nabla::kInt), {1, 1, 2, 2});
      },
      {"Expected theta to have floating point type, but got int"});
  expect_error(
      [&] {
        F::affine_grid(nabla::zeros({1, 2, 3}), {1, 1});
      },
      {"affine_grid only supports 4D and 5D sizes"});
}

TEST(FunctionalResample, Pdist) {
  Tensor x = nabla::tensor({0., 0., 3., 4., 6., 8.}).view({3, 2}).requires_grad_();
  Tensor d = F::pdist(x);
  EXPECT_EQ(values(d), (std::vector<double>{5, 10, 5}));
  EXPECT_EQ(values(F::pdist(x, 1)), (std::vector<double>{7, 14, 7}));
  d.sum().backward();
  // d(|x0 - x1| + |x0 - x2|)/dx0 = -(0.6, 0.8) * 2; the middle row's terms cancel.
  EXPECT_TRUE(x.grad().allclose(nabla::tensor({-1.2, -1.6, 0., 0., 1.2, 1.6}).view({3, 2})));
  expect_error([&] { F::pdist(nabla::zeros({2, 2, 2})); }, {"pdist only supports 2D tensors"});
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
