// Conv3d, ConvTranspose3d and the 3-d padding modules, checked against direct loops over
// the definitions (values against LibTorch: tests/conformance/table_nn_conv.cpp,
// table_nn_resample.cpp and tests/libtorch).
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

using V = std::vector<int64_t>;

std::string conv3d_printed(const nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

// out[n, o, z, y, x] = b[o] + sum over c in o's group and the kernel of
// w[o, c, i, j, k] * in[n, g c, z s0 - p0 + i d0, ...] (zero outside the input).
Tensor naive_conv3d(const Tensor& in, const Tensor& w, const Tensor& b, V s, V p, V d,
                    int64_t groups) {
  const Tensor in64 = in.to(nabla::kDouble), w64 = w.to(nabla::kDouble);
  auto x = in64.accessor<double, 5>();
  auto k = w64.accessor<double, 5>();
  V out_size(3);
  for (size_t a = 0; a < 3; ++a)
    out_size[a] = (in.size(a + 2) + 2 * p[a] - d[a] * (w.size(a + 2) - 1) - 1) / s[a] + 1;
  Tensor out =
      nabla::zeros({in.size(0), w.size(0), out_size[0], out_size[1], out_size[2]}, nabla::kDouble);
  auto o = out.accessor<double, 5>();
  const int64_t per_group_in = w.size(1), per_group_out = w.size(0) / groups;
  for (int64_t n = 0; n < in.size(0); ++n)
    for (int64_t oc = 0; oc < w.size(0); ++oc)
      for (int64_t z = 0; z < out_size[0]; ++z)
        for (int64_t y = 0; y < out_size[1]; ++y)
          for (int64_t xx = 0; xx < out_size[2]; ++xx) {
            double acc = b.defined() ? b[oc].item<double>() : 0.0;
            for (int64_t c = 0; c < per_group_in; ++c)
              for (int64_t i = 0; i < w.size(2); ++i)
                for (int64_t j = 0; j < w.size(3); ++j)
                  for (int64_t l = 0; l < w.size(4); ++l) {
                    const int64_t zi = z * s[0] - p[0] + i * d[0], yi = y * s[1] - p[1] + j * d[1],
                                  xi = xx * s[2] - p[2] + l * d[2];
                    if (zi < 0 || yi < 0 || xi < 0 || zi >= in.size(2) || yi >= in.size(3) ||
                        xi >= in.size(4))
                      continue;
                    acc += k[oc][c][i][j][l] *
                           x[n][(oc / per_group_out) * per_group_in + c][zi][yi][xi];
                  }
            o[n][oc][z][y][xx] = acc;
          }
  return out;
}

// The transposed form scatters: out[n, g o, z s - p + i d, ...] += w[c, o, i, j, k] * in[n, c, z,
// ...].
Tensor naive_conv_transpose3d(const Tensor& in, const Tensor& w, V s, V p, V op, V d,
                              int64_t groups) {
  const Tensor in64 = in.to(nabla::kDouble), w64 = w.to(nabla::kDouble);
  auto x = in64.accessor<double, 5>();
  auto k = w64.accessor<double, 5>();
  V out_size(3);
  for (size_t a = 0; a < 3; ++a)
    out_size[a] = (in.size(a + 2) - 1) * s[a] - 2 * p[a] + d[a] * (w.size(a + 2) - 1) + op[a] + 1;
  const int64_t per_group_in = in.size(1) / groups, per_group_out = w.size(1);
  Tensor out = nabla::zeros(
      {in.size(0), per_group_out * groups, out_size[0], out_size[1], out_size[2]}, nabla::kDouble);
  auto o = out.accessor<double, 5>();
  for (int64_t n = 0; n < in.size(0); ++n)
    for (int64_t c = 0; c < in.size(1); ++c)
      for (int64_t z = 0; z < in.size(2); ++z)
        for (int64_t y = 0; y < in.size(3); ++y)
          for (int64_t xx = 0; xx < in.size(4); ++xx)
            for (int64_t oc = 0; oc < per_group_out; ++oc)
              for (int64_t i = 0; i < w.size(2); ++i)
                for (int64_t j = 0; j < w.size(3); ++j)
                  for (int64_t l = 0; l < w.size(4); ++l) {
                    const int64_t zo = z * s[0] - p[0] + i * d[0], yo = y * s[1] - p[1] + j * d[1],
                                  xo = xx * s[2] - p[2] + l * d[2];
                    if (zo < 0 || yo < 0 || xo < 0 || zo >= out_size[0] || yo >= out_size[1] ||
                        xo >= out_size[2])
                      continue;
                    o[n][(c / per_group_in) * per_group_out + oc][zo][yo][xo] +=
                        k[c][oc][i][j][l] * x[n][c][z][y][xx];
                  }
  return out;
}

}  // namespace

TEST(Conv3dModules, MatchesTheDefinition) {
  nabla::manual_seed(0);
  Tensor x = nabla::randn({2, 4, 5, 6, 4}, nabla::kDouble);
  Tensor w = nabla::randn({6, 2, 2, 3, 2}, nabla::kDouble), b = nabla::randn({6}, nabla::kDouble);
  Tensor got = nabla::conv3d(x, w, b, V{2, 1, 1}, V{1, 0, 1}, V{1, 2, 1}, 2);
  Tensor want = naive_conv3d(x, w, b, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}, 2);
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
  EXPECT_TRUE(got.allclose(want, 1e-10, 1e-10));
  // float32 through the module, unbatched.
  nn::Conv3d conv(nn::Conv3dOptions(4, 6, V{2, 3, 2})
                      .stride({2, 1, 1})
                      .padding({1, 0, 1})
                      .dilation({1, 2, 1})
                      .groups(2));
  Tensor x0 = x[0].to(nabla::kFloat);
  Tensor y0 = conv(x0);
  EXPECT_EQ(y0.dim(), 4);
  EXPECT_TRUE(y0.to(nabla::kDouble)
                  .allclose(naive_conv3d(x0.unsqueeze(0), conv->weight, conv->bias, {2, 1, 1},
                                         {1, 0, 1}, {1, 2, 1}, 2)[0],
                            1e-4, 1e-5));
}

TEST(Conv3dModules, TransposedMatchesTheDefinition) {
  nabla::manual_seed(1);
  Tensor x = nabla::randn({2, 4, 3, 2, 3}, nabla::kDouble);
  Tensor w = nabla::randn({4, 3, 3, 2, 2}, nabla::kDouble);
  Tensor got = nabla::conv_transpose3d(x, w, {}, V{2, 1, 3}, V{1, 0, 1}, V{1, 0, 2}, 2, V{1, 2, 1});
  Tensor want = naive_conv_transpose3d(x, w, {2, 1, 3}, {1, 0, 1}, {1, 0, 2}, {1, 2, 1}, 2);
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
  EXPECT_TRUE(got.allclose(want, 1e-10, 1e-10));
}

TEST(Conv3dModules, GradientsAreTheAdjoints) {
  // <conv3d(x, w), g> = <x, conv3d^T(g, w)>: the input gradient is the transposed
  // convolution, and the weight gradient matches a finite difference.
  nabla::manual_seed(2);
  Tensor x = nabla::randn({1, 2, 4, 3, 4}, nabla::kDouble).requires_grad_(true);
  Tensor w = nabla::randn({3, 2, 2, 2, 3}, nabla::kDouble).requires_grad_(true);
  Tensor y = nabla::conv3d(x, w, {}, V{2, 1, 1}, V{1, 1, 0});
  EXPECT_EQ(y.grad_fn()->name(), "ConvolutionBackward0");
  Tensor g = nabla::randn(y.sizes(), nabla::kDouble);
  (y * g).sum().backward();
  Tensor gx = nabla::conv_transpose3d(g, w.detach(), {}, V{2, 1, 1}, V{1, 1, 0}, V{0});
  EXPECT_TRUE(x.grad().allclose(gx, 1e-10, 1e-10));
  const double eps = 1e-6;
  Tensor wd = w.detach().clone();
  wd.view({-1})[5].add_(eps);
  const double up =
      (nabla::conv3d(x.detach(), wd, {}, V{2, 1, 1}, V{1, 1, 0}) * g).sum().item<double>();
  wd.view({-1})[5].sub_(2 * eps);
  const double down =
      (nabla::conv3d(x.detach(), wd, {}, V{2, 1, 1}, V{1, 1, 0}) * g).sum().item<double>();
  EXPECT_NEAR(w.grad().view({-1})[5].item<double>(), (up - down) / (2 * eps), 1e-6);
}

TEST(Conv3dModules, SamePaddingAndErrors) {
  nn::Conv3d same(nn::Conv3dOptions(2, 3, V{3, 2, 4}).padding(nabla::kSame));
  EXPECT_EQ(same(nabla::randn({1, 2, 5, 4, 6})).sizes().vec(), (V{1, 3, 5, 4, 6}));
  expect_error(
      [] {
        nn::Conv3d bad(nn::Conv3dOptions(2, 3, 3).stride({1, 2, 1}).padding(nabla::kSame));
      },
      {"padding='same' is not supported for strided convolutions"});
  expect_error([] { nn::Conv1d bad(nn::Conv1dOptions(2, 3, 3).stride(2).padding(nabla::kSame)); },
               {"padding='same' is not supported for strided convolutions"});
  expect_error(
      [] {
        nabla::conv3d(nabla::randn({1, 2, 4, 4, 4}), nabla::randn({3, 2, 3, 3, 3}), {}, 2, "same");
      },
      {"conv3d", "padding='same' is not supported for strided convolutions"});
  expect_error(
      [&] {
        same(nabla::randn({1, 3, 5, 4, 6}));
      },
      {"conv3d", "2 channels", "3 channels"});
  expect_error(
      [] {
        nabla::conv3d(nabla::randn({1, 2, 2, 4, 4}), nabla::randn({3, 2, 3, 3, 3}));
      },
      {"conv3d", "Kernel size can't be greater"});
  expect_error(
      [] {
        nabla::conv3d(nabla::randn({2, 4, 4, 4}), nabla::randn({3, 2, 3, 3}));
      },
      {"conv3d", "5-d weight", "4 dims"});
  expect_error(
      [] {
        nabla::conv3d(nabla::randn({1, 2, 4, 4}), nabla::randn({3, 2, 3, 3, 3}), {}, V{1, 1});
      },
      {"conv3d", "stride", "1 or 3 values"});
  expect_error(
      [] {
        nabla::conv_transpose3d(nabla::randn({1, 2, 3, 3, 3}), nabla::randn({2, 1, 2, 2, 2}), {}, 1,
                                0, 1);
      },
      {"conv_transpose3d", "output padding must be smaller than either stride or dilation"});
  // LibTorch builds a ConvTranspose3d with any padding_mode and refuses it when run.
  nn::ConvTranspose3d circular(nn::ConvTranspose3dOptions(2, 2, 2).padding_mode(nabla::kCircular));
  expect_error(
      [&] {
        circular(nabla::randn({1, 2, 3, 3, 3}));
      },
      {"Only `zeros` padding mode is supported for ConvTranspose3d"});
}

TEST(Conv3dModules, Printing) {
  EXPECT_EQ(conv3d_printed(*nn::Conv3d(4, 4, V{5, 6, 7})),
            "nabla::nn::Conv3d(4, 4, kernel_size=[5, 6, 7], stride=[1, 1, 1])");
  EXPECT_EQ(conv3d_printed(*nn::Conv1d(3, 4, 5)),
            "nabla::nn::Conv1d(3, 4, kernel_size=5, stride=1)");
  EXPECT_EQ(conv3d_printed(*nn::ConvTranspose3d(nn::ConvTranspose3dOptions(4, 4, 2)
                                                    .stride({1, 2, 3})
                                                    .dilation(0)
                                                    .groups(2)
                                                    .bias(false)
                                                    .padding_mode(nabla::kCircular))),
            "nabla::nn::ConvTranspose3d(4, 4, kernel_size=[2, 2, 2], stride=[1, 2, 3], "
            "dilation=[0, 0, 0], groups=2, bias=false, padding_mode=kCircular)");
  nn::ConvTranspose3d up(nn::ConvTranspose3dOptions(3, 2, 3).stride(2).padding(1));
  EXPECT_EQ(up->weight.sizes().vec(), (V{3, 2, 3, 3, 3}));
  EXPECT_EQ(up->forward(nabla::randn({1, 3, 2, 3, 4}), {4, 6, 8}).sizes().vec(),
            (V{1, 2, 4, 6, 8}));
}

TEST(Pad3dModules, ValuesAndPrinting) {
  Tensor x = nabla::arange(12, nabla::kDouble).reshape({1, 1, 2, 2, 3});
  // Reflection: index -1 -> 1, n -> n - 2, along each padded dim.
  Tensor r = nn::ReflectionPad3d(nn::ReflectionPad3dOptions({1, 0, 0, 1, 1, 0}))(x);
  ASSERT_EQ(r.sizes().vec(), (V{1, 1, 3, 3, 4}));
  EXPECT_EQ(r[0][0][0][0][0].item<double>(), 7);  // (z, y, x) = (1, 0, 1)
  EXPECT_EQ(r[0][0][1][2][3].item<double>(), 2);  // (0, 0, 2)
  EXPECT_TRUE(r[0][0][1].equal(r[0][0][0].sub(6)));
  Tensor rep = nn::ReplicationPad3d(1)(x);
  ASSERT_EQ(rep.sizes().vec(), (V{1, 1, 4, 4, 5}));
  EXPECT_EQ(rep[0][0][0][0][0].item<double>(), 0);
  EXPECT_EQ(rep[0][0][3][3][4].item<double>(), 11);
  Tensor c = nn::ConstantPad3d(nn::ConstantPad3dOptions({0, 1, 0, 0, 2, 0}, 3.5))(x);
  ASSERT_EQ(c.sizes().vec(), (V{1, 1, 4, 2, 4}));
  EXPECT_EQ(c[0][0][0][1][2].item<double>(), 3.5);
  EXPECT_EQ(c[0][0][3][1][2].item<double>(), 11);
  EXPECT_EQ(c[0][0][3][1][3].item<double>(), 3.5);
  EXPECT_TRUE(F::pad(x, F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(nabla::kReflect))
                  .equal(nn::ReflectionPad3d(1)(x)));
  EXPECT_EQ(conv3d_printed(*nn::ConstantPad3d(nn::ConstantPad3dOptions(1, 3.5))),
            "nabla::nn::ConstantPad3d(padding=[1, 1, 1, 1, 1, 1], value=3.5)");
  EXPECT_EQ(conv3d_printed(*nn::ReplicationPad3d(nn::ReplicationPad3dOptions({1, 2, 1, 2, 1, 2}))),
            "nabla::nn::ReplicationPad3d(padding=[1, 2, 1, 2, 1, 2])");
  EXPECT_EQ(conv3d_printed(*nn::ReflectionPad3d(2)),
            "nabla::nn::ReflectionPad3d(padding=[2, 2, 2, 2, 2, 2])");
  expect_error([&] { nn::ReflectionPad3d(2)(x); }, {"reflection_pad3d", "smaller than the size"});
  expect_error(
      [&] {
        nn::ReflectionPad3d(1)(nabla::randn({2, 2, 2}));
      },
      {"reflection_pad3d", "4-d or 5-d"});
}
