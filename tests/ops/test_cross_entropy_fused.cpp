// The fused cross-entropy over class indices (Note [Fused cross-entropy],
// src/ops/loss/classification.cpp) against log_softmax then nll_loss, the composition it
// replaces: values and gradients for every reduction, with and without class weights and
// ignored targets, unbatched input, large logits, GPT-2's vocabulary; finite differences
// and second derivatives; which node runs. The op table (tests/conformance/table_nn_loss.cpp)
// checks the same op against LibTorch.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;

// Named, not anonymous: test files are compiled in unity batches.
namespace cross_entropy_fused_test {

double max_rel_diff(const Tensor& a, const Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a.to(kDouble) - b.to(kDouble)).abs().max().item<double>() / scale;
}

Tensor composed(const Tensor& x, const Tensor& t, const Tensor& w, int64_t reduction,
                int64_t ignore_index) {
  return nll_loss_nd(log_softmax(x, x.dim() == 1 ? 0 : 1), t, w, reduction, ignore_index);
}

// Loss and input gradient of the fused op and of the composition, for one output gradient.
void expect_matches_composed(const Tensor& logits, const Tensor& t, const Tensor& w,
                             int64_t reduction, int64_t ignore_index, double tol) {
  Tensor a = logits.detach().requires_grad_(), b = logits.detach().requires_grad_();
  Tensor fused = cross_entropy_loss(a, t, w, reduction, ignore_index);
  Tensor ref = composed(b, t, w, reduction, ignore_index);
  ASSERT_EQ(fused.sizes(), ref.sizes());
  EXPECT_LT(max_rel_diff(fused, ref), tol) << "loss, reduction " << reduction;
  Tensor g = randn(ref.sizes(), ref.options());
  fused.backward(g);
  ref.backward(g);
  EXPECT_LT(max_rel_diff(a.grad(), b.grad()), tol) << "gradient, reduction " << reduction;
}

TEST(CrossEntropyFused, MatchesLogSoftmaxThenNllLoss) {
  manual_seed(3);
  for (ScalarType dtype : {kDouble, kFloat}) {
    const double tol = dtype == kDouble ? 1e-12 : 2e-6;
    for (int64_t reduction : {Reduction::None, Reduction::Sum, Reduction::Mean}) {
      for (bool weighted : {false, true}) {
        const int64_t n = 9, c = 13;
        Tensor x = randn({n, c}, dtype) * 3;
        Tensor t = randint(0, c, {n}, kLong);
        t[1].fill_(-100);  // two ignored targets
        t[4].fill_(-100);
        Tensor w = weighted ? rand({c}, dtype) + 0.5 : Tensor();
        expect_matches_composed(x, t, w, reduction, -100, tol);
        // An ignore_index that is a class.
        expect_matches_composed(x, t.clamp_min(0), w, reduction, 2, tol);
        // Unbatched: input [C], target [].
        expect_matches_composed(x[0], t[0], w, reduction, -100, tol);
        // A transposed (non-contiguous) input and int32 targets.
        expect_matches_composed(randn({c, n}, dtype).t(), t.to(kInt), w, reduction, -100, tol);
      }
    }
  }
}

TEST(CrossEntropyFused, GptVocabularyAndLargeLogits) {
  manual_seed(4);
  // GPT-2's 50,257 classes in float32.
  Tensor x = randn({6, 50257}) * 4;
  Tensor t = randint(0, 50257, {6}, kLong);
  expect_matches_composed(x, t, {}, Reduction::Mean, -100, 2e-6);
  // Logits near 1e6 in float32: the loss is computed as (x - max) - log(sum), as the
  // log-softmax kernel does, not as log-sum-exp minus x (which rounds to 0.0625 there).
  Tensor big = randn({5, 40}) + 1e6;
  Tensor tb = randint(0, 40, {5}, kLong);
  Tensor fused = cross_entropy_loss(big, tb, {}, Reduction::None);
  Tensor ref = composed(big, tb, {}, Reduction::None, -100);
  EXPECT_LT((fused - ref).abs().max().item<double>(), 1e-5);
  Tensor exact = composed(big.to(kDouble) - 1e6, tb, {}, Reduction::None, -100);
  EXPECT_LT((fused.to(kDouble) - exact).abs().max().item<double>(), 1e-3);
}

TEST(CrossEntropyFused, EdgeCases) {
  // Every target ignored: Mean is 0 / 0 = NaN, as log_softmax then nll_loss give, and
  // the gradient is zero.
  Tensor x = randn({3, 4}, kDouble).requires_grad_();
  Tensor t = full({3}, -100, kLong);
  Tensor loss = cross_entropy_loss(x, t);
  EXPECT_TRUE(std::isnan(loss.item<double>()));
  loss.backward();
  EXPECT_EQ(x.grad().abs().sum().item<double>(), 0.0);
  // An empty batch.
  Tensor e = randn({0, 5}, kDouble).requires_grad_();
  Tensor empty_t = zeros({0}, kLong);
  EXPECT_EQ(cross_entropy_loss(e, empty_t, {}, Reduction::Sum).item<double>(), 0.0);
  EXPECT_EQ(cross_entropy_loss(e, empty_t, {}, Reduction::None).sizes().vec(),
            std::vector<int64_t>{0});
  // An ignored row holding infinities contributes nothing, not NaN (LibTorch's nll_loss
  // skips it too; the composition would give NaN).
  Tensor inf_row = randn({2, 3}, kDouble);
  inf_row[1].fill_(std::numeric_limits<double>::infinity());
  inf_row.requires_grad_();
  Tensor li = cross_entropy_loss(inf_row, tensor({1, -100}).to(kLong), {}, Reduction::Sum);
  li.backward();
  EXPECT_TRUE(std::isfinite(li.item<double>()));
  EXPECT_EQ(inf_row.grad()[1].abs().sum().item<double>(), 0.0);
  // Bad targets: the composed path's messages.
  nabla::testing::expect_error(
      [] {
        (void)cross_entropy_loss(randn({2, 3}), tensor({0, 3}).to(kLong));
      },
      {"nll_loss", "target", "3 classes"});
  nabla::testing::expect_error(
      [] {
        (void)cross_entropy_loss(randn({2, 3}), tensor({0, 1, 2}).to(kLong));
      },
      {"nll_loss", "target of shape"});
}

TEST(CrossEntropyFused, FiniteDifferencesAndSecondDerivatives) {
  manual_seed(5);
  Tensor x = randn({4, 6}, kDouble).requires_grad_();
  Tensor t = tensor({1, -100, 5, 0}).to(kLong);
  Tensor w = rand({6}, kDouble) + 0.5;
  for (int64_t reduction : {Reduction::None, Reduction::Sum, Reduction::Mean}) {
    auto f = [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{cross_entropy_loss(in[0], t, w, reduction)};
    };
    EXPECT_TRUE(autograd::gradcheck(f, {x})) << "reduction " << reduction;
    EXPECT_TRUE(autograd::gradgradcheck(f, {x})) << "reduction " << reduction;
    // The backward under create_graph equals the fused kernel's.
    Tensor plain = autograd::grad({f({x})[0].sum()}, {x})[0];
    Tensor graphed = autograd::grad({f({x})[0].sum()}, {x}, {}, true, /*create_graph=*/true)[0];
    EXPECT_LT(max_rel_diff(plain, graphed), 1e-12) << "reduction " << reduction;
  }
}

TEST(CrossEntropyFused, OneNodeNamedAsLibTorchNamesTheLoss) {
  Tensor x = randn({3, 5}).requires_grad_();
  Tensor logits = x * 2;
  Tensor loss = cross_entropy_loss(logits, tensor({0, 4, 2}).to(kLong));
  ASSERT_TRUE(loss.grad_fn());
  EXPECT_EQ(loss.grad_fn()->name(), "NllLossBackward0");
  // It leads straight to the logits' node: no LogSoftmaxBackward0 in between.
  EXPECT_EQ(loss.grad_fn()->next_edge(0).function.get(), logits.grad_fn().get());
  // The composed forms keep their nodes: label smoothing, probability targets, 3-d input.
  Tensor smoothed =
      cross_entropy_loss(logits, tensor({0, 4, 2}).to(kLong), {}, Reduction::Mean, -100, 0.1);
  EXPECT_NE(smoothed.grad_fn()->name(), "NllLossBackward0");
  Tensor x3 = randn({2, 5, 3}).requires_grad_();
  Tensor l3 = cross_entropy_loss(x3, randint(0, 5, {2, 3}, kLong));
  EXPECT_EQ(l3.grad_fn()->name(), "NllLoss2DBackward0");
}

}  // namespace cross_entropy_fused_test
