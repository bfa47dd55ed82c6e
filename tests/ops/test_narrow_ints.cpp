// int8 (kChar) and int16 (kShort) as integer dtypes like int32: creation from C++ values,
// item/accessor/data_ptr, wrapping arithmetic, promotion, random fills in range, and the
// limits-based checks LibTorch's own tests run over every integer dtype. Values are
// compared against LibTorch in tests/libtorch/test_narrow_ints_libtorch.cpp.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include <limits>

#include "test_util.h"

namespace nabla::testing {
namespace {

template <class T>
void check_dtype(ScalarType dt) {
  using L = std::numeric_limits<T>;
  EXPECT_EQ(elementSize(dt), sizeof(T));
  EXPECT_TRUE(isIntegralType(dt, false));
  EXPECT_FALSE(isFloatingType(dt));
  // Creation: factories, braced lists of T, full with the limits.
  EXPECT_EQ(empty({2, 3}, dt).scalar_type(), dt);
  EXPECT_EQ(zeros({2}, dt).sum().item<int64_t>(), 0);
  EXPECT_EQ(ones({4}, dt).sum().item<int64_t>(), 4);
  EXPECT_EQ(arange(-3, 3, dt).scalar_type(), dt);
  EXPECT_EQ(arange(-3, 3, dt)[0].item<T>(), T(-3));
  Tensor lim = tensor({L::lowest(), T(0), L::max()}, dt);
  EXPECT_EQ(lim.scalar_type(), dt);
  EXPECT_EQ(lim[0].item<T>(), L::lowest());
  EXPECT_EQ(lim[2].item<T>(), L::max());
  EXPECT_EQ(*lim.data_ptr<T>(), L::lowest());
  for (T v : {L::lowest(), T(0), T(1), T(42), L::min(), L::max()}) {
    Tensor x = full({3, 3}, v, TensorOptions().dtype(dt));
    EXPECT_EQ(x[1][2].item<T>(), v);
    EXPECT_FALSE(isinf(x).any().item<bool>());
    EXPECT_TRUE(isfinite(x).all().item<bool>());
    EXPECT_TRUE(allclose(x, x.clone()));
  }
  // accessor over a view.
  Tensor m = arange(6, dt).view({2, 3});
  const Tensor mt = m.t();
  auto acc = mt.accessor<T, 2>();
  EXPECT_EQ(acc[2][1], T(5));
  acc[0][1] = T(-7);
  EXPECT_EQ(m[1][0].item<int64_t>(), -7);
  // Overflow wraps, as LibTorch's integer arithmetic does.
  Tensor top = full({2}, L::max(), TensorOptions().dtype(dt));
  EXPECT_EQ((top + 1)[0].item<T>(), L::lowest());
  EXPECT_EQ((top + top).scalar_type(), dt);
  // Integer results keep the dtype; sums widen to int64, true division to float.
  EXPECT_EQ((m * 2).scalar_type(), dt);
  EXPECT_EQ(m.sum().scalar_type(), kLong);
  EXPECT_EQ(m.cumsum(0).scalar_type(), kLong);
  EXPECT_EQ(m.div(2).scalar_type(), kFloat);
  EXPECT_EQ(m.max().item<T>(), T(5));
  // Round trips through the other dtypes.
  for (ScalarType other : {kByte, kChar, kShort, kInt, kLong, kFloat, kDouble, kHalf})
    EXPECT_TRUE(arange(0, 5, dt).to(other).to(dt).equal(arange(0, 5, dt))) << other;
  EXPECT_EQ(values(arange(-1, 2, dt).to(kBool).to(dt)), (std::vector<double>{1, 0, 1}));
  // random_() covers [0, max]; randint stays in its range.
  manual_seed(1);
  Tensor r = empty({4000}, dt).random_();
  EXPECT_GE(r.min().item<int64_t>(), 0);
  EXPECT_LE(r.max().item<int64_t>(), int64_t{L::max()});
  EXPECT_GT(r.max().item<int64_t>(), int64_t{L::max()} * 9 / 10);
  Tensor ri = randint(-5, 5, {1000}, TensorOptions().dtype(dt));
  EXPECT_EQ(ri.scalar_type(), dt);
  EXPECT_EQ(ri.min().item<int64_t>(), -5);
  EXPECT_EQ(ri.max().item<int64_t>(), 4);
}

TEST(NarrowInts, Int8) { check_dtype<int8_t>(kChar); }
TEST(NarrowInts, Int16) { check_dtype<int16_t>(kShort); }

TEST(NarrowInts, ConversionsWrap) {
  Tensor wide = tensor({200, -129, 300, 65535, 32768});
  EXPECT_EQ(values(wide.to(kChar)), (std::vector<double>{-56, 127, 44, -1, 0}));
  EXPECT_EQ(values(wide.to(kShort)), (std::vector<double>{200, -129, 300, -1, -32768}));
  EXPECT_EQ(values(tensor({-1.5, 2.9, -127.9}).to(kChar)), (std::vector<double>{-1, 2, -127}));
  EXPECT_EQ(values(tensor({-1}).to(kChar).to(kByte)), (std::vector<double>{255}));
}

TEST(NarrowInts, Promotion) {
  EXPECT_EQ(promoteTypes(kByte, kChar), kShort);
  EXPECT_EQ(promoteTypes(kChar, kByte), kShort);
  EXPECT_EQ(promoteTypes(kByte, kShort), kShort);
  EXPECT_EQ(promoteTypes(kChar, kShort), kShort);
  EXPECT_EQ(promoteTypes(kShort, kInt), kInt);
  EXPECT_EQ(promoteTypes(kChar, kLong), kLong);
  EXPECT_EQ(promoteTypes(kBool, kChar), kChar);
  EXPECT_EQ(promoteTypes(kShort, kFloat), kFloat);
  EXPECT_EQ(promoteTypes(kChar, kHalf), kHalf);
  EXPECT_EQ(promoteTypes(kShort, kBFloat16), kBFloat16);
  Tensor u = tensor({250}).to(kByte), c = tensor({-100}).to(kChar);
  Tensor s = u + c;
  EXPECT_EQ(s.scalar_type(), kShort);
  EXPECT_EQ(s.item<int64_t>(), 150);
  // A 0-d int64 tensor or an int Scalar does not widen an int8 tensor.
  EXPECT_EQ((c + tensor(1000)).scalar_type(), kChar);
  EXPECT_EQ((c + 3).scalar_type(), kChar);
  EXPECT_EQ((c + 0.5).scalar_type(), kFloat);
}

TEST(NarrowInts, IndexWithZeroDimNarrowTensorIsAView) {
  Tensor a = randn({2, 3});
  for (ScalarType dt : {kChar, kShort}) {
    Tensor one = tensor(1).to(dt);
    EXPECT_EQ(a.index({one}).data_ptr(), a.index({1}).data_ptr()) << dt;
  }
}

TEST(NarrowInts, FloatingOnlyOpsRefuse) {
  Tensor x = arange(4, kChar);
  expect_error([&] { (void)x.clone().exp_(); }, {"exp"});
  expect_error([&] { (void)x.mean(); }, {"mean"});
  expect_error([&] { (void)max_pool2d(x.view({1, 1, 2, 2}), {2}); }, {"max_pool2d"});
}

}  // namespace
}  // namespace nabla::testing
