// F:: losses and loss modules: option spellings, defaults, kBatchMean, weights as buffers.
#include <gtest/gtest.h>

#include <cmath>

#include <nabla/nabla.h>

#include "test_util.h"

namespace F = nabla::nn::functional;
namespace nn = nabla::nn;
using nabla::Tensor;

TEST(LossFunctional, OptionsMapToTheFreeFunctions) {
  Tensor x = nabla::tensor({0.5, -1.0, 2.0}, nabla::kDouble),
         y = nabla::tensor({0.0, 1.0, 1.0}, nabla::kDouble);
  EXPECT_NEAR(F::mse_loss(x, y).item<double>(), (0.25 + 4 + 1) / 3, 1e-12);
  EXPECT_NEAR(F::mse_loss(x, y, F::MSELossFuncOptions(nabla::kSum)).item<double>(), 5.25, 1e-12);
  EXPECT_EQ(F::l1_loss(x, y, F::L1LossFuncOptions(nabla::kNone)).sizes().vec(),
            std::vector<int64_t>{3});
  EXPECT_NEAR(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0.5)).item<double>(),
              (0.25 + 1.75 + 0.75) / 3, 1e-12);
  Tensor logits = nabla::tensor({1.0, 2.0, 3.0, 1.0, 1.0, 1.0}, nabla::kDouble).view({2, 3});
  Tensor target = nabla::tensor({2, 0}, nabla::kLong);
  const double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  const double want = ((lse0 - 3) + std::log(3.0)) / 2;
  EXPECT_NEAR(F::cross_entropy(logits, target).item<double>(), want, 1e-12);
  EXPECT_NEAR(F::nll_loss(logits - logits.logsumexp(1, true), target).item<double>(), want, 1e-12);
  // Ignoring the second row leaves the first.
  EXPECT_NEAR(F::cross_entropy(logits, nabla::tensor({2, -100}, nabla::kLong)).item<double>(),
              lse0 - 3, 1e-12);
  Tensor logp = (logits - logits.logsumexp(1, true));
  Tensor q = nabla::full({2, 3}, 1.0 / 3, nabla::kDouble);
  EXPECT_NEAR(F::kl_div(logp, q, F::KLDivFuncOptions(nabla::kBatchMean)).item<double>(),
              F::kl_div(logp, q, F::KLDivFuncOptions(nabla::kSum)).item<double>() / 2, 1e-12);
  nabla::testing::expect_error(
      [&] {
        F::cross_entropy(logits, nabla::tensor({3, 0}, nabla::kLong));
      },
      {"target 3 is out of bounds for 3 classes"});
}

TEST(LossModules, ForwardAndWeightBuffer) {
  nn::CrossEntropyLoss ce(
      nn::CrossEntropyLossOptions().weight(nabla::tensor({1.0f, 2.0f, 3.0f})).label_smoothing(0.1));
  EXPECT_EQ(ce->named_buffers().keys(), std::vector<std::string>{"weight"});
  Tensor x = nabla::randn({4, 3}).requires_grad_();
  Tensor t = nabla::tensor({0, 1, 2, 1}, nabla::kLong);
  Tensor l = ce(x, t);
  EXPECT_NEAR(l.item<double>(),
              F::cross_entropy(x, t,
                               F::CrossEntropyFuncOptions()
                                   .weight(nabla::tensor({1.0f, 2.0f, 3.0f}))
                                   .label_smoothing(0.1))
                  .item<double>(),
              1e-6);
  l.backward();
  EXPECT_TRUE(x.grad().defined());
  nn::BCEWithLogitsLoss bce;
  EXPECT_TRUE(std::isfinite(bce(nabla::full({3}, 1e4), nabla::zeros({3})).item<double>()));
  nn::MarginRankingLoss mr(nn::MarginRankingLossOptions().margin(1.0));
  EXPECT_NEAR(mr(nabla::ones({2}), nabla::zeros({2}), nabla::ones({2})).item<double>(), 0.0, 1e-7);
}
