// AdaptiveLogSoftmaxWithLoss, MultiheadAttention's default arguments, Unflatten's named
// form, and the sampling functionals (F::pdist, F::affine_grid, F::grid_sample,
// F::interpolate bicubic and antialiased) against LibTorch: values and gradients.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nabla/nabla.h>

namespace {

namespace F = nabla::nn::functional;
namespace TF = torch::nn::functional;

nabla::Tensor to_nabla(const at::Tensor& t) {
  at::Tensor c = t.detach().contiguous().to(at::kDouble);
  std::vector<double> v(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  nabla::Tensor n = nabla::tensor(v, nabla::kDouble).view(c.sizes().vec());
  return t.scalar_type() == at::kLong ? n.to(nabla::kLong) : n.to(nabla::kFloat);
}

void expect_close(const at::Tensor& want, const nabla::Tensor& got, double tol,
                  const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(want.sizes().vec(), got.sizes().vec()) << what;
  at::Tensor w = want.detach().contiguous().to(at::kDouble);
  nabla::Tensor g = got.detach().contiguous().to(nabla::kDouble);
  for (int64_t i = 0; i < w.numel(); ++i)
    ASSERT_NEAR(g.data_ptr<double>()[i], w.data_ptr<double>()[i], tol) << what << " element " << i;
}

template <class TM, class NM>
void match_parameters(TM& t, NM& n) {
  auto tp = t->named_parameters();
  auto np = n->named_parameters();
  ASSERT_EQ(tp.size(), np.size());
  for (size_t i = 0; i < tp.size(); ++i) {
    EXPECT_EQ(tp[i].key(), np[i].key());
    EXPECT_EQ(tp[i].value().sizes().vec(), np[i].value().sizes().vec()) << tp[i].key();
    nabla::NoGradGuard g;
    np[i].value().copy_(to_nabla(tp[i].value()));
  }
}

}  // namespace

TEST(ModulesVsLibTorch, AdaptiveLogSoftmaxWithLoss) {
  for (bool head_bias : {false, true}) {
    torch::nn::AdaptiveLogSoftmaxWithLoss t(
        torch::nn::AdaptiveLogSoftmaxWithLossOptions(16, 20, {4, 10, 15})
            .div_value(2.)
            .head_bias(head_bias));
    nabla::nn::AdaptiveLogSoftmaxWithLoss n(
        nabla::nn::AdaptiveLogSoftmaxWithLossOptions(16, 20, {4, 10, 15})
            .div_value(2.)
            .head_bias(head_bias));
    match_parameters(t, n);
    EXPECT_EQ(n->head_size, 7);
    EXPECT_EQ(n->cutoffs, (std::vector<int64_t>{4, 10, 15, 20}));
    at::Tensor x = torch::randn({12, 16});
    at::Tensor y = torch::tensor({0, 3, 4, 9, 10, 14, 15, 19, 2, 11, 17, 5}, torch::kLong);
    expect_close(t->log_prob(x), n->log_prob(to_nabla(x)), 1e-5, "log_prob");
    expect_close(t->predict(x), n->predict(to_nabla(x)), 0, "predict");
    // forward: each target's log-probability, the loss, and the parameters' gradients.
    auto to = t->forward(x, y);
    auto no = n->forward(to_nabla(x), to_nabla(y));
    expect_close(to.output, no.output, 1e-5, "forward output");
    EXPECT_NEAR(no.loss, to.loss, 1e-5);
    to.output.sum().backward();
    no.output.sum().backward();
    auto tparams = t->named_parameters();
    auto nparams = n->named_parameters();
    for (size_t i = 0; i < tparams.size(); ++i)
      expect_close(tparams[i].value().grad(), nparams[i].value().grad(), 1e-5,
                   "grad of " + tparams[i].key());
    // An unbatched input and 0-d target.
    expect_close(t->forward(x[1], y[1]).output, n->forward(to_nabla(x[1]), to_nabla(y[1])).output,
                 1e-5, "unbatched forward");
  }
  EXPECT_THROW(nabla::nn::AdaptiveLogSoftmaxWithLoss(
                   nabla::nn::AdaptiveLogSoftmaxWithLossOptions(8, 4, {3, 2})),
               nabla::Error);
  nabla::nn::AdaptiveLogSoftmaxWithLoss n(nabla::nn::AdaptiveLogSoftmaxWithLossOptions(8, 4, {2}));
  EXPECT_THROW(n->forward(nabla::randn({2, 8}), nabla::tensor({0, 4}, nabla::kLong)),
               nabla::Error);  // a target past n_classes
}

TEST(ModulesVsLibTorch, MultiheadAttentionThroughSequential) {
  // Sequential calls forward with one argument: the defaults fill in key, value's mask,
  // need_weights, attn_mask and average_attn_weights, as LibTorch's.
  nabla::nn::MultiheadAttention m(4, 2);
  nabla::Tensor q = nabla::randn({3, 2, 4});
  nabla::nn::AnyModule any(m);
  auto [direct, weights] = m->forward(q, q, q);
  auto via = any.forward<std::tuple<nabla::Tensor, nabla::Tensor>>(q, q, q);
  EXPECT_TRUE(nabla::equal(std::get<0>(via), direct));
  EXPECT_TRUE(nabla::equal(std::get<1>(via), weights));
}

TEST(ModulesVsLibTorch, UnflattenNamedForm) {
  nabla::nn::Unflatten named(nabla::nn::UnflattenOptions(
      "B", {std::pair<std::string, int64_t>{"B1", 2}, std::pair<std::string, int64_t>{"B2", 2}}));
  torch::nn::Unflatten tnamed(torch::nn::UnflattenOptions(
      "B", {std::pair<std::string, int64_t>{"B1", 2}, std::pair<std::string, int64_t>{"B2", 2}}));
  std::ostringstream ns, ts;
  ns << *named;
  ts << *tnamed;
  std::string want = ts.str();
  want.replace(want.find("torch::"), 7, "nabla::");
  EXPECT_EQ(ns.str(), want);
  EXPECT_THROW(named->forward(nabla::ones({1, 4})), nabla::Error);  // no named tensors
  nabla::nn::Unflatten plain(nabla::nn::UnflattenOptions(1, {2, 2}));
  EXPECT_EQ(plain->forward(nabla::ones({3, 4})).sizes().vec(), (std::vector<int64_t>{3, 2, 2}));
}

TEST(FunctionalVsLibTorch, PdistAffineGridGridSample) {
  at::Tensor rows = torch::randn({5, 3}, torch::requires_grad());
  nabla::Tensor nrows = to_nabla(rows).requires_grad_(true);
  for (double p : {2.0, 1.0, 1.5, 0.5}) {
    at::Tensor want = TF::pdist(rows, p);
    nabla::Tensor got = F::pdist(nrows, p);
    expect_close(want, got, 1e-5, "pdist");
    want.sum().backward();
    got.sum().backward();
    expect_close(rows.grad(), nrows.grad(), 1e-4, "pdist grad");
    rows.mutable_grad().zero_();
    nrows.mutable_grad().zero_();
  }
  for (bool align : {false, true}) {
    at::Tensor theta = torch::randn({2, 2, 3});
    expect_close(TF::affine_grid(theta, {2, 1, 4, 5}, align),
                 F::affine_grid(to_nabla(theta), {2, 1, 4, 5}, align), 1e-5, "affine_grid");
  }
  EXPECT_THROW(F::affine_grid(nabla::zeros({1, 2, 3}), {1, 1, 0, 2}), nabla::Error);
  for (int mode = 0; mode < 2; ++mode) {
    for (int padding = 0; padding < 3; ++padding) {
      for (bool align : {false, true}) {
        at::Tensor x = torch::randn({2, 3, 4, 5}, torch::requires_grad());
        at::Tensor grid = (torch::rand({2, 6, 7, 2}) * 2.6 - 1.3).requires_grad_(true);
        nabla::Tensor nx = to_nabla(x).requires_grad_(true);
        nabla::Tensor ngrid = to_nabla(grid).requires_grad_(true);
        auto topt = TF::GridSampleFuncOptions().align_corners(align);
        auto nopt = F::GridSampleFuncOptions().align_corners(align);
        if (mode == 1) {
          topt.mode(torch::kNearest);
          nopt.mode(nabla::kNearest);
        }
        if (padding == 1) {
          topt.padding_mode(torch::kBorder);
          nopt.padding_mode(nabla::kBorder);
        } else if (padding == 2) {
          topt.padding_mode(torch::kReflection);
          nopt.padding_mode(nabla::kReflection);
        }
        const std::string what = "grid_sample mode " + std::to_string(mode) + " padding " +
                                 std::to_string(padding) + (align ? " align" : "");
        at::Tensor want = TF::grid_sample(x, grid, topt);
        nabla::Tensor got = F::grid_sample(nx, ngrid, nopt);
        expect_close(want, got, 1e-5, what);
        at::Tensor w = torch::randn(want.sizes());
        (want * w).sum().backward();
        (got * to_nabla(w)).sum().backward();
        expect_close(x.grad(), nx.grad(), 1e-4, what + " input grad");
        expect_close(grid.grad(), ngrid.grad(), 1e-4, what + " grid grad");
      }
    }
  }
}

TEST(FunctionalVsLibTorch, InterpolateBicubicAndAntialias) {
  for (bool antialias : {false, true}) {
    for (bool align : {false, true}) {
      for (std::vector<int64_t> size : {std::vector<int64_t>{9, 5}, std::vector<int64_t>{3, 14}}) {
        for (bool bicubic : {false, true}) {
          if (!antialias && !bicubic) continue;  // plain bilinear has its own tests
          at::Tensor x = torch::randn({2, 3, 6, 7}, torch::requires_grad());
          nabla::Tensor nx = to_nabla(x).requires_grad_(true);
          auto topt =
              TF::InterpolateFuncOptions().size(size).align_corners(align).antialias(antialias);
          auto nopt =
              F::InterpolateFuncOptions().size(size).align_corners(align).antialias(antialias);
          if (bicubic) {
            topt.mode(torch::kBicubic);
            nopt.mode(nabla::kBicubic);
          } else {
            topt.mode(torch::kBilinear);
            nopt.mode(nabla::kBilinear);
          }
          const std::string what = std::string(bicubic ? "bicubic" : "bilinear") +
                                   (antialias ? " aa" : "") + (align ? " align" : "") + " to " +
                                   std::to_string(size[0]) + "x" + std::to_string(size[1]);
          at::Tensor want = TF::interpolate(x, topt);
          nabla::Tensor got = F::interpolate(nx, nopt);
          expect_close(want, got, 1e-5, what);
          at::Tensor w = torch::randn(want.sizes());
          (want * w).sum().backward();
          (got * to_nabla(w)).sum().backward();
          expect_close(x.grad(), nx.grad(), 1e-4, what + " grad");
        }
      }
    }
  }
  // Scale factors instead of sizes, and the at::native spelling.
  at::Tensor x = torch::randn({1, 2, 4, 4});
  expect_close(TF::interpolate(x, TF::InterpolateFuncOptions()
                                      .scale_factor(std::vector<double>{1.5, 2.5})
                                      .mode(torch::kBicubic)
                                      .align_corners(false)),
               F::interpolate(to_nabla(x), F::InterpolateFuncOptions()
                                               .scale_factor(std::vector<double>{1.5, 2.5})
                                               .mode(nabla::kBicubic)
                                               .align_corners(false)),
               1e-5, "bicubic by scale factor");
  expect_close(at::native::_upsample_nearest_exact2d(x, {3, 7}, c10::nullopt),
               nabla::native::_upsample_nearest_exact2d(to_nabla(x), {3, 7}, nabla::nullopt), 0,
               "native nearest-exact");
}
