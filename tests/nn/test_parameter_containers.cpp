// ParameterList and ParameterDict: parameters by position or by name, each keeping the
// requires_grad its tensor had, visible to parameters(), optimizers and printing.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include <sstream>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(ParameterList, AppendsIndexesAndExtends) {
  Tensor a = randn({1, 2}, requires_grad()), b = randn({1, 2}), c = randn({3});
  nn::ParameterList list(a, b);
  EXPECT_EQ(list->size(), 2u);
  EXPECT_FALSE(list->is_empty());
  EXPECT_TRUE(list[0].requires_grad());
  EXPECT_FALSE(list[1].requires_grad()) << "kept as the tensor had it";
  list->append(c);
  EXPECT_TRUE(equal(list->at(2), c));
  nn::ParameterList other(c);
  *list += *other;
  list->extend(std::vector<Tensor>{a});
  EXPECT_EQ(list->size(), 5u);
  expect_error([&] { (void)list->at(9); }, {"ParameterList", "Index out of range"});
  std::vector<std::string> names;
  for (const auto& item : *list) names.push_back(item.key());
  EXPECT_EQ(names, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(list->parameters().size(), 5u);
  std::ostringstream os;
  os << nn::ParameterList(randn({1, 2}));
  EXPECT_EQ(os.str(),
            "nabla::nn::ParameterList(\n(0): Parameter containing: [Float of size [1, 2]]\n)");
}

TEST(ParameterDict, InsertsPopsUpdatesByName) {
  nn::ParameterDict dict;
  dict->insert("w", ones({2}, requires_grad()));
  dict->insert("b", zeros({2}));
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_TRUE(dict->contains("w"));
  EXPECT_TRUE(dict["w"].requires_grad());
  EXPECT_FALSE(dict["b"].requires_grad());
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"w", "b"}));
  expect_error([&] { dict->pop("nope"); }, {"Parameter 'nope' is not defined"});
  nn::ParameterDict wrong;
  wrong->insert("w", full({2}, 5.0));
  wrong->insert("extra", full({2}, 5.0));
  expect_error([&] { dict->update(*wrong); }, {"Parameter 'extra' is not defined"});
  EXPECT_TRUE(equal(dict["w"], ones({2}))) << "a refused update changes nothing";
  nn::ParameterDict right;
  right->insert("w", full({2}, 7.0));
  dict->update(*right);
  EXPECT_TRUE(equal(dict["w"], full({2}, 7.0)));
  Tensor popped = dict->pop("b");
  EXPECT_EQ(dict->size(), 1u);
  EXPECT_TRUE(equal(popped, zeros({2})));
  OrderedDict<std::string, Tensor> init;
  init.insert("p", ones({1}));
  nn::ParameterDict from(init);
  EXPECT_EQ(from->parameters().size(), 1u);
  from->clear();
  EXPECT_EQ(from->size(), 0u);
}

}  // namespace
}  // namespace nabla::testing
