// ops::call's checks of names, inputs and attributes: what the op table cannot say (it
// calls every registered op by name with valid arguments; tests/conformance). Each bad
// call must raise a nabla::Error whose message names the op and what was wrong.
#include <gtest/gtest.h>

#include <nabla/nabla.h>
#include <nabla/ops/registry.h>

#include <algorithm>
#include <string>

#include "test_util.h"

namespace {

using nabla::Tensor;
using nabla::testing::rnd;
namespace ops = nabla::ops;

// The message of the nabla::Error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const nabla::Error& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& message, std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(message.empty()) << "no nabla::Error";
  for (const char* f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message;
}

TEST(Registry, UnknownOpIsNamed) {
  Tensor x = rnd({3});
  expect_error(error_of([&] { ops::call("tanhh", {x}); }), {"no op named 'tanhh'"});
  expect_error(error_of([&] { ops::schema("conv9d"); }), {"conv9d"});
}

TEST(Registry, WrongInputCount) {
  Tensor x = rnd({3});
  expect_error(error_of([&] { ops::call("tanh", {x, x}); }), {"tanh", "expected 1", "got 2"});
  expect_error(error_of([&] { ops::call("mm", {x}); }), {"mm", "expected 2", "got 1"});
  // An op of several forms (where: other a tensor or a number, or self a number) lists them.
  expect_error(error_of([&] {
                 ops::call("where", {x, x});
               }),
               {"where", "no form of the op takes 2 inputs", "2 inputs; attributes other (double)",
                "2 inputs; attributes self (double)"});
  expect_error(error_of([&] { ops::call("add", {}); }), {"add", "expected 1 to 2", "got 0"});
}

TEST(Registry, AttributeChecks) {
  Tensor x = rnd({3}), y = rnd({3});
  expect_error(error_of([&] {
                 ops::call("tanh", {x}, {{"alpha", 2}});
               }),
               {"tanh", "unknown attribute 'alpha'", "none"});
  expect_error(error_of([&] {
                 ops::call("add", {x, y}, {{"alfa", 2}});
               }),
               {"add", "unknown attribute 'alfa'", "alpha (double)"});
  expect_error(error_of([&] {
                 ops::call("gelu", {x}, {{"approximate", 1.0}});
               }),
               {"gelu", "'approximate' must be string, got double"});
  expect_error(error_of([&] {
                 ops::call("add", {x, y}, {{"alpha", 2}, {"alpha", 3}});
               }),
               {"add", "'alpha' given twice"});
  // Operand given twice, or missing, for the ops that take a Scalar as an attribute.
  // Each form is listed with its inputs and attributes.
  expect_error(error_of([&] {
                 ops::call("mul", {x, y}, {{"other", 2.0}});
               }),
               {"mul: no form of the op takes 2 inputs and the attributes given (other)",
                "\n  2 inputs; attributes none", "\n  1 input; attributes other (double)"});
  expect_error(error_of([&] { ops::call("mul", {x}); }),
               {"mul: no form of the op takes 1 input and the attributes given (none)"});
  expect_error(
      error_of([&] { ops::call("pow", {x}); }),
      {"pow", "1 input; attributes exponent (double)", "1 input; attributes self (double)"});
}

TEST(Registry, AttributeOfTwoTypes) {
  // conv2d's padding is an int list or a string, as in LibTorch's two overloads.
  Tensor x = rnd({1, 2, 5, 5}), w = rnd({3, 2, 3, 3});
  EXPECT_TRUE(ops::call("conv2d", {x, w}, {{"padding", std::string("same")}})[0].equal(
      conv2d(x, w, {}, 1, "same")));
  EXPECT_TRUE(ops::call("conv2d", {x, w}, {{"padding", std::vector<int64_t>{1}}})[0].equal(
      conv2d(x, w, {}, 1, 1)));
  expect_error(error_of([&] {
                 ops::call("conv2d", {x, w}, {{"padding", 1.5}});
               }),
               {"conv2d", "'padding' must be int list or string, got double"});
  expect_error(error_of([&] {
                 ops::call("conv2d", {x, w}, {{"padding", std::string("full")}});
               }),
               {"conv2d", "full"});
}

TEST(Registry, IntAttributeKeepsIntegerSemantics) {
  // An int literal is an Int attribute; a Double attribute accepts it and keeps it
  // integral, so add's alpha works on int64 tensors as the direct call does.
  Tensor a = nabla::arange(5), b = nabla::arange(5);
  Tensor by_name = ops::call("add", {a, b}, {{"alpha", 3}})[0];
  EXPECT_EQ(by_name.scalar_type(), nabla::kLong);
  EXPECT_TRUE(by_name.equal(a.add(b, 3)));
  // A floating alpha on int64 is LibTorch's error, by name as directly.
  expect_error(error_of([&] {
                 ops::call("add", {a, b}, {{"alpha", 0.5}});
               }),
               {"alpha must not be a floating point number"});
}

TEST(Registry, SchemasAreSortedAndUnique) {
  auto all = ops::all_schemas();
  ASSERT_FALSE(all.empty());
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1]->name, all[i]->name);
  // schema(name) finds the listed schema of that name, whose fields say the op's signature.
  for (const char* name : {"tanh", "add", "where", "cat"}) {
    const ops::OpSchema& s = ops::schema(name);
    EXPECT_EQ(s.name, name);
    EXPECT_NE(std::find(all.begin(), all.end(), &s), all.end()) << name;
  }
  EXPECT_EQ(ops::schema("tanh").min_inputs, 1);
  EXPECT_EQ(ops::schema("tanh").max_inputs, 1);
  EXPECT_EQ(ops::schema("where").max_inputs, 3);
  EXPECT_EQ(ops::schema("where").overloads.size(), 3u);
  EXPECT_EQ(ops::schema("cat").max_inputs, -1);  // any number of inputs
}

}  // namespace
