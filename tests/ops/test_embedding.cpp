// embedding / embedding_renorm_ / one_hot: values, gradients (padding_idx,
// scale_grad_by_freq), F:: options (max_norm renormalization in place), errors.
#include <cmath>

#include "test_util.h"

using namespace nabla;
namespace F = nabla::nn::functional;
using autograd::variable_list;
using nabla::testing::expect_error;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;
using V = std::vector<double>;

TEST(Embedding, Lookup) {
  Tensor w = arange(12, kDouble).view({4, 3});
  Tensor idx = tensor({{3, 0}, {1, 3}});
  Tensor y = embedding(w, idx);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_EQ(values(y), V({9, 10, 11, 0, 1, 2, 3, 4, 5, 9, 10, 11}));
  EXPECT_EQ(embedding(w, tensor({2}, kInt)).sizes(), IntArrayRef({1, 3}));  // int32 indices
  EXPECT_EQ(embedding(w, tensor(std::vector<int64_t>{}, kLong)).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(embedding(w, tensor(1)).sizes(), IntArrayRef({3}));  // 0-d index
  Tensor wt = arange(12, kDouble).view({3, 4}).t();              // non-contiguous weight [4, 3]
  EXPECT_EQ(values(embedding(wt, tensor({1}))), values(wt[1]));
}

TEST(Embedding, Gradients) {
  Tensor w = zeros({4, 2}, kDouble).requires_grad_();
  Tensor idx = tensor({0, 2, 0, 3, 0});
  Tensor y = embedding(w, idx, /*padding_idx=*/3);
  EXPECT_EQ(name_of(y), "EmbeddingBackward0");
  (y * arange(10, kDouble).view({5, 2})).sum().backward();
  // Row 0 gets rows 0, 2, 4 of the output gradient; row 2 gets row 1; padding row 3 none.
  EXPECT_EQ(values(w.grad()), V({0 + 4 + 8, 1 + 5 + 9, 0, 0, 2, 3, 0, 0}));
  Tensor w2 = zeros({4, 2}, kDouble).requires_grad_();
  embedding(w2, idx, -1, /*scale_grad_by_freq=*/true).sum().backward();
  EXPECT_EQ(values(w2.grad()), V({1, 1, 0, 0, 1, 1, 1, 1}));  // row 0 seen 3 times: 3 / 3
  auto f = [&](const variable_list& in) -> variable_list {
    return {embedding(in[0], tensor({{1, 0}, {2, 1}}))};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {rnd({3, 2})}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {rnd({3, 2})}));
  auto p = [&](const variable_list& in) -> variable_list {
    return {embedding(in[0], tensor({1, 0, 1}), 0, true) * 2};
  };
  EXPECT_TRUE(autograd::gradgradcheck(p, {rnd({3, 2})}));
}

TEST(Embedding, FunctionalOptions) {
  Tensor w = tensor({{3.0, 4.0}, {0.3, 0.4}, {6.0, 8.0}}).requires_grad_();
  Tensor idx = tensor({0, 1});
  Tensor y = F::embedding(idx, w, F::EmbeddingFuncOptions().max_norm(1.0));
  // Row 0 (norm 5) is renormalized in place to norm ~1; row 1 (0.5) and unused row 2 stay.
  V wv = values(w);
  EXPECT_NEAR(wv[0], 0.6, 1e-6);
  EXPECT_NEAR(wv[1], 0.8, 1e-6);
  EXPECT_NEAR(wv[2], 0.3, 1e-7);
  EXPECT_EQ(wv[4], 6.0);
  EXPECT_NEAR(values(y)[0], 0.6, 1e-6);
  Tensor w1 = tensor({{1.0, 1.0}, {2.0, 2.0}, {3.0, 3.0}}).requires_grad_();
  F::embedding(tensor({0, 2, 2}), w1,
               F::EmbeddingFuncOptions().padding_idx(-1).scale_grad_by_freq(true))
      .sum()
      .backward();
  EXPECT_EQ(values(w1.grad()), V({1, 1, 0, 0, 0, 0}));  // padding_idx -1 is row 2
  Tensor w2 = tensor({{3.0, 4.0}});
  F::embedding(tensor({0}), w2, F::EmbeddingFuncOptions().max_norm(2.0).norm_type(1.0));
  EXPECT_NEAR(values(w2)[0] + values(w2)[1], 2.0, 1e-5);
  expect_error(
      [] {
        F::embedding(tensor({0}), ones({3, 2}), F::EmbeddingFuncOptions().padding_idx(3));
      },
      {"embedding", "padding_idx"});
  expect_error(
      [] {
        F::embedding(tensor({0}), ones({3, 2}), F::EmbeddingFuncOptions().sparse(true));
      },
      {"embedding", "sparse"});
}

TEST(Embedding, Errors) {
  expect_error([] { embedding(ones({3, 2}), tensor({0, 3})); }, {"embedding", "3", "out of range"});
  expect_error([] { embedding(ones({3, 2}), tensor({-1})); }, {"embedding", "-1"});
  expect_error([] { embedding(ones({3}), tensor({0})); }, {"embedding", "2-D"});
  expect_error([] { embedding(ones({3, 2}), tensor({0.5})); }, {"embedding", "Long or Int"});
  expect_error(
      [] {
        embedding_renorm_(ones({3, 2}), tensor({5}), 1.0, 2.0);
      },
      {"embedding_renorm_"});
}

TEST(OneHot, ValuesAndErrors) {
  Tensor o = one_hot(tensor({2, 0, 1}));
  EXPECT_EQ(o.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(o.scalar_type(), kLong);
  EXPECT_EQ(values(o), V({0, 0, 1, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(one_hot(tensor({{1}, {0}}), 4).sizes(), IntArrayRef({2, 1, 4}));
  EXPECT_EQ(F::one_hot(tensor(std::vector<int64_t>{}, kLong), 5).sizes(), IntArrayRef({0, 5}));
  expect_error([] { one_hot(tensor({0, 3}), 3); }, {"one_hot", "smaller than num_classes"});
  expect_error([] { one_hot(tensor({-1})); }, {"one_hot", "non-negative"});
  expect_error([] { one_hot(tensor({1.0})); }, {"one_hot", "index"});
  expect_error([] { one_hot(tensor(std::vector<int64_t>{}, kLong)); }, {"one_hot", "empty"});
}
