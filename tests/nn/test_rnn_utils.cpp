// nn::utils::rnn: padding and packing variable-length sequences, and their gradients.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {
namespace R = nn::utils::rnn;

TEST(RnnUtils, PadSequencePadsEachPastItsEnd) {
  Tensor a = tensor({1, 2, 3}), b = tensor({4, 5}), c = tensor({6});
  EXPECT_TRUE(equal(R::pad_sequence({b, a, c}, true), tensor({{4, 5, 0}, {1, 2, 3}, {6, 0, 0}})));
  EXPECT_TRUE(equal(R::pad_sequence({b, a, c}), tensor({{4, 1, 6}, {5, 2, 0}, {0, 3, 0}})));
  EXPECT_TRUE(equal(R::pad_sequence({b, c}, true, -1), tensor({{4, 5}, {6, -1}})));
  expect_error(
      [&] {
        R::pad_sequence({ones({2, 3}), ones({2, 4})});
      },
      {"pad_sequence", "trailing"});
}

TEST(RnnUtils, PackSequenceOrdersStepsAndRemembersTheBatchOrder) {
  Tensor a = tensor({1, 2, 3}), b = tensor({4, 5}), c = tensor({6});
  R::PackedSequence sorted = R::pack_sequence({a, b, c});
  EXPECT_TRUE(equal(sorted.data(), tensor({1, 4, 6, 2, 5, 3})));
  EXPECT_TRUE(equal(sorted.batch_sizes(), tensor({3, 2, 1})));
  EXPECT_FALSE(sorted.sorted_indices().defined());
  R::PackedSequence unsorted = R::pack_sequence({b, c, a}, /*enforce_sorted=*/false);
  EXPECT_TRUE(equal(unsorted.data(), tensor({1, 4, 6, 2, 5, 3})));
  EXPECT_TRUE(equal(unsorted.sorted_indices(), tensor({2, 0, 1})));
  EXPECT_TRUE(equal(unsorted.unsorted_indices(), tensor({1, 2, 0})));
  auto [padded, lengths] = R::pad_packed_sequence(unsorted, /*batch_first=*/true);
  EXPECT_TRUE(equal(padded, tensor({{4, 5, 0}, {6, 0, 0}, {1, 2, 3}})));
  EXPECT_TRUE(equal(lengths, tensor({2, 1, 3})));
  expect_error(
      [&] {
        R::pack_sequence({b, c, a});
      },
      {"must be sorted in decreasing order", "enforce_sorted=False"});
  auto [longer, _] = R::pad_packed_sequence(sorted, false, 9.0, 5);
  EXPECT_EQ(longer.size(0), 5);
  EXPECT_EQ(longer[4][0].item<int64_t>(), 9);
  expect_error([&] { R::pad_packed_sequence(sorted, false, 0.0, 2); },
               {"Expected total_length to be at least the length of the longest sequence"});
  expect_error(
      [&] {
        R::pack_padded_sequence(zeros({0, 0}), tensor(std::vector<int64_t>{}));
      },
      {"empty tensor"});
  EXPECT_TRUE(R::invert_permutation(tensor({2, 0, 1})).equal(tensor({1, 2, 0})));
  R::PackedSequence same = sorted.to(kCPU);
  EXPECT_TRUE(same.data().is_same(sorted.data()));
}

TEST(RnnUtils, GradientsReachOnlyTheValidSteps) {
  Tensor padded = randn({4, 3, 2}, TensorOptions(kDouble).requires_grad(true));
  Tensor lengths = tensor({4, 2, 1});
  R::PackedSequence packed = R::pack_padded_sequence(padded, lengths);
  EXPECT_EQ(packed.data().size(0), 7);
  auto [out, out_lengths] = R::pad_packed_sequence(packed);
  EXPECT_TRUE(equal(out_lengths, lengths));
  Tensor g = randn({4, 3, 2}, kDouble);
  out.backward(g);
  Tensor mask = zeros({4, 3, 1}, kDouble);
  mask.narrow(0, 0, 4).select(1, 0).fill_(1);
  mask.narrow(0, 0, 2).select(1, 1).fill_(1);
  mask.narrow(0, 0, 1).select(1, 2).fill_(1);
  EXPECT_TRUE(allclose(padded.grad(), g * mask));
}

}  // namespace
}  // namespace nabla::testing
