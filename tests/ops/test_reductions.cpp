// Reductions, what the op table (tests/conformance/table_reductions.cpp) cannot say:
// sizes and layouts that take the kernels' split, blocked and parallel paths (against a
// naive float64 reference, with one and two threads), which index wins among ties and
// NaNs (the table compares indices through the values they select), error messages.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::values;
using V = std::vector<double>;

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

}  // namespace

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

// A million-element cumsum stays accurate; a long bool all() finds its one false.
TEST(Reductions, LargeCumsumAndAll) {
  Tensor big = full({1000000}, 0.1, kFloat).cumsum(0);
  EXPECT_NEAR(big[999999].item<double>(), 1e6 * static_cast<double>(0.1f), 1e-1);
  Tensor b = ones({300000}, kBool);
  EXPECT_TRUE(b.all().item<bool>());
  b.slice(0, 299999).fill_(false);
  EXPECT_FALSE(b.all().item<bool>());
}

// Ties and NaNs: the first index wins, sorts are stable, NaN sorts last and counts as the
// largest.
TEST(Reductions, WhichIndexWins) {
  Tensor a = tensor({{1, 3, 3, 0}, {5, 5, 2, 5}});
  EXPECT_EQ(values(std::get<1>(a.max(1))), (V{1, 0}));
  EXPECT_EQ(values(std::get<1>(a.min(0, true))), (V{0, 0, 1, 0}));
  EXPECT_EQ(values(std::get<1>(max(a, -2))), (V{1, 1, 0, 1}));
  EXPECT_EQ(values(argmin(tensor({{2, 1, 1}, {0, 0, 3}}), 1)), (V{1, 0}));
  EXPECT_EQ(std::get<1>(tensor({false, true, true}).max(0)).item<int64_t>(), 1);
  Tensor n = tensor({3.0, kNan, 1.0, kNan});
  EXPECT_EQ(std::get<1>(n.max(0)).item<int64_t>(), 1);
  EXPECT_EQ(std::get<1>(n.min(0)).item<int64_t>(), 1);
  EXPECT_EQ(n.argmax().item<int64_t>(), 1);
  Tensor x = tensor({2, 1, 2, 1});
  EXPECT_EQ(values(std::get<1>(x.sort())), (V{1, 3, 0, 2}));
  EXPECT_EQ(values(std::get<1>(x.sort(0, true))), (V{0, 2, 1, 3}));
  Tensor m = tensor({3.0, kNan, 1.0, kNan, 2.0});
  EXPECT_EQ(values(std::get<1>(m.sort())), (V{2, 4, 0, 1, 3}));
  EXPECT_EQ(values(std::get<1>(m.sort(0, true))), (V{1, 3, 0, 4, 2}));
  Tensor t = tensor({1, 3, 3, 2, 3});
  EXPECT_EQ(values(std::get<1>(t.topk(2))), (V{1, 2}));
  EXPECT_EQ(values(std::get<1>(topk(t, 2, -1, false))), (V{0, 3}));
  EXPECT_EQ(values(std::get<1>(m.topk(2))), (V{1, 3}));
}

// Many lines sorted in parallel.
TEST(Reductions, LargeSort) {
  Tensor r = rand({512, 200});
  Tensor rs = std::get<0>(r.sort(1));
  EXPECT_TRUE((rs.slice(1, 1) >= rs.slice(1, 0, -1)).all().item<bool>());
  expect_near_all(values(rs.sum(1)), values(r.sum(1)), 1e-5);
}

// Messages beyond the op's name (the table's error entries check the name).
TEST(Reductions, ErrorMessages) {
  Tensor a = arange(6, kFloat).view({2, 3});
  expect_error([&] { a.sum(2); }, {"sum", "out of range", "2"});
  expect_error([&] { a.sum({0, -2}); }, {"sum", "dim 0 appears multiple times"});
  expect_error([&] { tensor(5.0).sum({0, 0}); }, {"sum", "multiple times"});
  expect_error([] { tensor({1, 2}).mean(); }, {"mean", "floating point", "Long"});
  expect_error([] { ones({2}).mean(kLong); }, {"mean", "Optional dtype"});
  expect_error([&] { a.prod(3); }, {"prod", "out of range"});
  expect_error([] { zeros({0}).max(); }, {"max()", "Expected reduction dim to be specified"});
  expect_error([] { zeros({0}).min(); }, {"min()", "numel() == 0"});
  expect_error([] { zeros({0, 3}).max(0); }, {"max()", "reduction dim 0 to have non-zero size"});
  expect_error([] { ones({2}).max(1); }, {"max()", "out of range"});
  expect_error([] { zeros({0, 3}).amax(0); }, {"amax()", "dim 0 to have non-zero size"});
  expect_error([] { zeros({0}).amin(); }, {"amin()", "numel() == 0"});
  expect_error([] { tensor({true}).argmax(); }, {"argmax()", "Bool"});
  expect_error([] { zeros({0}).argmax(); }, {"argmax()", "numel() == 0"});
  expect_error([] { zeros({0, 2}).argmin(0); }, {"argmin()", "non-zero size"});
  expect_error([] { tensor({1, 2}).var(); }, {"var()", "floating point"});
  expect_error([] { tensor({1, 2}).std(IntArrayRef{0}); }, {"std()", "floating point"});
  expect_error([] { ones({2}).var(IntArrayRef{1}); }, {"var()", "out of range"});
  expect_error([] { tensor({1, 2}).norm(); }, {"norm()", "floating point", "Long"});
  expect_error([] { ones({2, 3}).norm(2, {0, 0}); }, {"norm()", "multiple times"});
  expect_error([&] { a.logsumexp({2}); }, {"logsumexp()", "out of range"});
  Tensor b = tensor({{true, false}, {true, true}});
  expect_error([&] { b.all(5); }, {"all", "out of range"});
  expect_error([&] { b.any(-3); }, {"any", "out of range"});
  expect_error([] { tensor({1, 2}).cumsum(0, kBool); }, {"cumsum", "Bool"});
  expect_error([&] { a.cumsum(2); }, {"cumsum", "out of range"});
  Tensor t = tensor({1, 3, 3, 2, 3});
  expect_error([&] { t.topk(6); }, {"topk", "k out of range"});
  expect_error([&] { t.topk(-1); }, {"topk", "k out of range"});
  expect_error([] { ones({2, 3}).sort(2); }, {"sort", "out of range"});
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

// Every dim subset of several shapes, in three layouts (contiguous, permuted, sliced):
// the reduction kernel's inner, outer, split and blocked paths.
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
