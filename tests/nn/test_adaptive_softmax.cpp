// AdaptiveLogSoftmaxWithLoss: structure, the identities between forward, log_prob and
// predict, and its errors; Unflatten's named form (values against LibTorch:
// tests/libtorch/test_sampling_libtorch.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {
std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}
}  // namespace

TEST(AdaptiveLogSoftmaxWithLoss, Structure) {
  nn::AdaptiveLogSoftmaxWithLoss m(
      nn::AdaptiveLogSoftmaxWithLossOptions(16, 20, {4, 10, 15}).div_value(2.).head_bias(true));
  EXPECT_EQ(m->shortlist_size, 4);
  EXPECT_EQ(m->n_clusters, 3);
  // Hidden sizes 16 / 2, 16 / 4, 16 / 8; cluster sizes 6, 5, 5.
  std::vector<std::pair<std::string, std::vector<int64_t>>> want = {
      {"head.weight", {7, 16}},     {"head.bias", {7}},           {"tail.0.0.weight", {8, 16}},
      {"tail.0.1.weight", {6, 8}},  {"tail.1.0.weight", {4, 16}}, {"tail.1.1.weight", {5, 4}},
      {"tail.2.0.weight", {2, 16}}, {"tail.2.1.weight", {5, 2}}};
  auto params = m->named_parameters();
  ASSERT_EQ(params.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(params[i].key(), want[i].first);
    EXPECT_EQ(params[i].value().sizes().vec(), want[i].second) << want[i].first;
  }
  nn::AdaptiveLogSoftmaxWithLoss small(
      nn::AdaptiveLogSoftmaxWithLossOptions(8, 4, {2}).div_value(2.));
  EXPECT_EQ(printed(*small),
            "nabla::nn::AdaptiveLogSoftmaxWithLoss(\n"
            "  (head): nabla::nn::Linear(in_features=8, out_features=3, bias=false)\n"
            "  (tail): nabla::nn::ModuleList(\n"
            "    (0): nabla::nn::Sequential(\n"
            "      (0): nabla::nn::Linear(in_features=8, out_features=4, bias=false)\n"
            "      (1): nabla::nn::Linear(in_features=4, out_features=2, bias=false)\n"
            "    )\n"
            "  )\n"
            ")");
}

TEST(AdaptiveLogSoftmaxWithLoss, ForwardLogProbPredictAgree) {
  nn::AdaptiveLogSoftmaxWithLoss m(
      nn::AdaptiveLogSoftmaxWithLossOptions(16, 20, {4, 10, 15}).div_value(2.));
  Tensor x = nabla::randn({40, 16}) * 3;
  Tensor lp = m->log_prob(x);
  EXPECT_TRUE(lp.exp().sum(1).allclose(nabla::ones({40}), 1e-5, 1e-5));
  EXPECT_TRUE(m->predict(x).equal(lp.argmax(1)));
  Tensor y = nabla::arange(40, nabla::kLong).remainder(20);
  auto out = m->forward(x, y);
  EXPECT_TRUE(out.output.allclose(lp.gather(1, y.unsqueeze(1)).squeeze(1), 1e-5, 1e-5));
  EXPECT_NEAR(out.loss, -out.output.mean().item<double>(), 1e-5);
  // Gradients reach the head and every cluster that a target falls in.
  out.output.sum().backward();
  for (const auto& p : m->named_parameters())
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
  // Unbatched: a 1-d input with a 0-d target.
  EXPECT_NEAR(m->forward(x[3], y[3]).output.item<double>(), lp[3][3].item<double>(), 1e-5);
}

TEST(AdaptiveLogSoftmaxWithLoss, Errors) {
  expect_error(
      [] {
        nn::AdaptiveLogSoftmaxWithLoss(nn::AdaptiveLogSoftmaxWithLossOptions(8, 4, {2, 2}));
      },
      {"cutoffs should be a sequence of unique, positive integers"});
  expect_error(
      [] { nn::AdaptiveLogSoftmaxWithLoss(nn::AdaptiveLogSoftmaxWithLossOptions(8, 4, {4})); },
      {"between 1 and n_classes-1"});
  nn::AdaptiveLogSoftmaxWithLoss m(nn::AdaptiveLogSoftmaxWithLossOptions(8, 4, {2}));
  expect_error(
      [&] {
        m->forward(nabla::randn({2, 8}), nabla::tensor({1, 7}, nabla::kLong));
      },
      {"Target values should be in [0, 3]"});
  expect_error(
      [&] {
        m->forward(nabla::randn({2, 8}), nabla::zeros({2, 1}, nabla::kLong));
      },
      {"0D or 1D target tensor expected"});
  expect_error([&] { m->forward(nabla::randn({8}), nabla::zeros({2}, nabla::kLong)); },
               {"1D target tensor expects 2D input tensors"});
}

TEST(Unflatten, NamedFormPrintsAndRefusesToRun) {
  nn::Unflatten named(nn::UnflattenOptions(
      "B", {std::pair<std::string, int64_t>{"B1", 2}, std::pair<std::string, int64_t>{"B2", 2}}));
  EXPECT_EQ(printed(*named),
            "nabla::nn::Unflatten(dim=\"B\", unflattened_size={{\"B1\", 2}, {\"B2\", 2}})");
  expect_error([&] { named->forward(nabla::ones({1, 4})); }, {"Unflatten", "named tensors"});
  nn::Unflatten plain(nn::UnflattenOptions(0, {2, 2}));
  EXPECT_EQ(printed(*plain), "nabla::nn::Unflatten(dim=0, unflattened_size={2, 2})");
  EXPECT_TRUE(
      plain->forward(nabla::tensor({1, 2, 3, 4})).equal(nabla::tensor({1, 2, 3, 4}).view({2, 2})));
}
