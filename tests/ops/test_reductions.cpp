#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;
using V = std::vector<double>;
using S = std::vector<int64_t>;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

// Reference sum over dim `d` of a 3-d tensor, in double.
V ref_sum3(const Tensor& x, int d) {
  Tensor c = x.to(kDouble).contiguous();
  auto a = c.accessor<double, 3>();
  int64_t n0 = x.size(0), n1 = x.size(1), n2 = x.size(2);
  V out;
  if (d == 0)
    for (int64_t j = 0; j < n1; ++j)
      for (int64_t k = 0; k < n2; ++k) {
        double s = 0;
        for (int64_t i = 0; i < n0; ++i) s += a[i][j][k];
        out.push_back(s);
      }
  if (d == 1)
    for (int64_t i = 0; i < n0; ++i)
      for (int64_t k = 0; k < n2; ++k) {
        double s = 0;
        for (int64_t j = 0; j < n1; ++j) s += a[i][j][k];
        out.push_back(s);
      }
  if (d == 2)
    for (int64_t i = 0; i < n0; ++i)
      for (int64_t j = 0; j < n1; ++j) {
        double s = 0;
        for (int64_t k = 0; k < n2; ++k) s += a[i][j][k];
        out.push_back(s);
      }
  return out;
}

void expect_near_all(const V& got, const V& want, double rtol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rtol * (1 + std::abs(want[i]))) << "at " << i;
}

bool is_nan(const Tensor& t) { return std::isnan(t.item<double>()); }
}  // namespace

TEST(Reductions, SumDimsKeepdimAndDtypes) {
  Tensor a = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(a.sum().item<float>(), 15.0f);
  EXPECT_EQ(a.sum().dim(), 0);
  EXPECT_EQ(values(a.sum(0)), (V{3, 5, 7}));
  EXPECT_EQ(values(a.sum(1)), (V{3, 12}));
  EXPECT_EQ(values(a.sum(-1)), (V{3, 12}));
  EXPECT_EQ(shape(a.sum(1, true)), (S{2, 1}));
  EXPECT_EQ(shape(a.sum({0, 1}, true)), (S{1, 1}));
  EXPECT_EQ(a.sum({0, 1}).item<float>(), 15.0f);
  EXPECT_EQ(a.sum(IntArrayRef{}).item<float>(), 15.0f);  // empty dim list = every dim
  EXPECT_EQ(sum(a, {1}, true).sizes(), a.sum(1, true).sizes());
  // int and bool sum to int64; dtype converts first.
  EXPECT_EQ(tensor({1, 2, 3}, kInt).sum().scalar_type(), kLong);
  EXPECT_EQ(tensor({true, false, true}).sum().scalar_type(), kLong);
  EXPECT_EQ(tensor({true, false, true}).sum().item<int64_t>(), 2);
  EXPECT_EQ(tensor({200, 100}, kByte).sum().item<int64_t>(), 300);
  EXPECT_EQ(a.sum(kDouble).scalar_type(), kDouble);
  EXPECT_EQ(tensor({1.5, 2.5}).sum(kInt).item<int64_t>(), 3);
  EXPECT_EQ(tensor({1.5, 2.5}).sum(kInt).scalar_type(), kInt);
  // 0-d and empty.
  Tensor s = tensor(5.0);
  EXPECT_EQ(s.sum().item<float>(), 5.0f);
  EXPECT_EQ(s.sum(0).item<float>(), 5.0f);
  EXPECT_EQ(s.sum(-1, true).dim(), 0);
  EXPECT_EQ(zeros({0}).sum().item<float>(), 0.0f);
  EXPECT_EQ(values(zeros({0, 3}).sum(0)), (V{0, 0, 0}));
  EXPECT_EQ(shape(zeros({0, 3}).sum(1)), (S{0}));
  EXPECT_EQ(shape(zeros({2, 0, 3}).sum(1, true)), (S{2, 1, 3}));
  // Errors name the op.
  expect_error([&] { a.sum(2); }, {"sum", "out of range", "2"});
  expect_error([&] { a.sum({0, -2}); }, {"sum", "dim 0 appears multiple times"});
  expect_error([&] { s.sum({0, 0}); }, {"sum", "multiple times"});
}

TEST(Reductions, NonContiguousInputs) {
  Tensor x = arange(24, kFloat).view({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});  // [4, 2, 3], no stride 1 innermost
  for (int d = 0; d < 3; ++d) expect_near_all(values(p.sum(d)), ref_sum3(p, d), 0);
  Tensor sl = x.slice(2, 0, 4, 2);  // [2, 3, 2] with step 2
  for (int d = 0; d < 3; ++d) expect_near_all(values(sl.sum(d)), ref_sum3(sl, d), 0);
  EXPECT_EQ(values(sl.sum({0, 2})), values(sl.contiguous().sum({0, 2})));
  // Expanded (stride 0) input.
  Tensor e = tensor({1.0, 2.0, 3.0}).expand({4, 3});
  EXPECT_EQ(values(e.sum(0)), (V{4, 8, 12}));
  EXPECT_EQ(values(e.sum(1)), (V{6, 6, 6, 6}));
  EXPECT_EQ(values(e.amax(0)), (V{1, 2, 3}));
  Tensor t = arange(6, kFloat).view({2, 3}).t();
  EXPECT_EQ(values(t.sum(0)), (V{3, 12}));
  EXPECT_EQ(values(t.sum(1)), (V{3, 5, 7}));
  EXPECT_EQ(values(std::get<1>(t.max(1))), (V{1, 1, 1}));
  EXPECT_EQ(values(t.argmax(0)), (V{2, 2}));
  EXPECT_EQ(values(t.cumsum(0)), (V{0, 3, 1, 7, 3, 12}));
  EXPECT_EQ(values(std::get<0>(t.sort(0, true))), (V{2, 5, 1, 4, 0, 3}));
}

TEST(Reductions, LargeSumsAreAccurateAndThreadIndependent) {
  Tensor x = full({1000000}, 0.1, kFloat);
  double want = 1000000 * static_cast<double>(0.1f);
  EXPECT_NEAR(x.sum().item<double>(), want, want * 1e-6);
  EXPECT_NEAR(x.mean().item<double>(), static_cast<double>(0.1f), 1e-7);
  // Each layout of the same data, with 1 and 2 threads, gives the same numbers.
  manual_seed(0);
  Tensor r = rand({64, 128, 96}, kFloat);
  for (int d = 0; d < 3; ++d) {
    V want_d = ref_sum3(r, d);
    set_num_threads(1);
    V one = values(r.sum(d));
    set_num_threads(2);
    V two = values(r.sum(d));
    EXPECT_EQ(one, two) << "dim " << d;
    expect_near_all(two, want_d, 1e-6);
  }
  set_num_threads(1);
  double full1 = r.sum().item<double>();
  set_num_threads(2);
  EXPECT_EQ(r.sum().item<double>(), full1);
  EXPECT_NEAR(full1, r.to(kDouble).sum().item<double>(), 1e-6 * full1);
  // Few outputs over a long reduced range (the split path), inner and outer layouts.
  Tensor tall = rand({200000, 3}, kFloat);
  expect_near_all(values(tall.sum(0)), values(tall.to(kDouble).sum(0)), 1e-6);
  expect_near_all(values(tall.t().sum(1)), values(tall.to(kDouble).sum(0)), 1e-6);
  expect_near_all(values(tall.amax(0)), values(tall.to(kDouble).amax(0)), 0);
  Tensor wide = rand({3, 200000}, kDouble) * 0.01 + 0.995;
  expect_near_all(values(wide.prod(1).log()), values(wide.log().sum(1)), 1e-9);
}

TEST(Reductions, OuterDimSumBiasGradientShape) {
  Tensor g = arange(128 * 256, kFloat).view({128, 256});
  Tensor s = g.sum(0);
  ASSERT_EQ(shape(s), (S{256}));
  auto v = values(s);
  for (int j = 0; j < 256; ++j) ASSERT_EQ(v[j], 256.0 * 127 * 128 / 2 + 128.0 * j);
  Tensor i = arange(128 * 256).view({128, 256});
  EXPECT_EQ(values(i.sum(0)), values(s));
}

TEST(Reductions, MeanAndProd) {
  Tensor a = arange(6, kDouble).view({2, 3});
  EXPECT_EQ(a.mean().item<double>(), 2.5);
  EXPECT_EQ(values(a.mean(0)), (V{1.5, 2.5, 3.5}));
  EXPECT_EQ(values(mean(a, {1}, true)), (V{1, 4}));
  EXPECT_EQ(tensor({1, 2}).mean(kFloat).item<float>(), 1.5f);
  EXPECT_TRUE(is_nan(zeros({0}).mean()));
  expect_error([] { tensor({1, 2}).mean(); }, {"mean", "floating point", "Long"});
  expect_error([] { ones({2}).mean(kLong); }, {"mean", "Optional dtype"});
  EXPECT_EQ(values((a + 1).prod(1)), (V{6, 120}));
  EXPECT_EQ((a + 1).prod().item<double>(), 720);
  EXPECT_EQ(tensor({2, 3}, kInt).prod().scalar_type(), kLong);
  EXPECT_EQ(tensor({true, true}).prod().item<int64_t>(), 1);
  EXPECT_EQ(zeros({0}).prod().item<float>(), 1.0f);
  EXPECT_EQ(ones({2, 3}).prod(1, false, kInt).scalar_type(), kInt);
  expect_error([&] { a.prod(3); }, {"prod", "out of range"});
}

TEST(Reductions, MaxMinWithIndices) {
  Tensor a = tensor({{1, 3, 3, 0}, {5, 5, 2, 5}});
  EXPECT_EQ(a.max().item<int64_t>(), 5);
  EXPECT_EQ(a.min().item<int64_t>(), 0);
  auto [v, i] = a.max(1);
  EXPECT_EQ(values(v), (V{3, 5}));
  EXPECT_EQ(values(i), (V{1, 0}));  // ties: first index
  EXPECT_EQ(i.scalar_type(), kLong);
  auto [v0, i0] = a.min(0, true);
  EXPECT_EQ(shape(v0), (S{1, 4}));
  EXPECT_EQ(values(v0), (V{1, 3, 2, 0}));
  EXPECT_EQ(values(i0), (V{0, 0, 1, 0}));
  auto [mv, mi] = max(a, -2);
  EXPECT_EQ(values(mi), (V{1, 1, 0, 1}));
  // NaN wins, first NaN index.
  Tensor n = tensor({3.0, kNan, 1.0, kNan});
  EXPECT_TRUE(is_nan(n.max()));
  EXPECT_TRUE(is_nan(n.min()));
  EXPECT_EQ(std::get<1>(n.max(0)).item<int64_t>(), 1);
  EXPECT_EQ(std::get<1>(n.min(0)).item<int64_t>(), 1);
  EXPECT_EQ(n.argmax().item<int64_t>(), 1);
  EXPECT_TRUE(is_nan(n.amax()));
  // bool, 0-d, empty.
  EXPECT_EQ(tensor({false, true}).max().item<bool>(), true);
  EXPECT_EQ(std::get<1>(tensor({false, true, true}).max(0)).item<int64_t>(), 1);
  auto [sv, si] = tensor(7.0).max(0);
  EXPECT_EQ(sv.item<float>(), 7.0f);
  EXPECT_EQ(si.item<int64_t>(), 0);
  EXPECT_EQ(shape(std::get<0>(zeros({0, 3}).max(1))), (S{0}));
  expect_error([] { zeros({0}).max(); }, {"max()", "Expected reduction dim to be specified"});
  expect_error([] { zeros({0}).min(); }, {"min()", "numel() == 0"});
  expect_error([] { zeros({0, 3}).max(0); }, {"max()", "reduction dim 0 to have non-zero size"});
  expect_error([] { ones({2}).max(1); }, {"max()", "out of range"});
  // Outer-dim layout with many columns (the blocked path).
  Tensor b = arange(3 * 600, kFloat).view({3, 600}) * -1;
  EXPECT_EQ(values(std::get<1>(b.max(0))), V(600, 0.0));
  EXPECT_EQ(values(std::get<1>(b.min(0))), V(600, 2.0));
}

TEST(Reductions, AmaxAminArgmaxArgmin) {
  Tensor x = arange(24, kFloat).view({2, 3, 4});
  EXPECT_EQ(values(x.amax({0, 2})), (V{15, 19, 23}));
  EXPECT_EQ(values(x.amin({-1, 0}, true)), (V{0, 4, 8}));
  EXPECT_EQ(shape(x.amin({-1, 0}, true)), (S{1, 3, 1}));
  EXPECT_EQ(x.amax().item<float>(), 23.0f);
  EXPECT_EQ(shape(amax(x, {}, true)), (S{1, 1, 1}));
  EXPECT_EQ(shape(zeros({0, 3}).amax(1)), (S{0}));
  expect_error([] { zeros({0, 3}).amax(0); }, {"amax()", "dim 0 to have non-zero size"});
  expect_error([] { zeros({0}).amin(); }, {"amin()", "numel() == 0"});
  EXPECT_EQ(x.argmax().item<int64_t>(), 23);
  EXPECT_EQ(x.argmin().item<int64_t>(), 0);
  EXPECT_EQ(values(x.argmax(1)), V(8, 2.0));
  EXPECT_EQ(shape(x.argmax(1, true)), (S{2, 1, 4}));
  EXPECT_EQ(shape(x.argmax(nullopt, true)), (S{1, 1, 1}));
  EXPECT_EQ(values(argmin(tensor({{2, 1, 1}, {0, 0, 3}}), 1)), (V{1, 0}));
  EXPECT_EQ(tensor({1, 0, 3}, kByte).argmax().item<int64_t>(), 2);
  EXPECT_EQ(tensor(4.0).argmax(0, true).dim(), 0);
  expect_error([] { tensor({true}).argmax(); }, {"argmax()", "Bool"});
  expect_error([] { zeros({0}).argmax(); }, {"argmax()", "numel() == 0"});
  expect_error([] { zeros({0, 2}).argmin(0); }, {"argmin()", "non-zero size"});
}

TEST(Reductions, VarStd) {
  Tensor a = tensor({1.0, 2.0, 4.0});
  EXPECT_NEAR(a.var().item<double>(), 7.0 / 3, 1e-6);
  EXPECT_NEAR(a.var(false).item<double>(), 14.0 / 9, 1e-6);
  EXPECT_NEAR(a.std().item<double>(), std::sqrt(7.0 / 3), 1e-6);
  Tensor m = tensor({{1.0, 2.0}, {3.0, 5.0}}, kDouble);
  EXPECT_EQ(values(m.var(IntArrayRef{0})),
            (V{2, 4.5}));  // var(0) and var({0}) pick var(bool unbiased), as in LibTorch
  EXPECT_EQ(values(m.var({1}, false, true)), (V{0.25, 1}));
  EXPECT_EQ(shape(m.var({1}, false, true)), (S{2, 1}));
  EXPECT_EQ(values(nabla::std(m, IntArrayRef{0})), (V{std::sqrt(2.0), std::sqrt(4.5)}));
  EXPECT_EQ(m.var(IntArrayRef{}).item<double>(), m.var().item<double>());
  // One sample (unbiased), empty, 0-d: nan.
  EXPECT_TRUE(is_nan(tensor({1.0}).var()));
  EXPECT_TRUE(is_nan(zeros({0}).std()));
  EXPECT_TRUE(is_nan(tensor(3.0).var()));
  EXPECT_EQ(tensor(3.0).var(false).item<double>(), 0.0);
  // Two-pass keeps float32 accurate with a large mean.
  Tensor big = (arange(1000, kFloat).remainder(2) + 10000).to(kFloat);  // 10000, 10001, ...
  EXPECT_NEAR(big.var(false).item<double>(), 0.25, 1e-3);
  expect_error([] { tensor({1, 2}).var(); }, {"var()", "floating point"});
  expect_error([] { tensor({1, 2}).std(IntArrayRef{0}); }, {"std()", "floating point"});
  expect_error([] { ones({2}).var(IntArrayRef{1}); }, {"var()", "out of range"});
}

TEST(Reductions, Norm) {
  Tensor v = tensor({-3.0, 0.0, 4.0});
  EXPECT_NEAR(v.norm().item<double>(), 5, 1e-6);
  EXPECT_NEAR(v.norm(1).item<double>(), 7, 1e-6);
  EXPECT_NEAR(v.norm(kInf).item<double>(), 4, 1e-6);
  EXPECT_NEAR(v.norm(-kInf).item<double>(), 0, 1e-6);
  EXPECT_NEAR(v.norm(0).item<double>(), 2, 1e-6);
  EXPECT_NEAR(v.norm(3).item<double>(), std::cbrt(27.0 + 64.0), 1e-5);
  EXPECT_NEAR(tensor({-1.0, 2.0, -3.0}).norm(-1).item<double>(), 0.545455, 1e-5);
  Tensor m = ones({2, 3});
  EXPECT_EQ(shape(m.norm(2, {1})), (S{2}));
  expect_near_all(values(m.norm(nullopt, {1}, true)), V(2, std::sqrt(3.0)), 1e-6);
  expect_near_all(values(norm(m, 3, {0})), V(3, std::cbrt(2.0)), 1e-6);
  for (double p : {0.0, 1.0, 2.0, kInf, -kInf}) EXPECT_EQ(zeros({0}).norm(p).item<float>(), 0.0f);
  expect_error([] { tensor({1, 2}).norm(); }, {"norm()", "floating point", "Long"});
  expect_error([&] { m.norm(2, {0, 0}); }, {"norm()", "multiple times"});
}

TEST(Reductions, Logsumexp) {
  Tensor x = tensor({{0.0, 1.0, 2.0}, {1000.0, 1000.0, -kInf}});
  auto v = values(x.logsumexp({1}));
  EXPECT_NEAR(v[0], std::log(1 + std::exp(1.0) + std::exp(2.0)), 1e-5);
  EXPECT_NEAR(v[1], 1000 + std::log(2.0), 1e-3);  // no overflow
  EXPECT_EQ(shape(x.logsumexp({1}, true)), (S{2, 1}));
  EXPECT_EQ(tensor({-kInf, -kInf}).logsumexp({0}).item<double>(), -kInf);
  EXPECT_EQ(tensor({kInf, kInf}).logsumexp({0}).item<double>(), kInf);
  EXPECT_EQ(tensor({kInf, -kInf}).logsumexp({0}).item<double>(), kInf);
  EXPECT_TRUE(is_nan(tensor({kNan, 1.0}).logsumexp({0})));
  Tensor i = tensor({1, 2, 3});
  EXPECT_EQ(i.logsumexp({0}).scalar_type(), kFloat);
  EXPECT_NEAR(logsumexp(i, {0}).item<double>(), 3.40761, 1e-4);
  EXPECT_EQ(tensor(5.0).logsumexp({0}).item<float>(), 5.0f);
  EXPECT_EQ(values(zeros({0, 3}).logsumexp({0})), V(3, -kInf));
  EXPECT_EQ(shape(zeros({0, 3}).logsumexp({1})), (S{0}));
  expect_error([&] { x.logsumexp({2}); }, {"logsumexp()", "out of range"});
}

TEST(Reductions, AllAny) {
  Tensor b = tensor({{true, false}, {true, true}});
  EXPECT_FALSE(b.all().item<bool>());
  EXPECT_TRUE(b.any().item<bool>());
  EXPECT_EQ(values(b.all(1)), (V{0, 1}));
  EXPECT_EQ(values(b.any(0, true)), (V{1, 1}));
  EXPECT_EQ(shape(b.any(0, true)), (S{1, 2}));
  EXPECT_EQ(values(b.t().all(0)), (V{0, 1}));
  EXPECT_EQ(tensor({1.0, 0.5}).all().scalar_type(), kBool);
  EXPECT_TRUE(all(tensor({1.0, 0.5})).item<bool>());
  EXPECT_FALSE(any(zeros({3})).item<bool>());
  Tensor u = tensor({1, 0, 3}, kByte);
  EXPECT_EQ(u.all().scalar_type(), kByte);
  EXPECT_EQ(u.any(0).item<int64_t>(), 1);
  EXPECT_TRUE(zeros({0}).all().item<bool>());
  EXPECT_FALSE(zeros({0}).any().item<bool>());
  EXPECT_TRUE(tensor(2.0).all(0).item<bool>());
  Tensor big = ones({300000}, kBool);
  EXPECT_TRUE(big.all().item<bool>());
  big.slice(0, 299999).fill_(false);
  EXPECT_FALSE(big.all().item<bool>());
  expect_error([&] { b.all(5); }, {"all", "out of range"});
  expect_error([&] { b.any(-3); }, {"any", "out of range"});
}

TEST(Reductions, Cumsum) {
  Tensor a = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(values(a.cumsum(1)), (V{0, 1, 3, 3, 7, 12}));
  EXPECT_EQ(values(a.cumsum(0)), (V{0, 1, 2, 3, 5, 7}));
  EXPECT_EQ(values(cumsum(a, -1)), values(a.cumsum(1)));
  EXPECT_EQ(tensor({1, 2}, kInt).cumsum(0).scalar_type(), kLong);
  EXPECT_EQ(values(tensor({true, true, false}).cumsum(0)), (V{1, 2, 2}));
  EXPECT_EQ(tensor({1.5, 2.5}).cumsum(0, kInt).scalar_type(), kInt);
  EXPECT_EQ(values(tensor({1.5, 2.5}).cumsum(0, kInt)), (V{1, 3}));
  EXPECT_EQ(tensor(5.0).cumsum(0).item<float>(), 5.0f);
  EXPECT_EQ(tensor(5.0).cumsum(0).dim(), 0);
  EXPECT_EQ(shape(zeros({0, 3}).cumsum(0)), (S{0, 3}));
  Tensor big = full({1000000}, 0.1, kFloat).cumsum(0);
  EXPECT_NEAR(big[999999].item<double>(), 1e6 * static_cast<double>(0.1f), 1e-1);
  expect_error([] { tensor({1, 2}).cumsum(0, kBool); }, {"cumsum", "Bool"});
  expect_error([&] { a.cumsum(2); }, {"cumsum", "out of range"});
}

TEST(Reductions, SortArgsortTopk) {
  Tensor x = tensor({2, 1, 2, 1});
  auto [sv, si] = x.sort();
  EXPECT_EQ(values(sv), (V{1, 1, 2, 2}));
  EXPECT_EQ(values(si), (V{1, 3, 0, 2}));  // stable
  auto [dv, di] = x.sort(0, true);
  EXPECT_EQ(values(dv), (V{2, 2, 1, 1}));
  EXPECT_EQ(values(di), (V{0, 2, 1, 3}));
  Tensor n = tensor({3.0, kNan, 1.0, kNan, 2.0});
  EXPECT_EQ(values(std::get<1>(n.sort())), (V{2, 4, 0, 1, 3}));  // NaN last
  EXPECT_EQ(values(std::get<1>(n.sort(0, true))), (V{1, 3, 0, 4, 2}));
  Tensor m = tensor({{3.0, 1.0, 2.0}, {0.0, 5.0, 4.0}});
  EXPECT_EQ(values(m.argsort(1)), (V{1, 2, 0, 0, 2, 1}));
  EXPECT_EQ(values(argsort(m, 0, true)), (V{0, 1, 1, 1, 0, 0}));
  EXPECT_EQ(values(std::get<0>(sort(m, 0))), (V{0, 1, 2, 3, 5, 4}));
  EXPECT_EQ(values(std::get<0>(tensor({true, false}).sort())), (V{0, 1}));
  auto [s0, i0] = tensor(5.0).sort(0);
  EXPECT_EQ(s0.dim(), 0);
  EXPECT_EQ(i0.item<int64_t>(), 0);
  EXPECT_EQ(shape(std::get<0>(zeros({0, 2}).sort(0))), (S{0, 2}));
  // topk
  Tensor t = tensor({1, 3, 3, 2, 3});
  auto [tv, ti] = t.topk(2);
  EXPECT_EQ(values(tv), (V{3, 3}));
  EXPECT_EQ(values(ti), (V{1, 2}));
  auto [lv, li] = topk(t, 2, -1, false);
  EXPECT_EQ(values(lv), (V{1, 2}));
  EXPECT_EQ(values(li), (V{0, 3}));
  EXPECT_EQ(values(std::get<1>(n.topk(2))), (V{1, 3}));  // NaN counts as largest
  EXPECT_EQ(shape(std::get<0>(m.topk(2, 0))), (S{2, 3}));
  EXPECT_EQ(values(std::get<0>(m.topk(1, 1))), (V{3, 5}));
  EXPECT_EQ(shape(std::get<0>(t.topk(0))), (S{0}));
  EXPECT_EQ(std::get<0>(tensor(5.0).topk(1)).dim(), 0);
  expect_error([&] { t.topk(6); }, {"topk", "k out of range"});
  expect_error([&] { t.topk(-1); }, {"topk", "k out of range"});
  expect_error([&] { m.sort(2); }, {"sort", "out of range"});
  // A large sort runs over many lines in parallel.
  Tensor r = rand({512, 200});
  Tensor rs = std::get<0>(r.sort(1));
  EXPECT_TRUE((rs.slice(1, 1) >= rs.slice(1, 0, -1)).all().item<bool>());
  expect_near_all(values(rs.sum(1)), values(r.sum(1)), 1e-5);
}

namespace {
// Naive reference: sum, max and (for one reduced dim) first argmax of x over the dims in
// `mask`, in double.
struct Naive {
  V sum, max, argmax;
};
Naive naive_reduce(const Tensor& x, const std::vector<bool>& mask) {
  Tensor c = x.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  auto sizes = x.sizes().vec();
  int64_t out_n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (!mask[d]) out_n *= sizes[d];
  V sum(out_n, 0.0), mx(out_n, -kInf), arg(out_n, 0.0);
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t i = 0; i < c.numel(); ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (!mask[d]) o = o * sizes[d] + idx[d];
    sum[o] += p[i];
    if (p[i] > mx[o]) {
      mx[o] = p[i];
      for (size_t d = 0; d < sizes.size(); ++d)
        if (mask[d]) arg[o] = static_cast<double>(idx[d]);
    }
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return {sum, mx, arg};
}
}  // namespace

TEST(Reductions, RandomLayoutsMatchNaiveReference) {
  manual_seed(7);
  const std::vector<std::vector<int64_t>> shapes = {
      {5, 7, 3}, {1, 9, 1, 4}, {300, 2, 70}, {2, 40000}, {40000, 2}, {3, 1, 5, 1, 2}, {70000}};
  for (const auto& sh : shapes) {
    Tensor base = randn(sh);
    int64_t nd = base.dim();
    // Layouts: contiguous, reversed dims (a permutation), a sliced copy of a wider tensor.
    std::vector<Tensor> layouts = {base};
    std::vector<int64_t> rev(nd);
    for (int64_t d = 0; d < nd; ++d) rev[d] = nd - 1 - d;
    layouts.push_back(base.permute(rev).contiguous().permute(rev));
    std::vector<int64_t> wide = sh;
    wide.back() *= 2;
    Tensor w = randn(wide);
    w.slice(nd - 1, 0, wide.back(), 2).copy_(base);
    layouts.push_back(w.slice(nd - 1, 0, wide.back(), 2));
    for (const Tensor& x : layouts) {
      for (int64_t m = 1; m < (int64_t(1) << nd); ++m) {
        std::vector<bool> mask(nd);
        std::vector<int64_t> dims;
        for (int64_t d = 0; d < nd; ++d)
          if ((mask[d] = (m >> d) & 1)) dims.push_back(d - nd);  // negative dims too
        Naive want = naive_reduce(x, mask);
        expect_near_all(values(x.sum(dims, true)), want.sum, 1e-5);
        EXPECT_EQ(values(x.amax(dims)), want.max) << "shape " << ::testing::PrintToString(sh);
      }
      for (int64_t d = 0; d < nd; ++d) {
        std::vector<bool> mask(nd, false);
        mask[d] = true;
        Naive want = naive_reduce(x, mask);
        auto [v, i] = x.max(d);
        EXPECT_EQ(values(v), want.max);
        EXPECT_EQ(values(i), want.argmax);
        EXPECT_EQ(values(x.argmax(d)), want.argmax);
      }
    }
  }
}
