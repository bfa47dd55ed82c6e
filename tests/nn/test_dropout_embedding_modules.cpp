// Dropout modules follow train/eval; Embedding's lookup, padding row, gradient and init.
#include <gtest/gtest.h>

#include <nabla/nabla.h>

#include "test_util.h"

namespace nn = nabla::nn;
using nabla::Tensor;

TEST(DropoutModules, TrainAndEval) {
  nabla::manual_seed(0);
  nn::Dropout drop(nn::DropoutOptions(0.25));
  Tensor x = nabla::ones({10000});
  Tensor y = drop(x);
  const double kept = y.ne(0).to(nabla::kDouble).mean().item<double>();
  EXPECT_NEAR(kept, 0.75, 0.02);
  EXPECT_NEAR(y.max().item<double>(), 1 / 0.75, 1e-6);  // survivors scaled by 1/(1-p)
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));
  nn::Dropout2d d2(0.5);
  Tensor f = d2(nabla::ones({4, 8, 3, 3}));
  // Whole channels are kept or zeroed.
  Tensor per_channel = f.view({4, 8, 9});
  EXPECT_TRUE(per_channel.amax({2}).eq(per_channel.amin({2})).all().item<bool>());
  nabla::testing::expect_error([] { nn::Dropout bad(nn::DropoutOptions(1.5)); },
                               {"between 0 and 1"});
}

TEST(EmbeddingModule, LookupPaddingGradient) {
  nabla::manual_seed(1);
  nn::Embedding emb(nn::EmbeddingOptions(10, 4).padding_idx(0));
  EXPECT_EQ(emb->weight[0].abs().sum().item<double>(), 0.0);
  EXPECT_NEAR(emb->weight.narrow(0, 1, 9).std().item<double>(), 1.0, 0.5);
  Tensor idx = nabla::tensor({{1, 0, 3}, {3, 3, 9}}, nabla::kLong);
  Tensor out = emb(idx);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_TRUE(out[1][2].equal(emb->weight[9]));
  out.sum().backward();
  EXPECT_EQ(emb->weight.grad()[3].sum().item<double>(), 12.0);       // used three times, 4 dims
  EXPECT_EQ(emb->weight.grad()[0].abs().sum().item<double>(), 0.0);  // padding row gets none
}
