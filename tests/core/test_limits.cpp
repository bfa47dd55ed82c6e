// Limits (docs/reliability.md): sizes whose element or byte count overflows int64,
// negative sizes, allocations larger than memory (also from a parallel_for worker) and
// exceptions thrown in a parallel_for body reach the caller as clean errors, and the
// library works afterwards.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

using nabla::Tensor;

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

struct Case {
  const char* what;
  std::function<void()> fn;
};

/// Each case must throw nabla::Error whose message has `fragment`; any other exception
/// type (std::bad_alloc, std::length_error) is reported as a failure, not let through.
void expect_all_fail(const std::vector<Case>& cases, const std::string& fragment) {
  for (const Case& c : cases) {
    try {
      c.fn();
      ADD_FAILURE() << c.what << ": expected a nabla::Error";
    } catch (const nabla::Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << c.what << ": message lacks '" << fragment << "': " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.what << ": threw " << typeid(e).name() << " (" << e.what()
                    << ") instead of nabla::Error";
    }
  }
}

/// The library still computes after a failure.
void expect_usable() {
  Tensor a = nabla::arange(6, nabla::kFloat).view({2, 3});
  EXPECT_EQ(nabla::testing::values(a.sum(1)), (std::vector<double>{3, 12}));
}

}  // namespace

TEST(Limits, ElementCountOverflowingInt64) {
  const int64_t big = int64_t(1) << 40;
  Tensor x = nabla::ones({1});
  expect_all_fail(
      {
          {"empty({2^40, 2^40})",
           [&] {
             nabla::empty({big, big});
           }},
          {"empty({INT64_MAX/2, 3})",
           [&] {
             nabla::empty({kInt64Max / 2, 3}, nabla::kFloat);
           }},
          {"zeros({2^40, 2^40})",
           [&] {
             nabla::zeros({big, big});
           }},
          {"ones({2^32, 2^32})",
           [&] {
             nabla::ones({int64_t(1) << 32, int64_t(1) << 32});
           }},
          {"full({INT64_MAX, 2})",
           [&] {
             nabla::full({kInt64Max, 2}, 1.5);
           }},
          {"rand({2^40, 2^40})",
           [&] {
             nabla::rand({big, big});
           }},
          {"randn({2^40, 2^40})",
           [&] {
             nabla::randn({big, big});
           }},
          {"randint(5, {2^40, 2^40})",
           [&] {
             nabla::randint(5, {big, big});
           }},
          {"new_empty({2^40, 2^40})",
           [&] {
             x.new_empty({big, big});
           }},
          {"new_zeros({2^40, 2^40})",
           [&] {
             x.new_zeros({big, big});
           }},
          {"expand({2^40, 2^40})",
           [&] {
             x.expand({big, big});
           }},
          {"view({2^40, 2^40})",
           [&] {
             x.view({big, big});
           }},
          {"reshape({2^40, 2^40})",
           [&] {
             x.reshape({big, big});
           }},
          {"repeat({2^40, 2^40})",
           [&] {
             x.repeat({big, big});
           }},
      },
      "");
  // The factories name the cause.
  nabla::testing::expect_error([&] { nabla::empty({big, big}); }, {"empty", "overflows int64"});
  nabla::testing::expect_error(
      [&] {
        nabla::empty({kInt64Max / 2, 3}, nabla::kFloat);
      },
      {"empty", "overflows int64"});
  expect_usable();
}

TEST(Limits, ByteCountOverflowing) {
  // The element count fits in int64, the byte count does not (or not in the address space).
  expect_all_fail(
      {
          {"empty({INT64_MAX/4}) float", [] { nabla::empty({kInt64Max / 4}, nabla::kFloat); }},
          {"empty({INT64_MAX/2}) double", [] { nabla::empty({kInt64Max / 2}, nabla::kDouble); }},
          {"zeros({2^61}) double", [] { nabla::zeros({int64_t(1) << 61}, nabla::kDouble); }},
          {"empty_strided({2}, {INT64_MAX})",
           [] { nabla::empty_strided({2}, {kInt64Max}, nabla::kFloat); }},
          {"empty_strided({3, 3}, {2^62, 1})",
           [] {
             nabla::empty_strided({3, 3}, {int64_t(1) << 62, 1}, nabla::kFloat);
           }},
      },
      "");
  nabla::testing::expect_error([] { nabla::empty({kInt64Max / 4}, nabla::kFloat); },
                               {"empty", "bytes"});
  expect_usable();
}

TEST(Limits, NegativeSizes) {
  Tensor x = nabla::ones({2, 3});
  expect_all_fail(
      {
          {"empty({-1})", [] { nabla::empty({-1}); }},
          {"zeros({2, -3})",
           [] {
             nabla::zeros({2, -3});
           }},
          {"ones({-5, 2})",
           [] {
             nabla::ones({-5, 2});
           }},
          {"full({-1}, 2)", [] { nabla::full({-1}, 2.0); }},
          {"rand({-2})", [] { nabla::rand({-2}); }},
          {"randn({3, -1})",
           [] {
             nabla::randn({3, -1});
           }},
          {"randint(4, {-1})", [] { nabla::randint(4, {-1}); }},
          {"eye(-1)", [] { nabla::eye(-1); }},
          {"linspace(0, 1, -2)", [] { nabla::linspace(0, 1, -2); }},
          {"randperm(-3)", [] { nabla::randperm(-3); }},
          {"empty_strided({-1}, {1})", [] { nabla::empty_strided({-1}, {1}); }},
          {"new_empty({-4})", [&] { x.new_empty({-4}); }},
          {"view({-2, 3})",
           [&] {
             x.view({-2, 3});
           }},
          {"reshape({-3, -1})",
           [&] {
             x.reshape({-3, -1});
           }},
          {"expand({-2, 3})",
           [&] {
             x.expand({-2, 3});
           }},
          {"repeat({-1, 1})",
           [&] {
             x.repeat({-1, 1});
           }},
      },
      "");
  nabla::testing::expect_error([] { nabla::zeros({2, -3}); }, {"negative", "-3"});
  expect_usable();
}

// 10^13 bytes: more than any test machine has; the allocator reports it as a
// nabla::Error instead of letting std::bad_alloc escape or the process abort. (Under
// vm.overcommit_memory=1 the kernel would hand out the address space; the factories
// that fill memory would then be killed on touching it, so only empty() is tried there.)
TEST(Limits, AllocationLargerThanMemory) {
  constexpr int64_t kFloats = 2'500'000'000'000;  // 10^13 bytes
  const size_t allocated = nabla::cpu_memory_allocated();
  try {
    Tensor t = nabla::empty({kFloats}, nabla::kFloat);
    GTEST_SKIP() << "the system granted 10^13 bytes (overcommit): nothing to check";
  } catch (const nabla::Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("10000000000000"), std::string::npos) << e.what();
  }
  expect_all_fail({{"zeros(10^13 bytes)", [] { nabla::zeros({kFloats}, nabla::kFloat); }},
                   {"ones(10^13 bytes)", [] { nabla::ones({kFloats / 2}, nabla::kDouble); }}},
                  "out of memory");
  // The failed attempts are not counted as allocated memory.
  EXPECT_EQ(nabla::cpu_memory_allocated(), allocated);
  expect_usable();
}

TEST(Limits, AllocationFailureInsideParallelFor) {
  const int threads = nabla::get_num_threads();
  nabla::set_num_threads(2);  // so that chunks run on a pool worker, not only the caller
  try {
    nabla::parallel_for(0, 8, 1, [](int64_t, int64_t) {
      Tensor t = nabla::empty({int64_t(2'500'000'000'000)}, nabla::kFloat);
    });
    ADD_FAILURE() << "expected a nabla::Error (unless the system overcommits 10^13 bytes)";
  } catch (const nabla::Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  // The pool runs the next job.
  std::vector<int> hits(64, 0);
  nabla::parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
  });
  EXPECT_EQ(hits, std::vector<int>(64, 1));
  nabla::set_num_threads(threads);
  expect_usable();
}

// As at::parallel_for: the first exception a chunk throws reaches the caller with its own
// type (std::rethrow_exception), after every chunk has finished.
TEST(Limits, ExceptionInParallelForBodyReachesTheCaller) {
  const int threads = nabla::get_num_threads();
  nabla::set_num_threads(2);
  struct UserError : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  for (int round = 0; round < 20; ++round) {
    EXPECT_THROW(nabla::parallel_for(0, 100, 1,
                                     [](int64_t b, int64_t e) {
                                       if (b <= 60 && 60 < e) throw UserError("chunk failed");
                                     }),
                 UserError);
    EXPECT_THROW(nabla::parallel_for(0, 100, 1,
                                     [](int64_t b, int64_t e) {
                                       NABLA_CHECK(b > 70 || e <= 70, "body: bad index 70");
                                     }),
                 nabla::Error);
  }
  // A kernel (threaded: above the grain size) still works.
  Tensor big = nabla::ones({1 << 18});
  EXPECT_EQ(big.sum().item<float>(), static_cast<float>(1 << 18));
  nabla::set_num_threads(threads);
  expect_usable();
}
