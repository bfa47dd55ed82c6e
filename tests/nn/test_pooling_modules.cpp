// The 3-d, adaptive, unpooling, fractional and power-average pooling modules and their F::
// spellings: values against brute-force loops written here, printing, nullopt output
// sizes, errors (values against LibTorch: tests/conformance/table_nn_pool.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;
using nabla::testing::expect_error;
using nabla::testing::expect_values;
using nabla::testing::values;
using V = std::vector<int64_t>;

namespace {

template <class M>
std::string printed(const M& module) {
  std::ostringstream os;
  os << *module;
  return os.str();
}

// Max pooling of x [P, D, H, W] (double) by loops: (values, flat indices) as LibTorch.
std::pair<std::vector<double>, std::vector<double>> max_pool3d_loops(const Tensor& x, V k, V s, V p,
                                                                     V d, V out) {
  const auto v = values(x);
  const int64_t planes = x.size(0), in_d = x.size(1), in_h = x.size(2), in_w = x.size(3);
  std::vector<double> vals, idx;
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t a = 0; a < out[0]; ++a)
      for (int64_t b = 0; b < out[1]; ++b)
        for (int64_t e = 0; e < out[2]; ++e) {
          double best = -std::numeric_limits<double>::infinity();
          int64_t at = -1;
          for (int64_t i = 0; i < k[0]; ++i)
            for (int64_t j = 0; j < k[1]; ++j)
              for (int64_t l = 0; l < k[2]; ++l) {
                const int64_t z = a * s[0] - p[0] + i * d[0], y = b * s[1] - p[1] + j * d[1],
                              w = e * s[2] - p[2] + l * d[2];
                if (z < 0 || z >= in_d || y < 0 || y >= in_h || w < 0 || w >= in_w) continue;
                const int64_t flat = (z * in_h + y) * in_w + w;
                const double val = v[static_cast<size_t>(c * in_d * in_h * in_w + flat)];
                if (at < 0 || val > best) best = val, at = flat;
              }
          vals.push_back(best);
          idx.push_back(static_cast<double>(at));
        }
  return {vals, idx};
}

}  // namespace

TEST(PoolingModules, MaxPool3dMatchesLoopsWithPaddingDilationCeil) {
  nabla::manual_seed(1);
  Tensor x = nabla::randn({2, 3, 5, 6, 7}, nabla::kDouble);
  nn::MaxPool3d pool(nn::MaxPool3dOptions({3, 2, 3})
                         .stride({2, 1, 2})
                         .padding({1, 0, 1})
                         .dilation({1, 2, 1})
                         .ceil_mode(true));
  auto [y, i] = pool->forward_with_indices(x);
  // D: (5 + 2 - 3 + 1) / 2 + 1 = 3 (ceil); H: 6 - 2 = 4; W: (7 + 2 - 3 + 1) / 2 + 1 = 4.
  EXPECT_EQ(y.sizes().vec(), (V{2, 3, 3, 4, 4}));
  auto [want_v, want_i] =
      max_pool3d_loops(x.view({6, 5, 6, 7}), {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 2, 1}, {3, 4, 4});
  EXPECT_EQ(values(y), want_v);
  EXPECT_EQ(values(i), want_i);
  EXPECT_EQ(pool(x).sizes().vec(), y.sizes().vec());
  // The unbatched form: one sample's result.
  EXPECT_EQ(values(pool(x[1])), values(y[1]));
}

TEST(PoolingModules, MaxPool3dGradientGoesToArgMax) {
  Tensor x = nabla::arange(64, nabla::kDouble).view({1, 1, 4, 4, 4}).requires_grad_();
  auto [y, i] = F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2));
  EXPECT_EQ(values(i), (std::vector<double>{21, 23, 29, 31, 53, 55, 61, 63}));
  EXPECT_EQ(y.grad_fn()->name(), "MaxPool3DWithIndicesBackward0");
  y.sum().backward();
  std::vector<double> want(64, 0.0);
  for (double at : values(i)) want[static_cast<size_t>(at)] = 1;
  EXPECT_EQ(values(x.grad()), want);
  // Overlapping windows add up at a shared maximum.
  Tensor z = nabla::zeros({1, 1, 3, 3, 3}, nabla::kDouble);
  z.view({-1})[13].fill_(5.0);
  z.requires_grad_();
  F::max_pool3d(z, F::MaxPool3dFuncOptions(2).stride(1)).sum().backward();
  EXPECT_EQ(z.grad().view({-1})[13].item<double>(), 8.0);
}

TEST(PoolingModules, AvgPool3dDivisors) {
  Tensor ones = nabla::ones({1, 1, 3, 3, 3}, nabla::kDouble);
  nn::AvgPool3dOptions opts(3);
  opts.stride(2).padding(1);
  // Each window holds 2 x 2 x 2 input elements of 27 positions.
  expect_values(nn::AvgPool3d(opts)(ones), std::vector<double>(8, 8.0 / 27));
  expect_values(nn::AvgPool3d(nn::AvgPool3dOptions(opts).count_include_pad(false))(ones),
                std::vector<double>(8, 1.0));
  expect_values(nn::AvgPool3d(nn::AvgPool3dOptions(opts).divisor_override(4))(ones),
                std::vector<double>(8, 2.0));
  // Against the mean of each window.
  nabla::manual_seed(2);
  Tensor x = nabla::randn({2, 2, 4, 6, 5}, nabla::kDouble).requires_grad_();
  Tensor y = F::avg_pool3d(x, F::AvgPool3dFuncOptions({2, 3, 2}).stride({2, 3, 1}));
  EXPECT_EQ(y.sizes().vec(), (V{2, 2, 2, 2, 4}));
  EXPECT_NEAR(y[1][0][1][1][3].item<double>(),
              x[1][0].narrow(0, 2, 2).narrow(1, 3, 3).narrow(2, 3, 2).mean().item<double>(), 1e-12);
  EXPECT_EQ(y.grad_fn()->name(), "AvgPool3DBackward0");
  y.sum().backward();
  // Position (0, 0, 0) lies in one window of 12; column 1 of W in two.
  EXPECT_NEAR(x.grad()[0][0][0][0][0].item<double>(), 1.0 / 12, 1e-12);
  EXPECT_NEAR(x.grad()[0][0][0][0][1].item<double>(), 2.0 / 12, 1e-12);
}

TEST(PoolingModules, AdaptivePoolingWithNulloptSizes) {
  nabla::manual_seed(3);
  Tensor x = nabla::randn({1, 2, 4, 3, 5}, nabla::kDouble);
  nn::AdaptiveAvgPool3d avg(nn::AdaptiveAvgPool3dOptions({2, nabla::nullopt, 1}));
  Tensor y = avg(x);
  EXPECT_EQ(y.sizes().vec(), (V{1, 2, 2, 3, 1}));
  Tensor want = x.view({1, 2, 2, 2, 3, 5}).mean({3, 5}).unsqueeze(-1);
  EXPECT_TRUE(nabla::allclose(y, want));
  EXPECT_EQ(printed(avg), "nabla::nn::AdaptiveAvgPool3d(output_size=[2, None, 1])");

  nn::AdaptiveMaxPool2d max2(nn::AdaptiveMaxPool2dOptions({nabla::nullopt, 2}));
  auto [v, i] = max2->forward_with_indices(x[0][0]);  // [4, 3, 5] -> [4, 3, 2]
  EXPECT_EQ(v.sizes().vec(), (V{4, 3, 2}));
  EXPECT_EQ(printed(max2), "nabla::nn::AdaptiveMaxPool2d(output_size=[None, 2])");

  nn::AdaptiveMaxPool3d max3(nn::AdaptiveMaxPool3dOptions({1, 1, 1}));
  auto [m, at] = max3->forward_with_indices(x);
  EXPECT_EQ(values(m), values(x.flatten(2).amax(-1)));
  EXPECT_EQ(values(at), values(x.flatten(2).argmax(-1)));
}

TEST(PoolingModules, AdaptiveMaxPool1dAnd3dIndices) {
  Tensor x = nabla::tensor({3., 1., 4., 1., 5., 9., 2.}).view({1, 1, 7});
  nn::AdaptiveMaxPool1d pool(3);
  auto [v, i] = pool->forward_with_indices(x);
  // Windows [0, 3), [2, 5), [4, 7).
  EXPECT_EQ(values(v), (std::vector<double>{4, 5, 9}));
  EXPECT_EQ(values(i), (std::vector<double>{2, 4, 5}));
  EXPECT_EQ(printed(pool), "nabla::nn::AdaptiveMaxPool1d(output_size=3)");

  // 3-d windows overlap when sizes do not divide: D 5 -> 3 takes [0, 2), [1, 4), [3, 5).
  Tensor z = nabla::arange(5 * 2 * 2, nabla::kDouble).view({1, 5, 2, 2}).requires_grad_();
  auto [zv, zi] =
      F::adaptive_max_pool3d_with_indices(z, F::AdaptiveMaxPool3dFuncOptions({3, 1, 1}));
  EXPECT_EQ(values(zi), (std::vector<double>{7, 15, 19}));
  EXPECT_EQ(values(zv), (std::vector<double>{7, 15, 19}));
  EXPECT_EQ(zv.grad_fn()->name(), "AdaptiveMaxPool3DBackward0");
  zv.sum().backward();
  EXPECT_EQ(z.grad().sum().item<double>(), 3.0);
  EXPECT_EQ(z.grad().view({-1})[15].item<double>(), 1.0);
}

TEST(PoolingModules, MaxUnpoolInvertsMaxPool) {
  nabla::manual_seed(4);
  // Positive values: a window of the unpooled output then has its maximum back.
  Tensor x = nabla::randn({2, 3, 4, 6, 4}, nabla::kDouble).abs() + 0.1;
  nn::MaxPool3d pool(nn::MaxPool3dOptions(2));
  nn::MaxUnpool3d unpool(nn::MaxUnpool3dOptions(2));
  auto [y, i] = pool->forward_with_indices(x);
  Tensor back = unpool(y, i);
  EXPECT_EQ(back.sizes().vec(), x.sizes().vec());
  // Only the maxima come back, where they were.
  EXPECT_TRUE(nabla::equal(F::max_pool3d(back, F::MaxPool3dFuncOptions(2)), y));
  EXPECT_EQ((back != 0).sum().item<int64_t>(), y.numel());

  // 2-d with a larger output (the indices stay positions of a 4 x 4 plane).
  Tensor img = nabla::arange(16, nabla::kDouble).view({1, 1, 4, 4});
  auto [p, pi] = F::max_pool2d_with_indices(img, F::MaxPool2dFuncOptions(2));
  nn::MaxUnpool2d un2(nn::MaxUnpool2dOptions(2));
  Tensor big = un2(p, pi, V{1, 1, 5, 5});
  EXPECT_EQ(big.sizes().vec(), (V{1, 1, 5, 5}));
  EXPECT_EQ(big.view({-1})[5].item<double>(), 5.0);
  EXPECT_EQ(big.sum().item<double>(), 5 + 7 + 13 + 15);

  // 1-d, unbatched, and its gradient: each value's gradient is the output's at its index.
  Tensor v = nabla::tensor({2., 4., 5.}).view({1, 3}).requires_grad_();
  Tensor at = nabla::tensor(std::vector<int64_t>{1, 3, 4}).view({1, 3});
  Tensor out = F::max_unpool1d(v, at, F::MaxUnpool1dFuncOptions(2));
  expect_values(out, {0, 2, 0, 4, 5, 0});
  EXPECT_EQ(printed(nn::MaxUnpool1d(3)),
            "nabla::nn::MaxUnpool1d(kernel_size=3, stride=3, padding=0)");
  (out * nabla::arange(6, nabla::kFloat)).sum().backward();
  expect_values(v.grad(), {1, 3, 4});
}

TEST(PoolingModules, MaxUnpoolErrors) {
  Tensor v = nabla::ones({1, 1, 2, 2});
  Tensor at = nabla::zeros({1, 1, 2, 2}, nabla::kLong);
  expect_error([&] { F::max_unpool2d(v, at.to(nabla::kInt), F::MaxUnpool2dFuncOptions(2)); },
               {"max_unpool2d", "int64"});
  expect_error([&] { F::max_unpool2d(v, at + 16, F::MaxUnpool2dFuncOptions(2)); },
               {"max_unpool2d", "invalid max index: 16"});
  expect_error(
      [&] {
        F::max_unpool2d(v, at.view({1, 4}), F::MaxUnpool2dFuncOptions(2));
      },
      {"max_unpool2d", "shape of indices"});
  expect_error(
      [&] {
        F::max_unpool2d(v, at,
                        F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 4}));
      },
      {"max_unpool2d", "invalid output_size", "between 2 and 6"});
  expect_error(
      [&] {
        nabla::max_unpool3d(v.unsqueeze(0), at.unsqueeze(0), {4, 4, 4}, {0, 1, 1}, {0, 0, 0});
      },
      {"max_unpool3d", "stride"});
}

TEST(PoolingModules, FractionalMaxPoolWindowsFromSamples) {
  nabla::manual_seed(5);
  Tensor x = nabla::randn({2, 3, 9, 8}, nabla::kDouble);
  Tensor samples = nabla::rand({2, 3, 2}, nabla::kDouble);
  auto [y, i] =
      F::fractional_max_pool2d_with_indices(x, F::FractionalMaxPool2dFuncOptions({2, 3})
                                                   .output_size(std::array<int64_t, 2>{4, 3})
                                                   ._random_samples(samples));
  EXPECT_EQ(y.sizes().vec(), (V{2, 3, 4, 3}));
  // Window starts floor((o + u) a) - floor(u a), a = (n - k) / (out - 1); the last ends at n.
  auto starts = [](double u, int64_t n, int64_t out, int64_t k) {
    V s;
    const double a = static_cast<double>(n - k) / static_cast<double>(out - 1);
    for (int64_t o = 0; o + 1 < out; ++o)
      s.push_back(static_cast<int64_t>((static_cast<double>(o) + u) * a) -
                  static_cast<int64_t>(u * a));
    s.push_back(n - k);
    return s;
  };
  const auto xv = values(x), yv = values(y), iv = values(i), uv = values(samples);
  for (int64_t p = 0; p < 6; ++p) {
    const V rows = starts(uv[static_cast<size_t>(2 * p + 1)], 9, 4, 2);
    const V cols = starts(uv[static_cast<size_t>(2 * p)], 8, 3, 3);
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 3; ++c) {
        double best = -1e300;
        int64_t at = 0;
        for (int64_t a = 0; a < 2; ++a)
          for (int64_t b = 0; b < 3; ++b) {
            const int64_t flat =
                (rows[static_cast<size_t>(r)] + a) * 8 + cols[static_cast<size_t>(c)] + b;
            if (xv[static_cast<size_t>(p * 72 + flat)] > best)
              best = xv[static_cast<size_t>(p * 72 + flat)], at = flat;
          }
        const size_t o = static_cast<size_t>(p * 12 + r * 3 + c);
        EXPECT_EQ(yv[o], best);
        EXPECT_EQ(iv[o], static_cast<double>(at));
      }
  }
}

TEST(PoolingModules, FractionalMaxPoolModules) {
  nabla::manual_seed(6);
  Tensor x = nabla::randn({1, 2, 8, 8, 8}, nabla::kDouble).requires_grad_();
  nn::FractionalMaxPool3d pool(nn::FractionalMaxPool3dOptions(2).output_ratio(0.5));
  auto [y, i] = pool->forward_with_indices(x);
  EXPECT_EQ(y.sizes().vec(), (V{1, 2, 4, 4, 4}));
  EXPECT_TRUE(nabla::equal(y, x.flatten(2).gather(2, i.flatten(2)).view_as(y)));
  EXPECT_EQ(y.grad_fn()->name(), "FractionalMaxPool3DBackward0");
  y.sum().backward();
  EXPECT_EQ(x.grad().sum().item<double>(), 2.0 * 64);
  EXPECT_EQ(printed(pool), "nabla::nn::FractionalMaxPool3d()");
  // Fixed samples give the same windows every call.
  nn::FractionalMaxPool2d fixed(nn::FractionalMaxPool2dOptions(3).output_size(3)._random_samples(
      nabla::full({1, 2, 2}, 0.25, nabla::kDouble)));
  Tensor img = x.detach()[0][0].narrow(0, 0, 2);  // [C = 2, 8, 8]
  EXPECT_TRUE(nabla::equal(fixed(img), fixed(img)));
  EXPECT_EQ(fixed->named_buffers().size(), 1u);

  expect_error([] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2)); },
               {"FractionalMaxPool2d", "output size"});
  expect_error([] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_ratio(1.5)); },
               {"FractionalMaxPool2d", "output_ratio"});
  expect_error(
      [&] { F::fractional_max_pool2d(img, F::FractionalMaxPool2dFuncOptions(5).output_size(5)); },
      {"fractional_max_pool2d", "too large"});
  expect_error(
      [&] {
        F::fractional_max_pool2d(
            img, F::FractionalMaxPool2dFuncOptions(2).output_size(3)._random_samples(
                     nabla::rand({1, 3, 2}, nabla::kDouble)));
      },
      {"fractional_max_pool2d", "_random_samples"});
}

TEST(PoolingModules, LPPool) {
  Tensor x = nabla::tensor({3., 4., 0., 0., 1.}).view({1, 1, 5});
  nn::LPPool1d l2(2, 2);
  expect_values(l2(x), {5, 0});  // the last, partial window is dropped
  // A partial window counts as a full one: its average times the kernel size, as LibTorch.
  expect_values(nn::LPPool1d(nn::LPPool1dOptions(2, 2).ceil_mode(true))(x), {5, 0, std::sqrt(2.0)});
  EXPECT_EQ(printed(l2),
            "nabla::nn::LPPool1d(norm_type=2, kernel_size=2, stride=2, ceil_mode=false)");
  Tensor img = nabla::arange(16, nabla::kDouble).view({1, 4, 4});
  // p = 1 sums each window.
  expect_values(F::lp_pool2d(img, F::LPPool2dFuncOptions(1, 2)), {10, 18, 42, 50});
  nn::LPPool2d l3(nn::LPPool2dOptions(3, {2, 1}).stride({2, 2}));
  Tensor y = l3(img.requires_grad_());
  EXPECT_NEAR(y[0][0][1].item<double>(), std::cbrt(2.0 * 2 * 2 + 6.0 * 6 * 6), 1e-9);
  EXPECT_EQ(printed(l3),
            "nabla::nn::LPPool2d(norm_type=3, kernel_size=[2, 1], stride=[2, 2], ceil_mode=false)");
  y.sum().backward();
  EXPECT_TRUE(img.grad().defined());
}

TEST(PoolingModules, PrintingAndForwardWithIndices) {
  EXPECT_EQ(
      printed(nn::MaxPool1d(5)),
      "nabla::nn::MaxPool1d(kernel_size=5, stride=5, padding=0, dilation=1, ceil_mode=false)");
  EXPECT_EQ(printed(nn::MaxPool3d(nn::MaxPool3dOptions(2).ceil_mode(true))),
            "nabla::nn::MaxPool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0], "
            "dilation=[1, 1, 1], ceil_mode=true)");
  EXPECT_EQ(printed(nn::AvgPool3d(nn::AvgPool3dOptions({1, 2, 3}))),
            "nabla::nn::AvgPool3d(kernel_size=[1, 2, 3], stride=[1, 2, 3], padding=[0, 0, 0])");
  Tensor x = nabla::tensor({1., 5., 2., 7., 3.}).view({1, 5});
  auto [v, i] = nn::MaxPool1d(nn::MaxPool1dOptions(2).stride(1))->forward_with_indices(x);
  expect_values(v, {5, 5, 7, 7});
  expect_values(i, {1, 1, 3, 3});
}

TEST(PoolingModules, Errors) {
  Tensor x = nabla::randn({2, 3, 4, 4});
  expect_error([&] { F::max_pool3d(x[0], F::MaxPool3dFuncOptions(2)); },
               {"max_pool3d", "4-d (unbatched) or 5-d", "3 dims"});
  expect_error([&] { F::max_pool3d(x, F::MaxPool3dFuncOptions(5)); }, {"max_pool3d", "too small"});
  expect_error([&] { F::avg_pool3d(x, F::AvgPool3dFuncOptions(2).padding(2)); },
               {"avg_pool3d", "pad should be at most half"});
  expect_error([&] { F::avg_pool3d(x, F::AvgPool3dFuncOptions(2).stride(0)); },
               {"avg_pool3d", "stride"});
  expect_error([&] { nabla::max_pool3d(x, {2, 2}); }, {"max_pool3d", "kernel_size"});
  expect_error(
      [&] {
        nabla::adaptive_max_pool3d(x, {2, 0, 2});
      },
      {"adaptive_max_pool3d", "output_size"});
  expect_error([&] { F::adaptive_avg_pool3d(x[0][0], F::AdaptiveAvgPool3dFuncOptions(2)); },
               {"adaptive_avg_pool3d"});
  expect_error([&] { F::adaptive_max_pool1d(x, F::AdaptiveMaxPool1dFuncOptions(2)); },
               {"adaptive_max_pool1d", "2-d or 3-d"});
  expect_error([&] { F::avg_pool3d(x.to(nabla::kLong), F::AvgPool3dFuncOptions(2)); },
               {"avg_pool3d", "floating"});
}
