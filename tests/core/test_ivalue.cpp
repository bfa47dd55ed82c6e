// nabla::IValue (nabla/core/ivalue.h): kinds, conversions, containers' reference
// semantics, dict keys, printing, and the errors of asking for the wrong kind.
#include <sstream>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(IValue, KindsAndConversions) {
  EXPECT_TRUE(IValue().isNone());
  EXPECT_EQ(IValue(3).toInt(), 3);
  EXPECT_EQ(IValue(3).toDouble(), 3.0);  // an int reads as a double, not the other way
  EXPECT_EQ(IValue(true).tagKind(), std::string("Bool"));
  EXPECT_EQ(IValue("s").toStringRef(), "s");
  EXPECT_EQ(IValue(std::vector<int64_t>{1, 2}).toIntVector(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(IValue(GenericList{1, 2}).toIntVector(), (std::vector<int64_t>{1, 2}));
  const Tensor t = ones({2});
  EXPECT_TRUE(IValue(std::vector<Tensor>{t, t}).toTensorVector()[1].is_same(t));
  expect_error([] { IValue(2.5).toInt(); }, {"IValue: expected an int", "Double"});
  expect_error([] { IValue(GenericList{1, "x"}).toIntVector(); }, {"int list", "String"});
  expect_error([] { IValue(1).toGenericDict(); }, {"expected a dict", "Int"});
}

TEST(IValue, ContainersAreShared) {
  IValue list(GenericList{});
  IValue copy = list;
  copy.toList().emplace_back(int64_t{7});
  EXPECT_EQ(list.toList().size(), 1u);
  EXPECT_TRUE(list.is(copy));
  EXPECT_FALSE(list.is(IValue(GenericList{7})));
}

TEST(IValue, DictKeepsInsertionOrderAndFindsKeys) {
  GenericDict d;
  d.insert_or_assign("b", 1);
  d.insert_or_assign(2, "two");
  d.insert_or_assign("a", 3);
  d.insert_or_assign("b", 4);  // replaces, keeps the place
  std::vector<std::string> keys;
  for (const auto& e : d) keys.push_back(e.key().isString() ? e.key().toStringRef() : "2");
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "2", "a"}));
  EXPECT_EQ(d.at("b").toInt(), 4);
  EXPECT_EQ(d.at(2).toStringRef(), "two");
  EXPECT_FALSE(d.contains("c"));
  expect_error([&] { d.at("c"); }, {"no key 'c'"});
  expect_error([&] { d.insert_or_assign(IValue(GenericList{}), 1); }, {"a key must be", "List"});
}

TEST(IValue, PrintsLikePython) {
  GenericDict d;
  d.insert_or_assign("w", zeros({2, 3}));
  d.insert_or_assign("t", ivalue::Tuple::create({1}));
  d.insert_or_assign("l", GenericList{true, IValue(), 0.5});
  std::ostringstream out;
  out << IValue(d);
  EXPECT_EQ(out.str(), "{'w': Tensor[Float [2, 3]], 't': (1,), 'l': [True, None, 0.5]}");
}

}  // namespace
}  // namespace nabla::testing
