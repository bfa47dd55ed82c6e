// The caching CPU allocator: large blocks freed into a full cache evict the oldest ones
// (new sizes keep being served from memory), and a training loop stops asking the system
// for memory after warm-up.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "nabla/nabla.h"

namespace {

constexpr size_t kMiB = size_t(1) << 20;

TEST(CpuAllocator, FullCacheEvictsOldestBlocks) {
  nabla::cpu_empty_cache();
  nabla::reset_peak_memory();
  // 40 distinct sizes of ~20 MiB, each freed before the next is taken: 800 MiB freed, more
  // than the 512 MiB the cache holds while the program never used more than 20 MiB.
  for (size_t i = 0; i < 40; ++i) {
    const size_t n = 20 * kMiB + i * 4096;
    nabla::cpu_free(nabla::cpu_alloc(n), n);
  }
  EXPECT_LE(nabla::cpu_memory_cached(), 512 * kMiB);
  EXPECT_GT(nabla::cpu_memory_cached(), 400 * kMiB);
  // A new size freed into the full cache is kept (older blocks make room), so the next
  // request of that size does not go to the system.
  const size_t fresh = 33 * kMiB;
  nabla::cpu_free(nabla::cpu_alloc(fresh), fresh);
  const size_t before = nabla::cpu_system_allocations();
  void* again = nabla::cpu_alloc(fresh);
  EXPECT_EQ(nabla::cpu_system_allocations(), before);
  nabla::cpu_free(again, fresh);
  // The newest of the first 40 sizes is still cached; the oldest was evicted.
  const size_t newest = 20 * kMiB + 39 * 4096, oldest = 20 * kMiB;
  void* p = nabla::cpu_alloc(newest);
  EXPECT_EQ(nabla::cpu_system_allocations(), before);
  void* q = nabla::cpu_alloc(oldest);
  EXPECT_EQ(nabla::cpu_system_allocations(), before + 1);
  nabla::cpu_free(p, newest);
  nabla::cpu_free(q, oldest);
  nabla::cpu_empty_cache();
  EXPECT_EQ(nabla::cpu_memory_cached(), 0u);
}

// Beyond 512 MiB, the cache holds up to half the peak of allocated memory: a step that
// frees and re-takes that much does not go back to the system. (cpu_alloc does not touch
// the blocks, so the 1.2 GB peak costs no resident memory.)
TEST(CpuAllocator, CacheHoldsHalfThePeak) {
  nabla::cpu_empty_cache();
  nabla::reset_peak_memory();
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t i = 0; i < 60; ++i) {
    const size_t n = 20 * kMiB + i * 4096;
    blocks.emplace_back(nabla::cpu_alloc(n), n);
  }
  for (auto& [p, n] : blocks) nabla::cpu_free(p, n);
  EXPECT_GT(nabla::cpu_memory_cached(), 560 * kMiB);
  EXPECT_LE(nabla::cpu_memory_cached(), nabla::cpu_memory_peak() / 2);
  // The newest blocks are the cached ones: taking them again asks the system for nothing.
  const size_t before = nabla::cpu_system_allocations();
  for (size_t i = 40; i < 60; ++i) blocks[i].first = nabla::cpu_alloc(blocks[i].second);
  EXPECT_EQ(nabla::cpu_system_allocations(), before);
  for (size_t i = 40; i < 60; ++i) nabla::cpu_free(blocks[i].first, blocks[i].second);
  nabla::cpu_empty_cache();
  EXPECT_EQ(nabla::cpu_memory_cached(), 0u);
}

struct SmallCnnImpl : nabla::nn::Module {
  SmallCnnImpl()
      : conv(register_module("conv",
                             nabla::nn::Conv2d(nabla::nn::Conv2dOptions(1, 8, 3).padding(1)))),
        fc(register_module("fc", nabla::nn::Linear(8 * 14 * 14, 10))) {}
  nabla::Tensor forward(nabla::Tensor x) {
    x = nabla::max_pool2d(nabla::relu(conv(x)), {2});
    return fc(x.flatten(1));
  }
  nabla::nn::Conv2d conv;
  nabla::nn::Linear fc;
};
NABLA_MODULE(SmallCnn);

TEST(CpuAllocator, TrainingLoopStopsAllocatingAfterWarmUp) {
  for (int threads : {1, 2}) {
    nabla::set_num_threads(threads);
    nabla::manual_seed(0);
    SmallCnn net;
    nabla::optim::Adam opt(net->parameters(), nabla::optim::AdamOptions(1e-3));
    nabla::Tensor x = nabla::randn({32, 1, 28, 28});
    nabla::Tensor y = nabla::randint(0, 10, {32});
    auto step = [&] {
      opt.zero_grad();
      nabla::Tensor loss = nabla::nn::functional::cross_entropy(net(x), y);
      loss.backward();
      opt.step();
    };
    // Note [Chunk scratch] (conv_dnnl.cpp): the count must not depend on which pool
    // thread ran which convolution chunk; 100 runs at 2 threads were stable.
    for (int i = 0; i < 3; ++i) step();
    const size_t before = nabla::cpu_system_allocations();
    for (int i = 0; i < 10; ++i) step();
    EXPECT_EQ(nabla::cpu_system_allocations(), before) << threads << " threads";
  }
  nabla::set_num_threads(2);
}

}  // namespace

// Note [Poisoned new memory]: run by ctest with NABLA_POISON_NEW_MEMORY set (and skipped
// without it), new tensors hold NaN (floating) and -1 (integers) before any write.
TEST(CpuAllocator, PoisonedNewMemoryIsNaN) {
  if (!std::getenv("NABLA_POISON_NEW_MEMORY")) GTEST_SKIP() << "NABLA_POISON_NEW_MEMORY not set";
  for (int64_t n : {3, 1000, 100000}) {
    EXPECT_TRUE(nabla::empty({n}).isnan().all().item<bool>()) << n;
    EXPECT_TRUE(nabla::empty({n}, nabla::kDouble).isnan().all().item<bool>()) << n;
    EXPECT_TRUE((nabla::empty({n}, nabla::kLong) == -1).all().item<bool>()) << n;
  }
}

// The fill can be changed at run time (the op table's rerun on zero-filled memory).
TEST(CpuAllocator, NewMemoryFillIsSettable) {
  const int before = nabla::set_new_memory_fill(0x01);
  EXPECT_EQ(nabla::new_memory_fill(), 0x01);
  EXPECT_TRUE((nabla::empty({1000}, nabla::kByte) == 1).all().item<bool>());
  nabla::set_new_memory_fill(-1);
  EXPECT_THROW(nabla::set_new_memory_fill(256), nabla::Error);
  EXPECT_EQ(nabla::set_new_memory_fill(before), -1);
}
