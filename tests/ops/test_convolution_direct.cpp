// conv2d / conv1d in float32 by the backend's direct kernels (oneDNN, when built in)
// against the same convolution in float64, which takes the im2col + gemm path: values,
// input / weight / bias gradients, double backward (create_graph), over stride, padding,
// dilation, groups, batch sizes that cut into uneven chunks, and one and two threads.
// The op table cannot say this: its samples are too small for these paths, and its
// gradients are float64 only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nabla/backend/isa.h"
#include "nabla/nabla.h"

namespace {

using nabla::Tensor;
using Ints = std::vector<int64_t>;

struct Geometry {
  int64_t n, c, h, w, o, kh, kw;
  Ints stride, padding, dilation;
  int64_t groups;
  bool bias;
};

const std::vector<Geometry> kCases = {
    {1, 1, 28, 28, 32, 3, 3, {1}, {1}, {1}, 1, true},   // W3's first layer, one sample
    {5, 32, 14, 14, 64, 3, 3, {1}, {1}, {1}, 1, true},  // W3's second, an odd batch
    {3, 8, 9, 7, 6, 3, 2, {2, 1}, {1, 0}, {1, 2}, 1, false},
    {4, 6, 8, 8, 9, 3, 3, {1}, {2}, {2}, 3, true},      // groups and dilation
    {2, 16, 7, 7, 16, 3, 3, {1}, {1}, {1}, 16, false},  // depthwise
    {7, 16, 6, 6, 24, 1, 1, {1}, {0}, {1}, 1, true},    // 1x1
    {5, 8, 24, 24, 10, 1, 1, {1}, {0}, {1}, 1, true},   // 1x1 on 576 positions: products
    {1, 6, 32, 20, 7, 1, 1, {1}, {0}, {1}, 1, false},   // the same, one sample
    {9, 12, 14, 14, 10, 1, 1, {1}, {0}, {1}, 1, true},  // 14 x 14, batch 9: products
    {2, 12, 14, 14, 10, 1, 1, {1}, {0}, {1}, 1, true},  // 14 x 14, batch 2: oneDNN
    {3, 4, 11, 10, 5, 5, 5, {3, 2}, {2, 2}, {1}, 1, true},
};

double max_diff(const Tensor& a, const Tensor& b) {
  return (a.to(nabla::kDouble) - b.to(nabla::kDouble)).abs().max().item<double>();
}

struct Result {
  Tensor out, gx, gw, gb;
};

Result run(const Geometry& g, const Tensor& x0, const Tensor& w0, const Tensor& b0,
           const Tensor& gy, nabla::ScalarType dtype) {
  Tensor x = x0.to(dtype).requires_grad_(), w = w0.to(dtype).requires_grad_();
  Tensor b = g.bias ? b0.to(dtype).requires_grad_() : Tensor();
  Tensor out = nabla::conv2d(x, w, b, g.stride, g.padding, g.dilation, g.groups);
  out.backward(gy.to(dtype));
  return {out, x.grad(), w.grad(), g.bias ? b.grad() : Tensor()};
}

bool direct_path_expected() {
  return NABLA_EXPECT_DNNL && nabla::active_isa() != nabla::Isa::Scalar;
}

class ConvDirect : public ::testing::TestWithParam<int> {};

TEST_P(ConvDirect, MatchesFloat64Composite) {
  nabla::set_num_threads(GetParam());
  nabla::manual_seed(7);
  for (const Geometry& g : kCases) {
    Tensor x = nabla::randn({g.n, g.c, g.h, g.w}, nabla::kDouble);
    Tensor w = nabla::randn({g.o, g.c / g.groups, g.kh, g.kw}, nabla::kDouble);
    Tensor b = nabla::randn({g.o}, nabla::kDouble);
    Tensor probe = nabla::conv2d(x, w, b, g.stride, g.padding, g.dilation, g.groups);
    Tensor gy = nabla::randn(probe.sizes(), nabla::kDouble);
    Result f = run(g, x, w, b, gy, nabla::kFloat), d = run(g, x, w, b, gy, nabla::kDouble);
    const std::string at = "case n=" + std::to_string(g.n) + " c=" + std::to_string(g.c) +
                           " o=" + std::to_string(g.o) + " groups=" + std::to_string(g.groups);
    ASSERT_EQ(f.out.sizes(), d.out.sizes()) << at;
    const double scale = 1e-4 * (1 + g.c / g.groups * g.kh * g.kw / 8.0);
    EXPECT_LT(max_diff(f.out, d.out), scale) << at;
    EXPECT_LT(max_diff(f.gx, d.gx), scale) << at;
    EXPECT_LT(max_diff(f.gw, d.gw), scale * (1 + g.n * g.h * g.w / 64.0)) << at;
    if (g.bias) {
      EXPECT_LT(max_diff(f.gb, d.gb), scale * (1 + g.n * g.h * g.w / 64.0)) << at;
    }
    if (direct_path_expected()) {
      EXPECT_EQ(f.out.grad_fn()->name(), "ConvolutionBackward0") << at;
    }
  }
  nabla::set_num_threads(2);
}

INSTANTIATE_TEST_SUITE_P(Threads, ConvDirect, ::testing::Values(1, 2));

// create_graph: the gradient of the input gradient's square sum with respect to the
// weight, through ConvolutionBackward0's differentiable formulas, equals float64's.
TEST(ConvDirect, DoubleBackward) {
  nabla::manual_seed(3);
  for (const Geometry& g : kCases) {
    Tensor x = nabla::randn({g.n, g.c, g.h, g.w}, nabla::kDouble);
    Tensor w = nabla::randn({g.o, g.c / g.groups, g.kh, g.kw}, nabla::kDouble);
    auto second = [&](nabla::ScalarType dtype) {
      Tensor xv = x.to(dtype).requires_grad_(), wv = w.to(dtype).requires_grad_();
      Tensor out = nabla::conv2d(xv, wv, Tensor(), g.stride, g.padding, g.dilation, g.groups);
      Tensor gx = nabla::autograd::grad({out.pow(2).sum()}, {xv}, {}, true, true)[0];
      return nabla::autograd::grad({gx.pow(2).sum()}, {wv})[0];
    };
    Tensor f = second(nabla::kFloat), d = second(nabla::kDouble);
    EXPECT_LT(max_diff(f, d), 1e-3 * (1 + d.abs().max().item<double>())) << "groups " << g.groups;
  }
}

// conv1d goes through the same kernels (a height of 1).
TEST(ConvDirect, Conv1d) {
  nabla::manual_seed(5);
  Tensor x = nabla::randn({4, 6, 30}, nabla::kDouble), w = nabla::randn({8, 3, 5}, nabla::kDouble);
  Tensor xf = x.to(nabla::kFloat).requires_grad_(), wf = w.to(nabla::kFloat).requires_grad_();
  Tensor xd = x.clone().requires_grad_(), wd = w.clone().requires_grad_();
  Tensor of = nabla::conv1d(xf, wf, Tensor(), {2}, {1}, {2}, 2);
  Tensor od = nabla::conv1d(xd, wd, Tensor(), {2}, {1}, {2}, 2);
  EXPECT_LT(max_diff(of, od), 1e-4);
  of.sum().backward();
  od.sum().backward();
  EXPECT_LT(max_diff(xf.grad(), xd.grad()), 1e-4);
  EXPECT_LT(max_diff(wf.grad(), wd.grad()), 1e-3);
}

// Non-contiguous inputs are convolved as their contiguous copies.
TEST(ConvDirect, NonContiguousInput) {
  nabla::manual_seed(9);
  Tensor x = nabla::randn({6, 5, 12, 4}).transpose(2, 3).transpose(0, 1);  // [5, 6, 4, 12]
  Tensor w = nabla::randn({7, 6, 3, 3});
  Tensor want =
      nabla::conv2d(x.contiguous().to(nabla::kDouble), w.to(nabla::kDouble), Tensor(), {1}, {1});
  EXPECT_LT(max_diff(nabla::conv2d(x, w, Tensor(), {1}, {1}), want), 1e-4);
}

}  // namespace
