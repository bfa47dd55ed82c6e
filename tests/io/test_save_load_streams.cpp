// save/load to and from std::ostream/std::istream, as LibTorch's torch::save(x, stream).
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include <sstream>

#include "test_util.h"

namespace nabla::testing {
namespace {

TEST(SaveLoadStreams, TensorsModulesAndOptimizers) {
  std::stringstream one;
  Tensor t = arange(6.0).view({2, 3});
  save(t, one);
  Tensor back;
  load(back, one);
  EXPECT_TRUE(equal(back, t));

  std::stringstream many;
  save(std::vector<Tensor>{t, t * 2}, many);
  std::vector<Tensor> list;
  load(list, many);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(equal(list[1], t * 2));

  nn::Linear a(3, 2), b(3, 2);
  std::stringstream model;
  save(a, model);
  load(b, model);
  EXPECT_TRUE(equal(a->weight, b->weight));

  optim::SGD opt(a->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  a(ones({1, 3})).sum().backward();
  opt.step();
  std::stringstream state;
  save(opt, state);
  optim::SGD opt2(b->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  load(opt2, state);

  std::stringstream garbage("not an archive");
  expect_error([&] { load(back, garbage); }, {"stream"});
}

}  // namespace
}  // namespace nabla::testing
