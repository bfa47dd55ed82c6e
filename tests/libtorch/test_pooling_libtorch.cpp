// Pooling modules against LibTorch's: the same input through each module of both
// libraries (values, indices, input gradients), fractional max pooling's random windows
// from the same seed, and the printed form after the rename.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>

#include <nabla/nabla.h>

namespace {

nabla::Tensor to_nabla(const at::Tensor& t) {
  at::Tensor c = t.detach().contiguous().to(at::kDouble);
  std::vector<double> v(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  return nabla::tensor(v, nabla::kDouble).view(c.sizes().vec()).to(nabla::kFloat);
}

void expect_close(const at::Tensor& want, const nabla::Tensor& got, const std::string& what) {
  ASSERT_EQ(want.sizes().vec(), got.sizes().vec()) << what;
  at::Tensor w = want.detach().contiguous().to(at::kDouble);
  nabla::Tensor g = got.detach().contiguous().to(nabla::kDouble);
  for (int64_t i = 0; i < w.numel(); ++i)
    ASSERT_NEAR(g.data_ptr<double>()[i], w.data_ptr<double>()[i], 1e-5) << what << " element " << i;
}

// Forward (values, and indices when M gives them) and the input gradient of a weighted sum.
template <class TM, class NM>
void compare(TM& t, NM& n, const at::Tensor& x, const std::string& what) {
  at::Tensor tx = x.clone().requires_grad_();
  nabla::Tensor nx = to_nabla(x).requires_grad_();
  at::Tensor ty;
  nabla::Tensor ny;
  if constexpr (requires { t->forward_with_indices(tx); }) {
    auto [tv, ti] = t->forward_with_indices(tx);
    auto [nv, ni] = n->forward_with_indices(nx);
    expect_close(ti, ni, what + " indices");
    ty = tv, ny = nv;
  } else {
    ty = t->forward(tx), ny = n->forward(nx);
  }
  expect_close(ty, ny, what);
  at::Tensor w = torch::arange(ty.numel(), at::kFloat).view(ty.sizes()).sin();
  (ty * w).sum().backward();
  (ny * to_nabla(w)).sum().backward();
  expect_close(tx.grad(), nx.grad(), what + " gradient");
}

template <class M>
std::string printed(const M& m) {
  std::ostringstream os;
  os << *m;
  return os.str();
}

}  // namespace

TEST(PoolingVsLibTorch, ThreeDimensionalAndAdaptive) {
  torch::manual_seed(0);
  at::Tensor vol = torch::randn({2, 3, 7, 6, 5});
  {
    auto opts = torch::nn::MaxPool3dOptions({3, 2, 3}).stride({2, 1, 2}).padding(1).ceil_mode(true);
    torch::nn::MaxPool3d t(opts);
    nabla::nn::MaxPool3d n(
        nabla::nn::MaxPool3dOptions({3, 2, 3}).stride({2, 1, 2}).padding(1).ceil_mode(true));
    compare(t, n, vol, "MaxPool3d");
    EXPECT_EQ(printed(n),
              "nabla::nn::MaxPool3d(kernel_size=[3, 2, 3], stride=[2, 1, 2], "
              "padding=[1, 1, 1], dilation=[1, 1, 1], ceil_mode=true)");
  }
  {
    torch::nn::AvgPool3d t(
        torch::nn::AvgPool3dOptions(3).stride(2).padding(1).count_include_pad(false));
    nabla::nn::AvgPool3d n(
        nabla::nn::AvgPool3dOptions(3).stride(2).padding(1).count_include_pad(false));
    compare(t, n, vol, "AvgPool3d");
  }
  {
    torch::nn::AdaptiveAvgPool3d t(torch::nn::AdaptiveAvgPool3dOptions({4, c10::nullopt, 2}));
    nabla::nn::AdaptiveAvgPool3d n(nabla::nn::AdaptiveAvgPool3dOptions({4, nabla::nullopt, 2}));
    compare(t, n, vol, "AdaptiveAvgPool3d");
  }
  {
    torch::nn::AdaptiveMaxPool3d t(torch::nn::AdaptiveMaxPool3dOptions({4, 4, 3}));
    nabla::nn::AdaptiveMaxPool3d n(nabla::nn::AdaptiveMaxPool3dOptions({4, 4, 3}));
    compare(t, n, vol, "AdaptiveMaxPool3d");
  }
  {
    torch::nn::AdaptiveMaxPool1d t(4);
    nabla::nn::AdaptiveMaxPool1d n(4);
    compare(t, n, vol.flatten(2), "AdaptiveMaxPool1d");
  }
  {
    torch::nn::MaxPool1d t(torch::nn::MaxPool1dOptions(3).stride(2).padding(1));
    nabla::nn::MaxPool1d n(nabla::nn::MaxPool1dOptions(3).stride(2).padding(1));
    compare(t, n, vol.flatten(2), "MaxPool1d");
  }
}

TEST(PoolingVsLibTorch, UnpoolAndLPPool) {
  torch::manual_seed(1);
  at::Tensor img = torch::randn({2, 3, 9, 8});
  auto [tv, ti] = torch::nn::functional::max_pool2d_with_indices(
      img, torch::nn::functional::MaxPool2dFuncOptions(3).stride(2));
  torch::nn::MaxUnpool2d t(torch::nn::MaxUnpool2dOptions(3).stride(2));
  nabla::nn::MaxUnpool2d n(nabla::nn::MaxUnpool2dOptions(3).stride(2));
  expect_close(t(tv, ti, std::vector<int64_t>{2, 3, 9, 8}),
               n(to_nabla(tv), to_nabla(ti).to(nabla::kLong), std::vector<int64_t>{2, 3, 9, 8}),
               "MaxUnpool2d");
  for (double p : {1.0, 2.0, 3.5}) {
    torch::nn::LPPool2d tl(torch::nn::LPPool2dOptions(p, {3, 2}).stride(2).ceil_mode(true));
    nabla::nn::LPPool2d nl(nabla::nn::LPPool2dOptions(p, {3, 2}).stride(2).ceil_mode(true));
    // Positive inputs: a fractional power of a negative window sum is NaN in both.
    compare(tl, nl, img.abs() + 0.1, "LPPool2d p=" + std::to_string(p));
    torch::nn::LPPool1d t1(p, 3);
    nabla::nn::LPPool1d n1(p, 3);
    compare(t1, n1, img.flatten(2).abs() + 0.1, "LPPool1d p=" + std::to_string(p));
  }
}

// With the same seed, both libraries draw the same samples (torch::rand's stream) and
// place the same windows.
TEST(PoolingVsLibTorch, FractionalMaxPoolSameWindowsFromSameSeed) {
  at::Tensor img = torch::randn({2, 3, 11, 10});
  at::Tensor vol = torch::randn({2, 2, 9, 8, 7});
  for (uint64_t seed : {3u, 4u}) {
    torch::manual_seed(seed);
    nabla::manual_seed(seed);
    torch::nn::FractionalMaxPool2d t(
        torch::nn::FractionalMaxPool2dOptions({3, 2}).output_size(std::vector<int64_t>{5, 4}));
    nabla::nn::FractionalMaxPool2d n(
        nabla::nn::FractionalMaxPool2dOptions({3, 2}).output_size(std::vector<int64_t>{5, 4}));
    compare(t, n, img, "FractionalMaxPool2d");
    torch::nn::FractionalMaxPool3d t3(torch::nn::FractionalMaxPool3dOptions(2).output_ratio(0.5));
    nabla::nn::FractionalMaxPool3d n3(nabla::nn::FractionalMaxPool3dOptions(2).output_ratio(0.5));
    compare(t3, n3, vol, "FractionalMaxPool3d");
  }
}
