// Module trees against LibTorch's: parameter names and shapes, and forward/backward on
// shared weights (LibTorch's initial weights copied into nabla's module).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nabla/nabla.h>

namespace {

nabla::Tensor to_nabla(const at::Tensor& t) {
  at::Tensor c = t.detach().contiguous().to(at::kDouble);
  std::vector<double> v(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  return nabla::tensor(v, nabla::kDouble).view(c.sizes().vec()).to(nabla::kFloat);
}

void expect_close(const at::Tensor& want, const nabla::Tensor& got, double tol,
                  const std::string& what) {
  ASSERT_EQ(want.sizes().vec(), got.sizes().vec()) << what;
  at::Tensor w = want.detach().contiguous().to(at::kDouble);
  nabla::Tensor g = got.detach().contiguous().to(nabla::kDouble);
  for (int64_t i = 0; i < w.numel(); ++i)
    ASSERT_NEAR(g.data_ptr<double>()[i], w.data_ptr<double>()[i], tol) << what << " element " << i;
}

// Names and shapes must agree; then LibTorch's values are copied into nabla's parameters.
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

TEST(ModulesVsLibTorch, SequentialNamesAndForward) {
  torch::nn::Sequential t(torch::nn::Linear(5, 4), torch::nn::Functional(torch::relu),
                          torch::nn::Linear(4, 2));
  nabla::nn::Sequential n(nabla::nn::Linear(5, 4), nabla::nn::Functional(nabla::relu),
                          nabla::nn::Linear(4, 2));
  match_parameters(t, n);
  at::Tensor x = torch::randn({3, 5});
  expect_close(t->forward(x), n->forward(to_nabla(x)), 1e-5, "sequential forward");
}

TEST(ModulesVsLibTorch, RecurrentModules) {
  for (bool bidirectional : {false, true}) {
    torch::nn::LSTM tl(
        torch::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(bidirectional).batch_first(true));
    nabla::nn::LSTM nl(
        nabla::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(bidirectional).batch_first(true));
    match_parameters(tl, nl);
    at::Tensor x = torch::randn({2, 5, 3});
    auto [ty, ts] = tl->forward(x);
    auto [ny, ns] = nl->forward(to_nabla(x));
    expect_close(ty, ny, 1e-5, "lstm output");
    expect_close(std::get<1>(ts), std::get<1>(ns), 1e-5, "lstm c_n");

    torch::nn::GRU tg(torch::nn::GRUOptions(3, 4).bidirectional(bidirectional));
    nabla::nn::GRU ng(nabla::nn::GRUOptions(3, 4).bidirectional(bidirectional));
    match_parameters(tg, ng);
    at::Tensor s = torch::randn({6, 2, 3});
    expect_close(std::get<0>(tg->forward(s)), std::get<0>(ng->forward(to_nabla(s))), 1e-5,
                 "gru output");

    torch::nn::RNN tr(torch::nn::RNNOptions(3, 4)
                          .nonlinearity(torch::kReLU)
                          .num_layers(2)
                          .bidirectional(bidirectional));
    nabla::nn::RNN nr(nabla::nn::RNNOptions(3, 4)
                          .nonlinearity(nabla::kReLU)
                          .num_layers(2)
                          .bidirectional(bidirectional));
    match_parameters(tr, nr);
    expect_close(std::get<1>(tr->forward(s)), std::get<1>(nr->forward(to_nabla(s))), 1e-5,
                 "rnn h_n");
  }
  torch::nn::LSTMCell tc(3, 4);
  nabla::nn::LSTMCell nc(3, 4);
  match_parameters(tc, nc);
  at::Tensor x = torch::randn({2, 3});
  expect_close(std::get<1>(tc->forward(x)), std::get<1>(nc->forward(to_nabla(x))), 1e-5,
               "lstm cell");
  torch::nn::GRUCell tgc(3, 4);
  nabla::nn::GRUCell ngc(3, 4);
  match_parameters(tgc, ngc);
  expect_close(tgc->forward(x), ngc->forward(to_nabla(x)), 1e-5, "gru cell");
}

TEST(ModulesVsLibTorch, DefaultInitDistributions) {
  // Same distribution as LibTorch: compare the bounds (uniform ±1/sqrt(fan_in)) via the
  // max and standard deviation of large layers.
  torch::manual_seed(0);
  nabla::manual_seed(0);
  torch::nn::Linear t(400, 300);
  nabla::nn::Linear n(400, 300);
  EXPECT_NEAR(n->weight.abs().max().item<double>(), t->weight.abs().max().item<double>(), 1e-3);
  EXPECT_NEAR(n->weight.std().item<double>(), t->weight.std().item<double>(), 1e-3);
  EXPECT_NEAR(n->bias.abs().max().item<double>(), t->bias.abs().max().item<double>(), 2e-3);
  torch::nn::LSTM tl(10, 25);
  nabla::nn::LSTM nl(10, 25);
  EXPECT_NEAR(nl->named_parameters()["weight_hh_l0"].abs().max().item<double>(),
              tl->named_parameters()["weight_hh_l0"].abs().max().item<double>(), 1e-3);
}

TEST(ModulesVsLibTorch, ConvolutionalNetwork) {
  // The W3 model, as modules in both libraries, on shared weights: forward and the
  // gradients of every parameter.
  torch::nn::Sequential t(torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3).padding(1)),
                          torch::nn::ReLU(), torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)),
                          torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 6, 3).padding(1).stride(2)),
                          torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({2, 2})),
                          torch::nn::Flatten(), torch::nn::Linear(24, 3));
  nabla::nn::Sequential n(nabla::nn::Conv2d(nabla::nn::Conv2dOptions(1, 4, 3).padding(1)),
                          nabla::nn::Functional(nabla::relu),
                          nabla::nn::MaxPool2d(nabla::nn::MaxPool2dOptions(2)),
                          nabla::nn::Conv2d(nabla::nn::Conv2dOptions(4, 6, 3).padding(1).stride(2)),
                          nabla::nn::AdaptiveAvgPool2d(nabla::nn::AdaptiveAvgPool2dOptions({2, 2})),
                          nabla::nn::Flatten(), nabla::nn::Linear(24, 3));
  // Names differ only where LibTorch's ReLU is a module; compare shapes in order.
  auto tp = t->parameters();
  auto np = n->parameters();
  ASSERT_EQ(tp.size(), np.size());
  for (size_t i = 0; i < tp.size(); ++i) {
    ASSERT_EQ(tp[i].sizes().vec(), np[i].sizes().vec());
    nabla::NoGradGuard g;
    np[i].copy_(to_nabla(tp[i]));
  }
  at::Tensor x = torch::randn({5, 1, 12, 12});
  at::Tensor ty = t->forward(x);
  nabla::Tensor ny = n->forward(to_nabla(x));
  expect_close(ty, ny, 1e-5, "cnn forward");
  ty.pow(2).sum().backward();
  ny.pow(2).sum().backward();
  for (size_t i = 0; i < tp.size(); ++i)
    expect_close(tp[i].grad(), np[i].grad(), 1e-4, "cnn gradient " + std::to_string(i));
  torch::nn::ConvTranspose2d tt(torch::nn::ConvTranspose2dOptions(3, 2, 4).stride(2).padding(1));
  nabla::nn::ConvTranspose2d nt(nabla::nn::ConvTranspose2dOptions(3, 2, 4).stride(2).padding(1));
  match_parameters(tt, nt);
  at::Tensor z = torch::randn({2, 3, 5, 5});
  expect_close(tt->forward(z), nt->forward(to_nabla(z)), 1e-5, "conv transpose");
}

TEST(ModulesVsLibTorch, BilinearAndDistances) {
  torch::nn::Bilinear tb(3, 4, 2);
  nabla::nn::Bilinear nb(3, 4, 2);
  match_parameters(tb, nb);
  at::Tensor a = torch::randn({5, 3}), b = torch::randn({5, 4});
  expect_close(tb->forward(a, b), nb->forward(to_nabla(a), to_nabla(b)), 1e-5, "bilinear");
  at::Tensor x = torch::randn({4, 6}), y = torch::randn({4, 6});
  y[1] = x[1] * 0;  // a zero row: eps decides
  expect_close(torch::nn::functional::cosine_similarity(x, y),
               nabla::nn::functional::cosine_similarity(to_nabla(x), to_nabla(y)), 1e-5,
               "cosine_similarity");
  expect_close(
      torch::nn::functional::pairwise_distance(
          x, y, torch::nn::functional::PairwiseDistanceFuncOptions().p(1.5)),
      nabla::nn::functional::pairwise_distance(
          to_nabla(x), to_nabla(y), nabla::nn::functional::PairwiseDistanceFuncOptions().p(1.5)),
      1e-5, "pairwise_distance");
}

TEST(ModulesVsLibTorch, NormalizationModules) {
  // Train-mode forward (batch statistics, running-stat updates with momentum and with the
  // cumulative average), then eval-mode forward from the running statistics.
  for (bool cumulative : {false, true}) {
    auto topt = torch::nn::BatchNorm2dOptions(3);
    auto nopt = nabla::nn::BatchNorm2dOptions(3);
    if (cumulative) {
      topt.momentum(c10::nullopt);
      nopt.momentum(nabla::nullopt);
    }
    torch::nn::BatchNorm2d tb(topt);
    nabla::nn::BatchNorm2d nb(nopt);
    match_parameters(tb, nb);
    for (int step = 0; step < 3; ++step) {
      at::Tensor x = torch::randn({4, 3, 5, 5}) * 2 + 1;
      expect_close(tb->forward(x), nb->forward(to_nabla(x)), 1e-4, "batch_norm train");
    }
    expect_close(tb->running_mean, nb->running_mean, 1e-5, "running_mean");
    expect_close(tb->running_var, nb->running_var, 1e-4, "running_var");
    EXPECT_EQ(nb->num_batches_tracked.item<int64_t>(), 3);
    tb->eval();
    nb->eval();
    at::Tensor x = torch::randn({2, 3, 4, 4});
    expect_close(tb->forward(x), nb->forward(to_nabla(x)), 1e-4, "batch_norm eval");
  }
  torch::nn::BatchNorm1d tb1(4);
  nabla::nn::BatchNorm1d nb1(4);
  at::Tensor v = torch::randn({6, 4});
  expect_close(tb1->forward(v), nb1->forward(to_nabla(v)), 1e-4, "batch_norm1d");
  torch::nn::LayerNorm tl(torch::nn::LayerNormOptions({5, 6}));
  nabla::nn::LayerNorm nl(nabla::nn::LayerNormOptions({5, 6}));
  at::Tensor y = torch::randn({3, 5, 6});
  expect_close(tl->forward(y), nl->forward(to_nabla(y)), 1e-4, "layer_norm");
  torch::nn::GroupNorm tg(torch::nn::GroupNormOptions(2, 4));
  nabla::nn::GroupNorm ng(nabla::nn::GroupNormOptions(2, 4));
  at::Tensor z = torch::randn({3, 4, 5});
  expect_close(tg->forward(z), ng->forward(to_nabla(z)), 1e-4, "group_norm");
  EXPECT_EQ(ng->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(nb1->named_buffers().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
}
