// AnyModule: calls through the type-erased forward, declared default arguments, and the
// errors of a call that does not fit.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

struct AnyScaleModule : nn::Module {
  double forward(int a, int b = 2, double c = 0.5) { return (a + b) * c; }

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, nn::AnyValue(2)}, {2, nn::AnyValue(0.5)})
};

struct AnyPlainModule : nn::Module {
  int forward(int a, float b) { return a + static_cast<int>(b); }
};

struct AnyOtherModule : nn::Module {
  Tensor forward(const Tensor& x) { return x; }
};

TEST(AnyModule, DeclaredDefaultsFillTheMissingArguments) {
  nn::AnyModule any(AnyScaleModule{});
  EXPECT_EQ(any.forward<double>(4), 3.0);
  EXPECT_EQ(any.forward<double>(4, 6), 5.0);
  EXPECT_EQ(any.forward<double>(4, 6, 2.0), 20.0);
  expect_error([&] { any.forward(); },
               {"AnyScaleModule's forward() method expects at least 1 argument(s) and at most 3",
                "received 0"});
  expect_error([&] { any.forward(1, 2, 3.0, 4); }, {"at most 3 argument(s)", "received 4"});
}

TEST(AnyModule, ACallThatDoesNotFitNamesTheArgument) {
  nn::AnyModule any(AnyPlainModule{});
  EXPECT_EQ(any.forward<int>(3, 4.0f), 7);
  expect_error([&] { any.forward(3, 4.0); },
               {"Expected argument #1 to be of type float", "received value of type double"});
  expect_error([&] { any.forward(3); },
               {"AnyPlainModule's forward() method expects 2 argument(s), but received 1",
                "NABLA_FORWARD_HAS_DEFAULT_ARGS"});
}

TEST(AnyModule, EmptyModulesAndWrongTypesAreErrors) {
  nn::AnyModule empty;
  EXPECT_TRUE(empty.is_empty());
  expect_error([&] { empty.get<AnyPlainModule>(); }, {"Cannot call get() on an empty AnyModule"});
  expect_error([&] { empty.ptr(); }, {"Cannot call ptr() on an empty AnyModule"});
  expect_error([&] { empty.type_info(); }, {"Cannot call type_info() on an empty AnyModule"});
  expect_error([&] { empty.forward<int>(5); }, {"Cannot call forward() on an empty AnyModule"});
  nn::AnyModule any(AnyPlainModule{});
  EXPECT_NE(any.ptr<AnyPlainModule>(), nullptr);
  expect_error([&] { any.ptr<AnyOtherModule>(); },
               {"Attempted to cast module of type", "AnyPlainModule", "AnyOtherModule"});
  expect_error([&] { any.get<AnyOtherModule>(); }, {"Attempted to cast module"});
}

TEST(AnyModule, RecurrentModulesTakeTheirStateAsOptional) {
  manual_seed(0);
  nn::AnyModule lstm(nn::LSTM(3, 4));
  Tensor x = randn({5, 2, 3});
  auto [y, state] =
      lstm.forward<std::tuple<Tensor, std::tuple<Tensor, Tensor>>>(x);  // state defaulted
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 2, 4}));
  nn::AnyModule gru(nn::GRU(3, 4));
  EXPECT_EQ(std::get<1>(gru.forward<std::tuple<Tensor, Tensor>>(x)).sizes(),
            IntArrayRef({1, 2, 4}));
}

}  // namespace
}  // namespace nabla::testing
