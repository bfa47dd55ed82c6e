// InlineVector (nabla/core/inline_vector.h), the container behind a backward node's edges
// and gradient metadata: elements are constructed, moved and destroyed exactly once,
// inline up to N and on the heap past it, and a push_back of one of its own elements
// survives the move to the heap.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "nabla/core/inline_vector.h"

namespace {

using nabla::InlineVector;

// Counts live objects, so a leak or a double destruction shows.
struct Counted {
  static inline int live = 0;
  std::string value;
  explicit Counted(std::string v) : value(std::move(v)) { ++live; }
  Counted(const Counted& o) : value(o.value) { ++live; }
  Counted(Counted&& o) noexcept : value(std::move(o.value)) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
};

TEST(InlineVector, GrowsPastInlineCapacityKeepingOrder) {
  {
    InlineVector<Counted, 2> v;
    for (int i = 0; i < 9; ++i) v.emplace_back(std::to_string(i));
    ASSERT_EQ(v.size(), 9u);
    for (int i = 0; i < 9; ++i) EXPECT_EQ(v[i].value, std::to_string(i));
    EXPECT_EQ(Counted::live, 9);
    v.pop_back();
    EXPECT_EQ(Counted::live, 8);
    EXPECT_EQ(v.back().value, "7");
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(InlineVector, CopyAndMoveInlineAndOnHeap) {
  for (int n : {1, 2, 5}) {
    {
      InlineVector<Counted, 2> a;
      for (int i = 0; i < n; ++i) a.emplace_back("x" + std::to_string(i));
      InlineVector<Counted, 2> b = a;  // copy
      ASSERT_EQ(b.size(), size_t(n));
      EXPECT_EQ(b[n - 1].value, "x" + std::to_string(n - 1));
      InlineVector<Counted, 2> c = std::move(a);  // move leaves the source empty
      EXPECT_TRUE(a.empty());
      ASSERT_EQ(c.size(), size_t(n));
      EXPECT_EQ(c[0].value, "x0");
      b = std::move(c);
      EXPECT_TRUE(c.empty());
      EXPECT_EQ(b.size(), size_t(n));
      a = b;  // copy-assign into a moved-from vector
      EXPECT_EQ(a.size(), size_t(n));
      EXPECT_EQ(Counted::live, 2 * n);
    }
    EXPECT_EQ(Counted::live, 0) << n;
  }
}

TEST(InlineVector, PushBackOfOwnElementWhileGrowing) {
  InlineVector<std::string, 2> v;
  v.push_back("first element, long enough to live on the heap");
  v.push_back("second");
  v.push_back(v[0]);  // the vector grows while reading v[0]
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2], v[0]);
}

TEST(InlineVector, HoldsSharedPointersAndReleasesThem) {
  auto p = std::make_shared<int>(7);
  {
    InlineVector<std::shared_ptr<int>, 2> v;
    for (int i = 0; i < 5; ++i) v.push_back(p);
    EXPECT_EQ(p.use_count(), 6);
    v.clear();
    EXPECT_EQ(p.use_count(), 1);
    v.push_back(p);
  }
  EXPECT_EQ(p.use_count(), 1);
}

}  // namespace
