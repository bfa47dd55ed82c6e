// The distributed samplers against LibTorch's: the same indices, batch by batch, for
// dataset sizes that do and do not divide, 1 to 4 replicas, with and without duplicates,
// over several epochs (the random sampler's seed).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nabla/nabla.h>

namespace {

template <class A, class B>
void expect_same_batches(A& theirs, B& ours, const std::string& what) {
  for (size_t batch = 0;; ++batch) {
    auto t = theirs.next(5);
    auto o = ours.next(5);
    ASSERT_EQ(t.has_value(), o.has_value()) << what << ", batch " << batch;
    if (!t) break;
    EXPECT_EQ(*t, *o) << what << ", batch " << batch;
  }
}

TEST(DistributedSamplers, SameIndicesAsLibTorch) {
  for (size_t size : {0u, 1u, 7u, 12u, 13u, 100u})
    for (size_t replicas : {1u, 2u, 3u, 4u})
      for (bool duplicates : {true, false})
        for (size_t rank = 0; rank < replicas; ++rank) {
          const std::string what = "size " + std::to_string(size) + ", " +
                                   std::to_string(replicas) + " replicas, rank " +
                                   std::to_string(rank) + (duplicates ? ", duplicates" : "");
          torch::data::samplers::DistributedSequentialSampler ts(size, replicas, rank, duplicates);
          nabla::data::samplers::DistributedSequentialSampler os(size, replicas, rank, duplicates);
          expect_same_batches(ts, os, "sequential, " + what);
          torch::data::samplers::DistributedRandomSampler tr(size, replicas, rank, duplicates);
          nabla::data::samplers::DistributedRandomSampler orr(size, replicas, rank, duplicates);
          for (size_t epoch : {0u, 1u, 5u}) {
            tr.set_epoch(epoch);
            tr.reset();
            orr.set_epoch(epoch);
            orr.reset();
            expect_same_batches(tr, orr, "random, epoch " + std::to_string(epoch) + ", " + what);
          }
        }
}

}  // namespace
