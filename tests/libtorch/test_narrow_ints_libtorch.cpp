// int8 (kChar) and int16 (kShort) tensors against LibTorch: conversions both ways, the
// elementwise, comparison and bitwise ops (wrapping on overflow as LibTorch does),
// reductions and their result dtypes, indexing, and the result of every op being the same
// dtype. Each case is one generic lambda run on both libraries; where LibTorch throws,
// nabla must throw too.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include <nabla/nabla.h>

namespace {

at::ScalarType to_at(nabla::ScalarType t) {
  switch (t) {
    case nabla::kBool:
      return at::kBool;
    case nabla::kByte:
      return at::kByte;
    case nabla::kChar:
      return at::kChar;
    case nabla::kShort:
      return at::kShort;
    case nabla::kInt:
      return at::kInt;
    case nabla::kLong:
      return at::kLong;
    case nabla::kFloat:
      return at::kFloat;
    case nabla::kDouble:
      return at::kDouble;
    default:
      ADD_FAILURE() << "no LibTorch twin for " << t;
      return at::kFloat;
  }
}

// Same dtype, same sizes, same values (NaN matching NaN).
void expect_same(const nabla::Tensor& got, const at::Tensor& want, const std::string& what) {
  ASSERT_EQ(to_at(got.scalar_type()), want.scalar_type()) << what;
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec()) << what;
  const at::Tensor w = want.contiguous().to(at::kDouble).contiguous();
  const nabla::Tensor g = got.contiguous().to(nabla::kDouble).contiguous();
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double a = g.data_ptr<double>()[i], b = w.data_ptr<double>()[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    ASSERT_EQ(a, b) << what << " element " << i;
  }
}

// The values, in dtype `t`, on both sides (through int64, which both convert alike).
struct Pair {
  nabla::Tensor n;
  at::Tensor t;
};
Pair make(const std::vector<int64_t>& v, nabla::ScalarType dt) {
  return {nabla::tensor(v).to(dt), torch::tensor(v).to(to_at(dt))};
}

// Runs `f` on both libraries' operands and compares; a throw must be matched.
template <class F>
void check(const std::string& what, const std::vector<Pair>& in, F f) {
  at::Tensor want;
  bool torch_threw = false;
  try {
    if (in.size() == 1)
      want = f(in[0].t, in[0].t);
    else
      want = f(in[0].t, in[1].t);
  } catch (const std::exception&) {
    torch_threw = true;
  }
  try {
    nabla::Tensor got = in.size() == 1 ? f(in[0].n, in[0].n) : f(in[0].n, in[1].n);
    ASSERT_FALSE(torch_threw) << what << ": LibTorch throws, nabla gives " << got.scalar_type();
    expect_same(got, want, what);
  } catch (const nabla::Error& e) {
    ASSERT_TRUE(torch_threw) << what << ": nabla throws (" << e.what() << "), LibTorch gives "
                             << want.scalar_type();
  }
}

// Extremes, signs and small values; b has no zero (it divides).
std::vector<int64_t> values_a(nabla::ScalarType dt) {
  if (dt == nabla::kChar) return {-128, -100, -7, -1, 0, 1, 3, 100, 127};
  return {-32768, -20000, -7, -1, 0, 1, 3, 20000, 32767};
}
std::vector<int64_t> values_b(nabla::ScalarType dt) {
  if (dt == nabla::kChar) return {3, -2, 5, 127, -128, 7, -1, 2, 100};
  return {3, -2, 5, 32767, -32768, 7, -1, 2, 20000};
}

class NarrowInts : public ::testing::TestWithParam<nabla::ScalarType> {
 protected:
  nabla::ScalarType dt() const { return GetParam(); }
  std::string name(const char* op) const {
    std::ostringstream os;
    os << op << " on " << dt();
    return os.str();
  }
};

TEST_P(NarrowInts, Elementwise) {
  const std::vector<Pair> ab = {make(values_a(dt()), dt()), make(values_b(dt()), dt())};
  // clang-format off
  check(name("add"), ab, [](const auto& a, const auto& b) { return a + b; });
  check(name("sub"), ab, [](const auto& a, const auto& b) { return a - b; });
  check(name("mul"), ab, [](const auto& a, const auto& b) { return a * b; });
  check(name("add alpha"), ab, [](const auto& a, const auto& b) { return a.add(b, 3); });
  check(name("div"), ab, [](const auto& a, const auto& b) { return a.div(b); });
  check(name("floor_divide"), ab, [](const auto& a, const auto& b) { return a.floor_divide(b); });
  check(name("remainder"), ab, [](const auto& a, const auto& b) { return a.remainder(b); });
  check(name("fmod"), ab, [](const auto& a, const auto& b) { return a.fmod(b); });
  check(name("maximum"), ab, [](const auto& a, const auto& b) { return a.maximum(b); });
  check(name("minimum"), ab, [](const auto& a, const auto& b) { return a.minimum(b); });
  check(name("bitwise_and"), ab, [](const auto& a, const auto& b) { return a.bitwise_and(b); });
  check(name("bitwise_or"), ab, [](const auto& a, const auto& b) { return a.bitwise_or(b); });
  check(name("bitwise_xor"), ab, [](const auto& a, const auto& b) { return a.bitwise_xor(b); });
  check(name("eq"), ab, [](const auto& a, const auto& b) { return a.eq(b); });
  check(name("lt"), ab, [](const auto& a, const auto& b) { return a.lt(b); });
  check(name("ge"), ab, [](const auto& a, const auto& b) { return a.ge(b); });
  check(name("where"), ab, [](const auto& a, const auto& b) { return a.where(a.gt(0), b); });
  check(name("neg"), ab, [](const auto& a, const auto&) { return a.neg(); });
  check(name("abs"), ab, [](const auto& a, const auto&) { return a.abs(); });
  check(name("sign"), ab, [](const auto& a, const auto&) { return a.sign(); });
  check(name("bitwise_not"), ab, [](const auto& a, const auto&) { return a.bitwise_not(); });
  check(name("pow 2"), ab, [](const auto& a, const auto&) { return a.pow(2); });
  check(name("add 3"), ab, [](const auto& a, const auto&) { return a.add(3); });
  check(name("mul 1000 (wraps)"), ab, [](const auto& a, const auto&) { return a.mul(1000); });
  check(name("mul 2.5"), ab, [](const auto& a, const auto&) { return a.mul(2.5); });
  check(name("clamp"), ab, [](const auto& a, const auto&) { return a.clamp(-5, 50); });
  check(name("sqrt"), ab, [](const auto& a, const auto&) { return a.abs().sqrt(); });
  check(name("isinf"), ab, [](const auto& a, const auto&) { return a.isinf(); });
  check(name("isfinite"), ab, [](const auto& a, const auto&) { return a.isfinite(); });
  check(name("isnan"), ab, [](const auto& a, const auto&) { return a.isnan(); });
  check(name("exp_ on int"), ab, [](const auto& a, const auto&) { return a.clone().exp_(); });
  // clang-format on
}

TEST_P(NarrowInts, PromotionWithOtherIntegers) {
  const Pair a = make(values_a(dt()), dt());
  for (nabla::ScalarType other : {nabla::kBool, nabla::kByte, nabla::kChar, nabla::kShort,
                                  nabla::kInt, nabla::kLong, nabla::kFloat, nabla::kDouble}) {
    const std::vector<Pair> ab = {a, make({1, 0, 2, 1, 3, 1, 0, 2, 1}, other)};
    std::ostringstream os;
    os << dt() << " with " << other;
    check("add " + os.str(), ab, [](const auto& x, const auto& y) { return x + y; });
    check("mul " + os.str(), ab, [](const auto& x, const auto& y) { return x * y; });
    check("0-d add " + os.str(), ab, [](const auto& x, const auto& y) { return x + y[2]; });
  }
}

TEST_P(NarrowInts, Conversions) {
  // Into the narrow dtype from floats (truncated, out-of-range values wrapped as LibTorch
  // does) and from wider integers (wrapped), and back out to every dtype.
  const std::vector<double> f = {-300.75, -128.5, -1.5, -0.25, 0, 1.9, 127.4, 200, 40000.5};
  const nabla::Tensor nf = nabla::tensor(f, nabla::kDouble);
  const at::Tensor tf = torch::tensor(f, at::kDouble);
  for (nabla::ScalarType from : {nabla::kFloat, nabla::kDouble})
    expect_same(nf.to(from).to(dt()), tf.to(to_at(from)).to(to_at(dt())),
                name("conversion from floating"));
  const Pair wide =
      make({-70000, -40000, -129, -128, 255, 256, 32768, 65535, 1 << 20}, nabla::kLong);
  for (nabla::ScalarType from : {nabla::kLong, nabla::kInt})
    expect_same(wide.n.to(from).to(dt()), wide.t.to(to_at(from)).to(to_at(dt())),
                name("conversion from wider integers"));
  const Pair a = make(values_a(dt()), dt());
  for (nabla::ScalarType to : {nabla::kBool, nabla::kByte, nabla::kChar, nabla::kShort, nabla::kInt,
                               nabla::kLong, nabla::kFloat, nabla::kDouble})
    expect_same(a.n.to(to), a.t.to(to_at(to)), name("conversion out"));
  // A non-contiguous source.
  expect_same(a.n.view({3, 3}).t().to(nabla::kLong), a.t.view({3, 3}).t().to(at::kLong),
              name("strided conversion"));
}

TEST_P(NarrowInts, Reductions) {
  const std::vector<Pair> a = {make(values_a(dt()), dt())};
  // clang-format off
  check(name("sum"), a, [](const auto& x, const auto&) { return x.sum(); });
  check(name("sum dim"), a, [](const auto& x, const auto&) { return x.view({3, 3}).sum(1); });
  check(name("prod"), a, [](const auto& x, const auto&) { return x.view({3, 3}).prod(0); });
  check(name("max"), a, [](const auto& x, const auto&) { return x.max(); });
  check(name("min"), a, [](const auto& x, const auto&) { return x.min(); });
  check(name("amax"), a, [](const auto& x, const auto&) { return x.view({3, 3}).amax(1); });
  check(name("argmax"), a, [](const auto& x, const auto&) { return x.argmax(); });
  check(name("argmin"), a, [](const auto& x, const auto&) { return x.argmin(); });
  check(name("cumsum"), a, [](const auto& x, const auto&) { return x.cumsum(0); });
  check(name("sort"), a, [](const auto& x, const auto&) { return std::get<0>(x.sort()); });
  check(name("sort indices"), a, [](const auto& x, const auto&) { return std::get<1>(x.sort()); });
  check(name("topk"), a, [](const auto& x, const auto&) { return std::get<0>(x.topk(3)); });
  check(name("mean"), a, [](const auto& x, const auto&) { return x.mean(); });
  check(name("all"), a, [](const auto& x, const auto&) { return x.all(); });
  check(name("any"), a, [](const auto& x, const auto&) { return x.any(); });
  check(name("count_nonzero"), a, [](const auto& x, const auto&) { return x.count_nonzero(); });
  // clang-format on
}

TEST_P(NarrowInts, IndexingAndShapes) {
  const std::vector<Pair> a = {make(values_a(dt()), dt())};
  // clang-format off
  // argmax's dtype is int64 on both sides: the index dtype without naming either library.
  check(name("index_select"), a, [](const auto& x, const auto&) {
    return x.index_select(0, x.abs().remainder(9).to(x.argmax().scalar_type())); });
  check(name("gather"), a, [](const auto& x, const auto&) {
    const auto i = x.view({3, 3}).abs().remainder(3).to(x.argmax().scalar_type());
    return x.view({3, 3}).gather(1, i); });
  check(name("masked_fill"), a, [](const auto& x, const auto&) { return x.masked_fill(x.lt(0), 9); });
  check(name("flip"), a, [](const auto& x, const auto&) { return x.flip({0}); });
  check(name("repeat"), a, [](const auto& x, const auto&) { return x.repeat({2}); });
  check(name("nonzero"), a, [](const auto& x, const auto&) { return x.nonzero(); });
  check(name("matmul"), a, [](const auto& x, const auto&) {
    return x.view({3, 3}).remainder(5).matmul(x.view({3, 3}).remainder(3)); });
  // clang-format on
  // A 0-d index of this dtype selects: a view, not a copy.
  nabla::Tensor m = nabla::randn({2, 3});
  nabla::Tensor one = nabla::tensor(1).to(dt());
  EXPECT_EQ(m.index({one}).data_ptr(), m.index({1}).data_ptr());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, NarrowInts, ::testing::Values(nabla::kChar, nabla::kShort),
                         [](const auto& info) {
                           return std::string(nabla::dtype_name(info.param));
                         });

}  // namespace
