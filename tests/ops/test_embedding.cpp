// embedding / embedding_renorm_ / one_hot, what the op table
// (tests/conformance/table_nn_dropout_embedding.cpp) cannot say: F::embedding's max_norm
// renormalizing the weight in place, second derivatives where padding_idx and
// scale_grad_by_freq make the gradient no derivative, and error messages.
#include <cmath>

#include "test_util.h"

using namespace nabla;
namespace F = nabla::nn::functional;
using autograd::variable_list;
using nabla::testing::expect_error;
using nabla::testing::rnd;
using nabla::testing::values;
using V = std::vector<double>;

// The table skips finite differences for these entries (the gradient is not the
// derivative there); the double backward is still checked against the backward.
TEST(Embedding, SecondDerivativesWithPaddingAndFrequency) {
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
  expect_error(
      [] {
        embedding(ones({3, 2}), tensor({0, 3}));
      },
      {"embedding", "index 3 is out of bounds for 3 rows"});
  expect_error([] { embedding(ones({3, 2}), tensor({-1})); }, {"embedding", "-1"});
  expect_error([] { embedding(ones({3}), tensor({0})); }, {"embedding", "2-D"});
  expect_error([] { embedding(ones({3, 2}), tensor({0.5})); }, {"embedding", "Long or Int"});
  expect_error(
      [] {
        embedding_renorm_(ones({3, 2}), tensor({5}), 1.0, 2.0);
      },
      {"embedding_renorm_"});
}

TEST(OneHot, Errors) {
  expect_error([] { one_hot(tensor({0, 3}), 3); }, {"one_hot", "smaller than num_classes"});
  expect_error([] { one_hot(tensor({-1})); }, {"one_hot", "non-negative"});
  expect_error([] { one_hot(tensor({1.0})); }, {"one_hot", "index"});
  expect_error([] { one_hot(tensor(std::vector<int64_t>{}, kLong)); }, {"one_hot", "empty"});
}
