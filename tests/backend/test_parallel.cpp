#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace nabla;

TEST(Parallel, CoversRangeExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    set_num_threads(threads);
    std::vector<std::atomic<int>> hits(100003);
    parallel_for(0, 100003, 1000, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    EXPECT_EQ(get_num_threads(), threads);
  }
  set_num_threads(2);
}

TEST(Parallel, SmallRangesRunInline) {
  set_num_threads(2);
  std::thread::id caller = std::this_thread::get_id();
  bool inline_run = true;
  parallel_for(0, 100, kGrainSize, [&](int64_t, int64_t) {
    inline_run = inline_run && std::this_thread::get_id() == caller;
  });
  EXPECT_TRUE(inline_run);
}

TEST(Parallel, ExceptionsReachTheCaller) {
  set_num_threads(2);
  EXPECT_THROW(parallel_for(0, 1 << 20, 1024,
                            [](int64_t b, int64_t) {
                              if (b > 0) throw Error("boom from a worker");
                            }),
               Error);
  // The pool still works afterwards.
  std::atomic<int64_t> sum{0};
  parallel_for(0, 1 << 16, 1024, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 1 << 16);
}

TEST(Parallel, NestedCallsRunInline) {
  set_num_threads(2);
  std::atomic<int64_t> total{0};
  parallel_for(0, 4, 1, [&](int64_t b, int64_t e) {
    EXPECT_TRUE(in_parallel_region());
    parallel_for(0, 1000, 1, [&](int64_t ib, int64_t ie) { total += (ie - ib) * (e - b); });
  });
  EXPECT_EQ(total.load(), 4000);
  EXPECT_FALSE(in_parallel_region());
}

TEST(Parallel, ConcurrentCallersFromManyThreads) {
  set_num_threads(2);
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int k = 0; k < 20; ++k) {
        Tensor x = ones({300000});
        if ((x * 2).sum().item<double>() == 600000) ok++;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST(Parallel, InvalidThreadCount) { EXPECT_THROW(set_num_threads(0), Error); }
