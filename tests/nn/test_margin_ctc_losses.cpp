// MultiLabelMarginLoss, MultiMarginLoss, TripletMarginWithDistanceLoss and CTCLoss, against
// values worked out by hand (against LibTorch: table_nn_loss.cpp and tests/libtorch).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

std::string loss_printed(const nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

}  // namespace

TEST(MarginLosses, MultiLabelMargin) {
  // Targets {3, 0} (then -1): pairs (3, 1), (3, 2), (0, 1), (0, 2) of max(0, 1 - (x_j - x_i)),
  // summed and divided by 4 classes: (0.4 + 0.6 + 1.1 + 1.3) / 4 = 0.85.
  Tensor x = nabla::tensor({{0.1, 0.2, 0.4, 0.8}}, nabla::kDouble).requires_grad_(true);
  Tensor target = nabla::tensor({{3, 0, -1, 1}}, nabla::kLong);
  nn::MultiLabelMarginLoss none(nabla::kNone);
  Tensor loss = none(x, target);
  EXPECT_EQ(loss.sizes().vec(), (std::vector<int64_t>{1}));
  EXPECT_NEAR(loss.item<double>(), 0.85, 1e-12);
  loss.sum().backward();
  // d/dx_j = -(unlisted count) / 4 for listed j, + (listed count) / 4 for unlisted i.
  EXPECT_TRUE(x.grad().allclose(nabla::tensor({{-0.5, 0.5, 0.5, -0.5}}, nabla::kDouble)));
  EXPECT_NEAR(F::multilabel_margin_loss(x.detach()[0], target[0]).item<double>(), 0.85, 1e-12);
  EXPECT_EQ(loss_printed(*nn::MultiLabelMarginLoss()), "nabla::nn::MultiLabelMarginLoss()");
  expect_error(
      [&] {
        none(x, nabla::tensor({{3, 0}}, nabla::kLong));
      },
      {"multilabel_margin_loss", "inconsistent target size"});
  expect_error(
      [&] {
        none(x, nabla::tensor({{4, 0, -1, 1}}, nabla::kLong));
      },
      {"multilabel_margin_loss", "out of range"});
}

TEST(MarginLosses, MultiMargin) {
  // Row (0.2, 0.2, 0.6), y = 2, margin 2, weight 0.4: 0.4 (1.6 + 1.6) / 3; with p = 2 the
  // hinges are squared.
  Tensor x = nabla::tensor({{0.2, 0.2, 0.6}}, nabla::kDouble);
  Tensor y = nabla::tensor({2}, nabla::kLong);
  Tensor w = nabla::tensor({0.3, 0.3, 0.4}, nabla::kDouble);
  nn::MultiMarginLoss loss(nn::MultiMarginLossOptions().margin(2).weight(w));
  EXPECT_NEAR(loss(x, y).item<double>(), 0.4 * 3.2 / 3, 1e-12);
  EXPECT_NEAR(
      F::multi_margin_loss(x, y, F::MultiMarginLossFuncOptions().p(2).margin(2)).item<double>(),
      2 * 1.6 * 1.6 / 3, 1e-12);
  EXPECT_TRUE(loss->named_buffers().contains("weight"));
  expect_error([&] { F::multi_margin_loss(x, y, F::MultiMarginLossFuncOptions().p(3)); },
               {"only p == 1 and p == 2 supported"});
  expect_error([&] { loss(x, nabla::tensor({3}, nabla::kLong)); },
               {"multi_margin_loss", "target out of range"});
  expect_error(
      [&] {
        loss(nabla::randn({2, 3, 4}), y);
      },
      {"multi_margin_loss", "Expected non-empty vector or matrix"});
}

TEST(MarginLosses, TripletMarginWithDistance) {
  nabla::manual_seed(0);
  Tensor a = nabla::randn({6, 4}), p = nabla::randn({6, 4}), n = nabla::randn({6, 4});
  // The default distance is pairwise_distance, which TripletMarginLoss also uses.
  EXPECT_TRUE(F::triplet_margin_with_distance_loss(a, p, n).allclose(
      F::triplet_margin_loss(a, p, n), 1e-6, 1e-6));
  auto l1 = [](const Tensor& u, const Tensor& v) { return (u - v).abs().sum(1); };
  nn::TripletMarginWithDistanceLoss loss(nn::TripletMarginWithDistanceLossOptions()
                                             .distance_function(l1)
                                             .margin(0.5)
                                             .swap(true)
                                             .reduction(nabla::kNone));
  Tensor want = (l1(a, p) - nabla::minimum(l1(a, n), l1(p, n)) + 0.5).clamp_min(0);
  EXPECT_TRUE(loss(a, p, n).allclose(want));
  EXPECT_EQ(loss_printed(*loss), "nabla::nn::TripletMarginWithDistanceLoss(margin=0.5, swap=true)");
}

TEST(CTCLossTest, ValuesAndGradients) {
  // Empty targets: the only alignment is all blanks.
  Tensor lp = nabla::randn({5, 3, 4}, nabla::kDouble).log_softmax(2);
  nn::CTCLoss none(nn::CTCLossOptions().reduction(nabla::kNone));
  Tensor blanks =
      none(lp, nabla::empty({0}, nabla::kLong), nabla::tensor({5, 5, 3}), nabla::tensor({0, 0, 0}));
  Tensor want =
      -nabla::stack({lp.select(2, 0).select(1, 0).sum(), lp.select(2, 0).select(1, 1).sum(),
                     lp.select(2, 0).select(1, 2).narrow(0, 0, 3).sum()});
  EXPECT_TRUE(blanks.allclose(want, 1e-12, 1e-12));
  // One label over two steps: alignments (l, l), (blank, l), (l, blank).
  Tensor p = nabla::tensor({{0.5, 0.5}, {0.25, 0.75}}, nabla::kDouble)
                 .log()
                 .view({2, 1, 2})
                 .requires_grad_(true);
  Tensor one = F::ctc_loss(p, nabla::tensor({{1}}), nabla::tensor({2}), nabla::tensor({1}),
                           F::CTCLossFuncOptions().reduction(nabla::kSum));
  const double prob = 0.5 * 0.75 + 0.5 * 0.75 + 0.5 * 0.25;
  EXPECT_NEAR(one.item<double>(), -std::log(prob), 1e-12);
  one.backward();
  // d(-log P)/d log p_t(k) = -(posterior of k at t).
  EXPECT_NEAR(p.grad()[0][0][0].item<double>(), -(0.5 * 0.75) / prob, 1e-12);
  EXPECT_NEAR(p.grad()[1][0][0].item<double>(), -(0.5 * 0.25) / prob, 1e-12);
  // Too short an input: inf, or 0 with zero_infinity.
  Tensor too_short =
      F::ctc_loss(p.detach(), nabla::tensor({{1, 1}}), nabla::tensor({2}), nabla::tensor({2}),
                  F::CTCLossFuncOptions().reduction(nabla::kNone));
  EXPECT_TRUE(std::isinf(too_short.item<double>()));
  EXPECT_EQ(F::ctc_loss(p.detach(), nabla::tensor({{1, 1}}), nabla::tensor({2}), nabla::tensor({2}),
                        F::CTCLossFuncOptions().zero_infinity(true))
                .item<double>(),
            0);
  EXPECT_EQ(loss_printed(*nn::CTCLoss(nn::CTCLossOptions().blank(42))), "nabla::nn::CTCLoss()");
  expect_error(
      [&] {
        none(lp, nabla::tensor({{1, 2}}), nabla::tensor({6, 5, 5}), nabla::tensor({1, 1, 1}));
      },
      {"ctc_loss", "input_lengths to have value at most 5"});
  expect_error(
      [&] {
        none(lp, nabla::tensor({{7}}), nabla::tensor({5, 5, 5}), nabla::tensor({1, 0, 0}));
      },
      {"ctc_loss", "out of range"});
  expect_error(
      [&] {
        none(lp, nabla::tensor({{1}}), nabla::tensor({5., 5., 5.}), nabla::tensor({1, 0, 0}));
      },
      {"ctc_loss", "input_lengths must be integral"});
}
