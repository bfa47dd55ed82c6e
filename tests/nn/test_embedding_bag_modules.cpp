// EmbeddingBag, F::embedding_bag and the from_pretrained constructors, against sums over
// the definition (values against LibTorch: table_nn_dropout_embedding.cpp, tests/libtorch).
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

std::string bag_printed(const nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

Tensor bag_longs(std::vector<int64_t> v) { return nabla::tensor(v, nabla::kLong); }

}  // namespace

TEST(EmbeddingBagModules, ModesOffsetsAndPadding) {
  Tensor w = nabla::arange(12, nabla::kDouble).view({4, 3});  // row r = (3r, 3r + 1, 3r + 2)
  Tensor idx = bag_longs({1, 3, 3, 0, 2}), offsets = bag_longs({0, 3, 3});
  auto bag = [&](auto mode) {
    return F::embedding_bag(idx, w, F::EmbeddingBagFuncOptions().offsets(offsets).mode(mode));
  };
  // Bags {1, 3, 3}, {} and {0, 2}.
  EXPECT_TRUE(
      bag(nabla::kSum)
          .equal(nabla::tensor({{21., 24., 27.}, {0., 0., 0.}, {6., 8., 10.}}, nabla::kDouble)));
  EXPECT_TRUE(
      bag(nabla::kMean)
          .allclose(nabla::tensor({{7., 8., 9.}, {0., 0., 0.}, {3., 4., 5.}}, nabla::kDouble)));
  EXPECT_TRUE(
      bag(nabla::kMax)
          .equal(nabla::tensor({{9., 10., 11.}, {0., 0., 0.}, {6., 7., 8.}}, nabla::kDouble)));
  // padding_idx leaves index 3 out (and out of the mean's count); include_last_offset
  // makes the last offset the end of the last bag.
  Tensor padded = F::embedding_bag(idx, w,
                                   F::EmbeddingBagFuncOptions()
                                       .offsets(bag_longs({0, 3, 5}))
                                       .include_last_offset(true)
                                       .padding_idx(3));
  EXPECT_TRUE(padded.allclose(nabla::tensor({{3., 4., 5.}, {3., 4., 5.}}, nabla::kDouble)));
  // A 2-d input is one bag per row.
  Tensor rows = F::embedding_bag(bag_longs({0, 1, 2, 3}).view({2, 2}), w,
                                 F::EmbeddingBagFuncOptions().mode(nabla::kSum));
  EXPECT_TRUE(rows.equal(nabla::tensor({{3., 5., 7.}, {15., 17., 19.}}, nabla::kDouble)));
}

TEST(EmbeddingBagModules, Gradients) {
  Tensor w = nabla::arange(12, nabla::kDouble).view({4, 3}).requires_grad_(true);
  Tensor psw = nabla::tensor({2., -1., 0.5}, nabla::kDouble).requires_grad_(true);
  Tensor out = F::embedding_bag(bag_longs({1, 1, 3}), w,
                                F::EmbeddingBagFuncOptions()
                                    .offsets(bag_longs({0, 2}))
                                    .mode(nabla::kSum)
                                    .per_sample_weights(psw));
  EXPECT_EQ(out.grad_fn()->name(), "EmbeddingBagBackward0");
  Tensor g = nabla::tensor({{1., 0., 2.}, {0., 3., 1.}}, nabla::kDouble);
  (out * g).sum().backward();
  // Row 1 gets bag 0's gradient with weights 2 and -1, row 3 bag 1's with 0.5.
  Tensor want_w = nabla::zeros({4, 3}, nabla::kDouble);
  want_w[1].copy_(g[0]);
  want_w[3].copy_(g[1] * 0.5);
  EXPECT_TRUE(w.grad().allclose(want_w));
  // d/d psw_i = <g[bag_i], w[idx_i]>.
  EXPECT_TRUE(psw.grad().allclose(nabla::tensor({13., 13., 41.}, nabla::kDouble)));

  Tensor w2 = nabla::tensor({{1., 5.}, {4., 2.}, {3., 3.}}, nabla::kDouble).requires_grad_(true);
  F::embedding_bag(bag_longs({0, 1, 2}), w2,
                   F::EmbeddingBagFuncOptions().offsets(bag_longs({0})).mode(nabla::kMax))
      .sum()
      .backward();
  EXPECT_TRUE(w2.grad().equal(nabla::tensor({{0., 1.}, {1., 0.}, {0., 0.}}, nabla::kDouble)));
}

TEST(EmbeddingBagModules, ModuleAndPretrained) {
  Tensor weight = nabla::tensor({{1., 2.3, 3.}, {4., 5.1, 6.3}});
  nn::EmbeddingBag bag = nn::EmbeddingBag::from_pretrained(weight);
  EXPECT_FALSE(bag->weight.requires_grad());
  EXPECT_TRUE(bag(bag_longs({1, 0}).view({1, 2})).allclose(nabla::tensor({{2.5, 3.7, 4.65}})));
  nn::Embedding emb = nn::Embedding::from_pretrained(
      weight, nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  EXPECT_TRUE(emb->weight.requires_grad());
  EXPECT_EQ(emb->options.padding_idx(), 0);
  EXPECT_TRUE(emb(bag_longs({1})).allclose(nabla::tensor({{4., 5.1, 6.3}})));

  nn::EmbeddingBag fresh(nn::EmbeddingBagOptions(10, 2).mode(nabla::kSum).padding_idx(-2));
  EXPECT_EQ(fresh->options.padding_idx(), 8);
  EXPECT_NE(fresh->weight[8].abs().sum().item<float>(), 0);  // LibTorch redraws it too
  EXPECT_EQ(fresh(bag_longs({1, 2, 3}), bag_longs({0, 1})).sizes().vec(), (V{2, 2}));
  EXPECT_EQ(
      bag_printed(*fresh),
      "nabla::nn::EmbeddingBag(num_embeddings=10, embedding_dim=2, mode=kSum, padding_idx=8)");
  EXPECT_EQ(
      bag_printed(*nn::EmbeddingBag(
          nn::EmbeddingBagOptions(10, 2).max_norm(2).norm_type(2.5).scale_grad_by_freq(true).sparse(
              true))),
      "nabla::nn::EmbeddingBag(num_embeddings=10, embedding_dim=2, max_norm=2, "
      "norm_type=2.5, scale_grad_by_freq=true, sparse=true)");
  // AnyModule / Sequential may leave the offsets out (a 2-d input).
  nn::Sequential seq(nn::EmbeddingBag(4, 3));
  EXPECT_EQ(seq->forward(bag_longs({0, 1, 2, 3}).view({2, 2})).sizes().vec(), (V{2, 3}));
}

TEST(EmbeddingBagModules, Errors) {
  Tensor w = nabla::randn({4, 3});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 4}), w,
                         F::EmbeddingBagFuncOptions().offsets(bag_longs({0})));
      },
      {"embedding_bag", "index"});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 1}), w);
      },
      {"offsets has to be a 1D Tensor but got null"});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 1}).view({1, 2}), w,
                         F::EmbeddingBagFuncOptions().offsets(bag_longs({0})));
      },
      {"If input is 2D, then offsets has to be null"});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 1}), w,
                         F::EmbeddingBagFuncOptions().offsets(bag_longs({1})));
      },
      {"offsets[0] has to be 0"});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 1}), w,
                         F::EmbeddingBagFuncOptions().offsets(bag_longs({0, 3})));
      },
      {"embedding_bag", "offsets"});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 1}), w,
                         F::EmbeddingBagFuncOptions()
                             .offsets(bag_longs({0}))
                             .per_sample_weights(nabla::ones({2})));
      },
      {"per_sample_weights is only supported for mode='kSum' (got mode='kMean')"});
  expect_error(
      [&] {
        F::embedding_bag(bag_longs({0, 1}), w,
                         F::EmbeddingBagFuncOptions()
                             .offsets(bag_longs({0}))
                             .mode(nabla::kMax)
                             .scale_grad_by_freq(true));
      },
      {"max mode does not support scaling the gradient by the frequency"});
  expect_error([&] { nn::EmbeddingBag bad(nn::EmbeddingBagOptions(3, 2).padding_idx(3)); },
               {"EmbeddingBag", "padding_idx"});
  expect_error([&] { nn::EmbeddingBag::from_pretrained(nabla::randn({3})); },
               {"Embeddings parameter is expected to be 2-dimensional"});
}
