// LibTorch's small utilities, spelled nabla::: irange, warnings and their handlers,
// OrderedDict::update's duplicate check.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(Irange, CountsFromZeroOrFromBegin) {
  std::vector<int64_t> seen;
  for (const auto i : irange(int64_t(4))) seen.push_back(i);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
  seen.clear();
  for (const auto i : irange(2, int64_t(5))) seen.push_back(i);
  EXPECT_EQ(seen, (std::vector<int64_t>{2, 3, 4}));
  int n = 0;
  for (const auto i : irange(-3)) n += i + 1;  // an end below the start: empty
  for (const auto i : irange(5, 2)) n += i + 1;
  EXPECT_EQ(n, 0);
  size_t count = 0;
  for (const auto i : irange(size_t(3))) {
    static_assert(std::is_same_v<std::decay_t<decltype(i)>, size_t>, "the end's type");
    ++count;
  }
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(irange(7).size(), 7u);
  EXPECT_TRUE(irange(0).empty());
}

struct Collect : WarningHandler {
  std::vector<std::string> seen;
  std::vector<std::string> files;
  void process(const SourceLocation& where, const std::string& msg, bool) override {
    files.push_back(where.file);
    seen.push_back(msg);
  }
};

void warn_once_here() { NABLA_WARN_ONCE("said once"); }

TEST(Warnings, GoToTheThreadsHandlerAndWarnOnceOnlyOnce) {
  Collect collect;
  {
    WarningUtils::WarningHandlerGuard guard(&collect);
    EXPECT_EQ(Warning::get_warning_handler(), &collect);
    NABLA_WARN("value ", 3, " is odd");
    warn_once_here();
    warn_once_here();
    {
      Warning::WarnAlways always;
      warn_once_here();
    }
    warn_once_here();
  }
  EXPECT_NE(Warning::get_warning_handler(), &collect);
  EXPECT_EQ(collect.seen, (std::vector<std::string>{"value 3 is odd", "said once", "said once"}));
  EXPECT_NE(collect.files[0].find("test_compat_utilities"), std::string::npos);
  EXPECT_EQ(Join(", ", collect.seen), "value 3 is odd, said once, said once");
}

TEST(Warnings, LibraryWarningsReachTheHandler) {
  Collect collect;
  WarningUtils::WarningHandlerGuard guard(&collect);
  Tensor x = rand({2}, requires_grad());
  Tensor y = x * 2;
  EXPECT_FALSE(y.grad().defined());  // not a leaf, not retained: a warning
  ASSERT_EQ(collect.seen.size(), 1u);
  EXPECT_NE(collect.seen[0].find("not a leaf"), std::string::npos);
  y.retain_grad();
  (void)y.grad();
  EXPECT_EQ(collect.seen.size(), 1u) << "retained: no warning";
  Tensor v = tensor({1, 2, 3});
  (void)v.index({tensor({1, 0, 1}, kByte)});
  ASSERT_EQ(collect.seen.size(), 2u);
  EXPECT_NE(collect.seen[1].find("uint8"), std::string::npos);
}

TEST(OrderedDictCompat, UpdateRefusesDuplicatesBeforeInserting) {
  OrderedDict<std::string, int> a;
  a.insert("x", 1);
  OrderedDict<std::string, int> b;
  b.insert("y", 2);
  b.insert("x", 3);
  expect_error([&] { a.update(b); }, {"'x' already defined"});
  EXPECT_EQ(a.size(), 1u) << "nothing inserted";
  OrderedDict<std::string, int> c;
  c.insert("z", 4);
  a.update(c);
  EXPECT_EQ(a.keys(), (std::vector<std::string>{"x", "z"}));
}

TEST(StringUtils, ToStringOfAnythingPrintable) {
  EXPECT_EQ(to_string(42), "42");
  EXPECT_EQ(to_string(kFloat), "Float");
  int x = 0;
  EXPECT_EQ(guts::to_string(&x).substr(0, 2), "0x");
  EXPECT_EQ(Join("/", std::vector<int>{1, 2, 3}), "1/2/3");
}

TEST(TempFileCompat, MadeEmptyAndRemovedWithItsOwner) {
  std::string name;
  {
    TempFile f = make_tempfile("nabla-test-");
    name = f.name;
    EXPECT_NE(name.find("nabla-test-"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(name));
    EXPECT_EQ(std::filesystem::file_size(name), 0u);
    TempFile moved = std::move(f);
    EXPECT_EQ(moved.name, name);
  }
  EXPECT_FALSE(std::filesystem::exists(name));
}

}  // namespace
}  // namespace nabla::testing
