#include <cmath>
#include <cstdint>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;

TEST(Elementwise, ArithmeticAndBroadcasting) {
  Tensor a = arange(6, kFloat).view({2, 3});
  Tensor b = tensor({10.0, 20.0, 30.0});
  EXPECT_EQ(values(a + b), (std::vector<double>{10, 21, 32, 13, 24, 35}));
  EXPECT_EQ(values(a - b), (std::vector<double>{-10, -19, -28, -7, -16, -25}));
  EXPECT_EQ(values(a.add(b, 2)), (std::vector<double>{20, 41, 62, 23, 44, 65}));
  EXPECT_EQ(values(a * 2), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(1 - a), (std::vector<double>{1, 0, -1, -2, -3, -4}));
  EXPECT_EQ(values(a / 2), (std::vector<double>{0, 0.5, 1, 1.5, 2, 2.5}));
  EXPECT_EQ(values(6 / (a + 1)), values(tensor({6.0, 3.0, 2.0, 1.5, 1.2, 1.0})));
  Tensor col = tensor({{1.0}, {2.0}});
  EXPECT_EQ(shape(col * b), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(col * b), (std::vector<double>{10, 20, 30, 20, 40, 60}));
  // Non-contiguous operands.
  EXPECT_EQ(values(a.t() + a.t()), (std::vector<double>{0, 6, 2, 8, 4, 10}));
  EXPECT_EQ(values(-a.t()), (std::vector<double>{-0.0, -3, -1, -4, -2, -5}));
  // Empty and 0-d.
  EXPECT_EQ(shape(zeros({0, 3}) + b), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ((tensor(2.0) * tensor(3.0)).item<float>(), 6.0f);
  EXPECT_EQ((tensor(2.0) * tensor(3.0)).dim(), 0);
  expect_error([&] { a + ones({2}); }, {"add", "size of tensor a (3)", "size of tensor b (2)"});
}

TEST(Elementwise, LargeTensorsUseThreadsCorrectly) {
  Tensor x = arange(1 << 20, kDouble);
  Tensor y = x * 2 + 1;
  auto v = values(y);
  for (size_t i = 0; i < v.size(); i += 4099) ASSERT_EQ(v[i], 2.0 * i + 1);
  Tensor t = arange(1 << 20, kFloat).view({1024, 1024}).t();
  Tensor s = t + t;  // strided, parallel
  EXPECT_EQ(s[3][5].item<float>(), 2.0f * (5 * 1024 + 3));
}

TEST(Elementwise, TypePromotion) {
  Tensor i64 = tensor({1, 2, 3});
  Tensor i32 = tensor({1, 2, 3}, kInt);
  Tensor u8 = tensor({1, 2, 3}, kByte);
  Tensor b = tensor({true, false, true});
  Tensor f32 = tensor({1.0, 2.0, 3.0});
  Tensor f64 = tensor({1.0, 2.0, 3.0}, kDouble);
  EXPECT_EQ((i64 + i32).scalar_type(), kLong);
  EXPECT_EQ((u8 + i32).scalar_type(), kInt);
  EXPECT_EQ((u8 + b).scalar_type(), kByte);
  EXPECT_EQ((b + b).scalar_type(), kBool);
  EXPECT_EQ((i64 + f32).scalar_type(), kFloat);
  EXPECT_EQ((f32 + f64).scalar_type(), kDouble);
  // Scalars do not raise a tensor's dtype within a category...
  EXPECT_EQ((f32 + 1.5).scalar_type(), kFloat);
  EXPECT_EQ((i32 + 7).scalar_type(), kInt);
  EXPECT_EQ((u8 * 300).scalar_type(), kByte);
  // ...but do across categories.
  EXPECT_EQ((i64 + 1.5).scalar_type(), kFloat);
  EXPECT_EQ((b + 1).scalar_type(), kLong);
  // 0-d tensors behave like scalars against dimensioned tensors.
  EXPECT_EQ((f32 + tensor(1.0, kDouble)).scalar_type(), kFloat);
  EXPECT_EQ((i32 + tensor(1.0, kDouble)).scalar_type(), kDouble);
  EXPECT_EQ((tensor(1, kInt) + tensor(1)).scalar_type(), kLong);
  // True division of integers gives the default float.
  EXPECT_EQ((i64 / i64).scalar_type(), kFloat);
  EXPECT_EQ(values(tensor({7, -7}) / 2), (std::vector<double>{3.5, -3.5}));
  EXPECT_EQ((i64 == f32).scalar_type(), kBool);
}

TEST(Elementwise, InPlace) {
  Tensor x = ones({2, 2});
  uint32_t v0 = x._version();
  x.add_(1).mul_(3);
  EXPECT_EQ(values(x), std::vector<double>(4, 6.0));
  EXPECT_EQ(x._version(), v0 + 2);
  x += tensor({1.0, 2.0});
  EXPECT_EQ(values(x), (std::vector<double>{7, 8, 7, 8}));
  x.sub_(tensor({1.0, 2.0}), 2).div_(5);
  EXPECT_EQ(values(x), values(tensor({1.0, 0.8, 1.0, 0.8})));
  Tensor i = tensor({1, 2});
  i.mul_(2);
  EXPECT_EQ(values(i), (std::vector<double>{2, 4}));
  expect_error([&] { i.add_(0.5); }, {"add_", "Float", "Long"});
  expect_error([&] { i.div_(2); }, {"div_", "Float", "Long"});
  expect_error([&] { tensor({1.0, 2.0}).add_(ones({2, 2})); }, {"add_", "[2]", "[2, 2]"});
  Tensor f = tensor({1.0, 2.0});
  f.add_(tensor({1, 1}));  // int64 other into float: allowed
  EXPECT_EQ(values(f), (std::vector<double>{2, 3}));
  Tensor y = arange(4, kFloat).view({2, 2});
  y.add_(y.t());  // overlapping operand with another layout
  EXPECT_EQ(values(y), (std::vector<double>{0, 3, 3, 6}));
  Tensor z = tensor({-1.0, 4.0});
  z.abs_().sqrt_();
  EXPECT_EQ(values(z), (std::vector<double>{1, 2}));
  expect_error([] { tensor({1, 4}).sqrt_(); }, {"sqrt_", "Float", "Long"});
}

TEST(Elementwise, UnaryMath) {
  Tensor x = tensor({0.5, 1.0, 2.0}, kDouble);
  auto check = [&](const Tensor& got, double (*f)(double)) {
    auto v = values(got), xs = values(x);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], f(xs[i]), 1e-12);
  };
  check(x.exp(), [](double v) { return std::exp(v); });
  check(x.log(), [](double v) { return std::log(v); });
  check(x.sqrt(), [](double v) { return std::sqrt(v); });
  check(x.rsqrt(), [](double v) { return 1 / std::sqrt(v); });
  check(x.tanh(), [](double v) { return std::tanh(v); });
  check(x.sigmoid(), [](double v) { return 1 / (1 + std::exp(-v)); });
  check(x.log1p(), [](double v) { return std::log1p(v); });
  check(x.expm1(), [](double v) { return std::expm1(v); });
  check(x.sin(), [](double v) { return std::sin(v); });
  check(x.cos(), [](double v) { return std::cos(v); });
  check(x.erf(), [](double v) { return std::erf(v); });
  check(x.reciprocal(), [](double v) { return 1 / v; });
  check(x.pow(3), [](double v) { return v * v * v; });
  check(x.pow(-0.5), [](double v) { return std::pow(v, -0.5); });
  EXPECT_EQ(tensor({1, 4}).sqrt().scalar_type(), kFloat);  // ints promote
  EXPECT_EQ(values(tensor({-2, 3}).abs()), (std::vector<double>{2, 3}));
  EXPECT_EQ(tensor({-2, 3}).abs().scalar_type(), kLong);
  EXPECT_EQ(values(tensor({-1.5, 0.0, 2.5}).relu()), (std::vector<double>{0, 0, 2.5}));
  EXPECT_EQ(values(tensor({-1.5, 0.0, 2.5}).sign()), (std::vector<double>{-1, 0, 1}));
  EXPECT_EQ(values(tensor({0.5, 1.5, 2.5, -0.5}).round()), (std::vector<double>{0, 2, 2, -0}));
  EXPECT_EQ(values(tensor({-1.7, 1.7}).floor()), (std::vector<double>{-2, 1}));
  EXPECT_EQ(values(tensor({-1.7, 1.7}).trunc()), (std::vector<double>{-1, 1}));
  EXPECT_EQ(values(tensor({2, -3}).pow(2)), (std::vector<double>{4, 9}));
  EXPECT_EQ(tensor({2, -3}).pow(2).scalar_type(), kLong);
  EXPECT_EQ(values(tensor({2.0, 3.0}).pow(tensor({3.0, 2.0}))), (std::vector<double>{8, 9}));
  expect_error([] { tensor({true}).neg(); }, {"neg", "bool"});
  expect_error([] { tensor({2, 3}).pow(-1); }, {"pow", "negative"});
}

TEST(Elementwise, ClampMaximumRemainder) {
  Tensor x = tensor({-2.0, 0.5, 3.0, std::nan("")});
  auto c = values(x.clamp(-1, 1));
  EXPECT_EQ(c[0], -1);
  EXPECT_EQ(c[1], 0.5);
  EXPECT_EQ(c[2], 1);
  EXPECT_TRUE(std::isnan(c[3]));
  EXPECT_EQ(values(x.clamp_min(0)).at(0), 0);
  EXPECT_EQ(values(x.clamp_max(0)).at(2), 0);
  EXPECT_EQ(tensor({1, 5}).clamp(0, 3).scalar_type(), kLong);
  EXPECT_EQ(tensor({1, 5}).clamp(0.5, 3).scalar_type(), kFloat);
  expect_error([&] { x.clamp(); }, {"clamp", "min", "max"});
  Tensor a = tensor({1.0, 5.0}), b = tensor({3.0, 2.0});
  EXPECT_EQ(values(a.maximum(b)), (std::vector<double>{3, 5}));
  EXPECT_EQ(values(a.minimum(b)), (std::vector<double>{1, 2}));
  EXPECT_TRUE(std::isnan(values(tensor({std::nan("")}).maximum(tensor({1.0})))[0]));
  EXPECT_EQ(values(tensor({5, -5, 5, -5}).remainder(tensor({3, 3, -3, -3}))),
            (std::vector<double>{2, 1, -1, -2}));
  EXPECT_EQ(values(tensor({5.5, -5.5}).remainder(2)), (std::vector<double>{1.5, 0.5}));
  expect_error([] { tensor({5, 3}).remainder(tensor({1, 0})); }, {"remainder", "ZeroDivision"});
  // fmod keeps the dividend's sign; integer zero divisors raise too.
  EXPECT_EQ(values(tensor({5, -5, 5, -5}).fmod(tensor({3, 3, -3, -3}))),
            (std::vector<double>{2, -2, 2, -2}));
  EXPECT_EQ(values(tensor({5.5, -5.5}).fmod(2)), (std::vector<double>{1.5, -1.5}));
  expect_error([] { tensor({5, 3}).fmod(tensor({1, 0})); }, {"fmod", "ZeroDivision"});
  // The most negative integer by -1: 0, not a SIGFPE from the division instruction.
  for (ScalarType t : {kLong, kInt}) {
    Tensor lowest = full({2}, t == kLong ? INT64_MIN : INT32_MIN, TensorOptions().dtype(t));
    EXPECT_EQ(values(lowest.remainder(-1)), (std::vector<double>{0, 0})) << t;
    EXPECT_EQ(values(lowest.fmod(-1)), (std::vector<double>{0, 0})) << t;
  }
}

TEST(Elementwise, ComparisonsLogicWhere) {
  Tensor a = tensor({1.0, 2.0, 3.0});
  Tensor lt = a < 2.5;
  EXPECT_EQ(lt.scalar_type(), kBool);
  EXPECT_EQ(values(lt), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(a >= tensor({1.0, 3.0, 3.0})), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(a == 2), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values(a != 2), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(!(a > 1)), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(values((a > 1) & (a < 3)), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values((a < 2) | (a > 2)), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values((a < 2) ^ (a < 3)), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values(tensor({6, 3}) & tensor({3, 1})), (std::vector<double>{2, 1}));
  EXPECT_EQ(values(a.logical_and(a - 2)), (std::vector<double>{1, 0, 1}));
  expect_error([&] { a& a; }, {"bitwise"});
  EXPECT_EQ(values(a.where(a > 1.5, tensor({-1.0}))), (std::vector<double>{-1, 2, 3}));
  expect_error([&] { a.where(a, a); }, {"where", "bool"});
  Tensor n = tensor({1.0, std::nan(""), INFINITY, -INFINITY});
  EXPECT_EQ(values(n.isnan()), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(values(n.isinf()), (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(values(n.isfinite()), (std::vector<double>{1, 0, 0, 0}));
}

TEST(Elementwise, DeviceMismatchIsAnError) {
  // Only one device exists in this build; the check is exercised through the CUDA guard.
  expect_error([] { zeros({2}, device(kCUDA)); }, {"cuda"});
}
