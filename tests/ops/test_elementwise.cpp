// Elementwise ops, what the op table (tests/conformance/table_elementwise.cpp) cannot say:
// sizes far above its samples, version counters, an operand overlapping the output,
// integer edges outside its ±20 samples, and error messages beyond the op's name.
#include <cmath>
#include <cstdint>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::values;

// A million elements, contiguous and transposed, across the threads.
TEST(Elementwise, LargeTensorsUseThreadsCorrectly) {
  Tensor x = arange(1 << 20, kDouble);
  Tensor y = x * 2 + 1;
  auto v = values(y);
  for (size_t i = 0; i < v.size(); i += 4099) ASSERT_EQ(v[i], 2.0 * i + 1);
  Tensor t = arange(1 << 20, kFloat).view({1024, 1024}).t();
  Tensor s = t + t;  // strided, parallel
  EXPECT_EQ(s[3][5].item<float>(), 2.0f * (5 * 1024 + 3));
}

TEST(Elementwise, InPlaceBumpsVersionAndReadsOverlappingOperand) {
  Tensor x = ones({2, 2});
  uint32_t v0 = x._version();
  x.add_(1).mul_(3);
  EXPECT_EQ(values(x), std::vector<double>(4, 6.0));
  EXPECT_EQ(x._version(), v0 + 2);
  Tensor y = arange(4, kFloat).view({2, 2});
  y.add_(y.t());  // overlapping operand with another layout (LibTorch refuses it)
  EXPECT_EQ(values(y), (std::vector<double>{0, 3, 3, 6}));
}

// The most negative integer by -1: 0, not a SIGFPE from the division instruction.
TEST(Elementwise, LowestIntegerByMinusOne) {
  for (ScalarType t : {kLong, kInt}) {
    Tensor lowest = full({2}, t == kLong ? INT64_MIN : INT32_MIN, TensorOptions().dtype(t));
    EXPECT_EQ(values(lowest.remainder(-1)), (std::vector<double>{0, 0})) << t;
    EXPECT_EQ(values(lowest.fmod(-1)), (std::vector<double>{0, 0})) << t;
  }
}

TEST(Elementwise, ErrorMessages) {
  Tensor a = arange(6, kFloat).view({2, 3});
  expect_error([&] { a + ones({2}); }, {"add", "size of tensor a (3)", "size of tensor b (2)"});
  Tensor i = tensor({1, 2});
  expect_error([&] { i.add_(0.5); }, {"add_", "Float", "Long"});
  expect_error([&] { i.div_(2); }, {"div_", "Float", "Long"});
  expect_error([&] { tensor({1.0, 2.0}).add_(ones({2, 2})); }, {"add_", "[2]", "[2, 2]"});
  expect_error([] { tensor({1, 4}).sqrt_(); }, {"sqrt_", "Float", "Long"});
  expect_error([] { tensor({true}).neg(); }, {"neg", "bool"});
  expect_error([] { tensor({2, 3}).pow(-1); }, {"pow", "negative"});
  expect_error([&] { a.clamp(); }, {"clamp", "min", "max"});
  expect_error([] { tensor({5, 3}).remainder(tensor({1, 0})); }, {"remainder", "ZeroDivision"});
  expect_error([] { tensor({5, 3}).fmod(tensor({1, 0})); }, {"fmod", "ZeroDivision"});
  expect_error([&] { a.where(a, a); }, {"where", "bool"});
}

// Only one device exists in this build; the check is exercised through the CUDA guard.
TEST(Elementwise, DeviceMismatchIsAnError) {
  expect_error([] { zeros({2}, device(kCUDA)); }, {"cuda"});
}
