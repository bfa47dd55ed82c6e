// softmax / log_softmax / softmin: hand values, stability, both kernel paths (last dim
// and strided), autograd names, first and second derivatives, errors.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;
using V = std::vector<double>;

namespace {

// Reference softmax over dim d, computed in double through the public composite ops.
Tensor ref_softmax(const Tensor& x, int64_t d) {
  Tensor xd = x.to(kDouble);
  Tensor e = (xd - std::get<0>(xd.max(d, true))).exp();
  return e / e.sum({d}, true);
}

void expect_near_all(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.sizes(), b.sizes());
  V va = values(a), vb = values(b);
  for (size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], tol) << "at " << i;
}

}  // namespace

TEST(Softmax, HandValues) {
  Tensor x = tensor({0.0, std::log(3.0)}, kDouble);
  V s = values(softmax(x, 0));
  EXPECT_NEAR(s[0], 0.25, 1e-12);
  EXPECT_NEAR(s[1], 0.75, 1e-12);
  V l = values(log_softmax(x, 0));
  EXPECT_NEAR(l[0], std::log(0.25), 1e-12);
  EXPECT_NEAR(l[1], std::log(0.75), 1e-12);
  V m = values(softmin(x, 0));
  EXPECT_NEAR(m[0], 0.75, 1e-12);
  EXPECT_NEAR(m[1], 0.25, 1e-12);
  // Tensor methods.
  EXPECT_TRUE(x.softmax(0).allclose(softmax(x, 0)));
  EXPECT_TRUE(x.log_softmax(-1).allclose(log_softmax(x, 0)));
}

TEST(Softmax, EveryDimBothPaths) {
  Tensor x = randn({3, 4, 5});
  for (int64_t d = -3; d < 3; ++d) {
    int64_t dd = d < 0 ? d + 3 : d;
    expect_near_all(softmax(x, d), ref_softmax(x, dd), 1e-6);
    expect_near_all(log_softmax(x, d), ref_softmax(x, dd).log(), 1e-5);
    // Rows sum to one.
    expect_near_all(softmax(x, d).sum({dd}), ones({d == 0 || d == -3 ? 4 : 3, dd == 2 ? 4 : 5}),
                    1e-5);
  }
}

TEST(Softmax, LargeInnerAndParallel) {
  // Many columns (strided path over several column blocks) and many rows (parallel).
  Tensor x = randn({2, 7, 600});
  expect_near_all(softmax(x, 1), ref_softmax(x, 1), 1e-6);
  Tensor y = randn({3000, 40});
  expect_near_all(log_softmax(y, 1), ref_softmax(y, 1).log(), 1e-5);
}

TEST(Softmax, NonContiguousInput) {
  Tensor x = randn({5, 6}).t();  // [6, 5], transposed strides
  expect_near_all(softmax(x, 1), ref_softmax(x, 1), 1e-6);
  expect_near_all(softmax(x, 0), ref_softmax(x, 0), 1e-6);
  Tensor s = randn({4, 10}).slice(1, 0, 10, 3);
  expect_near_all(log_softmax(s, 1), ref_softmax(s, 1).log(), 1e-5);
}

TEST(Softmax, StableForHugeLogits) {
  Tensor x = tensor({1e4, -1e4, 0.0, 1e4});
  V s = values(softmax(x, 0));
  EXPECT_NEAR(s[0], 0.5, 1e-6);
  EXPECT_EQ(s[1], 0.0);
  EXPECT_NEAR(s[3], 0.5, 1e-6);
  V l = values(log_softmax(x, 0));
  EXPECT_NEAR(l[0], -std::log(2.0), 1e-5);
  EXPECT_NEAR(l[1], -2e4 - std::log(2.0), 1.0);
  for (double v : l) EXPECT_TRUE(std::isfinite(v));
  // Gradients stay finite too.
  Tensor xg = x.clone().requires_grad_();
  log_softmax(xg, 0).sum().backward();
  for (double v : values(xg.grad())) EXPECT_TRUE(std::isfinite(v));
  // -inf logits get probability 0; a NaN poisons its row only.
  const double inf = std::numeric_limits<double>::infinity();
  V p = values(softmax(tensor({-inf, 0.0}), 0));
  EXPECT_EQ(p[0], 0.0);
  EXPECT_EQ(p[1], 1.0);
  Tensor nan_row = tensor({{std::nan(""), 1.0}, {1.0, 1.0}});
  V q = values(softmax(nan_row, 1));
  EXPECT_TRUE(std::isnan(q[0]) && std::isnan(q[1]));
  EXPECT_EQ(q[2], 0.5);
}

TEST(Softmax, EdgeShapes) {
  Tensor s = tensor(3.0);  // 0-d: softmax 1, log_softmax 0
  EXPECT_EQ(softmax(s, 0).item<double>(), 1.0);
  EXPECT_EQ(log_softmax(s, -1).item<double>(), 0.0);
  EXPECT_EQ(softmax(s, 0).dim(), 0);
  Tensor e = randn({0, 4});
  EXPECT_EQ(softmax(e, 1).sizes(), e.sizes());
  EXPECT_EQ(log_softmax(e, 0).sizes(), e.sizes());
  Tensor z = randn({3, 0});
  EXPECT_EQ(softmax(z, 1).numel(), 0);
}

TEST(Softmax, DtypeArgument) {
  Tensor i = tensor({1, 2, 3});
  Tensor f = softmax(i, 0, kFloat);
  EXPECT_EQ(f.scalar_type(), kFloat);
  Tensor d = log_softmax(randn({3}), 0, kDouble);
  EXPECT_EQ(d.scalar_type(), kDouble);
  expect_error([&] { softmax(i, 0); }, {"softmax", "floating", "Long"});
  expect_error([&] { log_softmax(i, 0); }, {"log_softmax", "Long"});
}

TEST(Softmax, Errors) {
  expect_error([] { softmax(randn({2, 3}), 2); }, {"softmax", "2"});
  expect_error([] { log_softmax(randn({2, 3}), -3); }, {"log_softmax"});
  expect_error([] { softmax(Tensor(), 0); }, {"softmax"});
}

TEST(Softmax, GradFnNames) {
  Tensor x = rnd({2, 3});
  EXPECT_EQ(name_of(softmax(x, 1)), "SoftmaxBackward0");
  EXPECT_EQ(name_of(log_softmax(x, 1)), "LogSoftmaxBackward0");
  EXPECT_EQ(name_of(softmax(x.detach(), 1)), "none");
}

TEST(Softmax, GradcheckAndGradgradcheck) {
  for (int64_t d : {0, 1, 2}) {
    Tensor x = rnd({2, 3, 4}, -2, 2);
    auto f = [d](const autograd::variable_list& in) -> autograd::variable_list {
      return {softmax(in[0], d)};
    };
    auto g = [d](const autograd::variable_list& in) -> autograd::variable_list {
      return {log_softmax(in[0], d)};
    };
    auto h = [d](const autograd::variable_list& in) -> autograd::variable_list {
      return {softmin(in[0], d)};
    };
    EXPECT_TRUE(autograd::gradcheck(f, {x}));
    EXPECT_TRUE(autograd::gradcheck(g, {x}));
    EXPECT_TRUE(autograd::gradcheck(h, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(f, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(g, {x}));
  }
  // A transposed (non-contiguous) input.
  auto f = [](const autograd::variable_list& in) -> autograd::variable_list {
    return {log_softmax(in[0].t(), 0)};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {rnd({3, 4})}));
}

// Rows longer than the kernels' 16-lane blocks: the maximum and a NaN at any position,
// in the vector part or the tail.
TEST(Softmax, LongRowsMaxAndNaNAnywhere) {
  for (ScalarType dt : {kFloat, kDouble}) {
    for (int64_t n : {16, 37, 100}) {
      for (int64_t at : {int64_t(0), int64_t(15), n / 2, n - 1}) {
        Tensor x = randn({3, n}, TensorOptions().dtype(dt));
        x.index_put_({1, at}, 50.0);  // the row's maximum, far above the rest
        expect_near_all(softmax(x, 1), ref_softmax(x, 1), 1e-6);
        x.index_put_({2, at}, std::nan(""));
        const V q = values(softmax(x, 1));
        for (int64_t j = 0; j < n; ++j) {
          EXPECT_TRUE(std::isnan(q[2 * n + j])) << "n " << n << " NaN at " << at;
          EXPECT_FALSE(std::isnan(q[j])) << "a NaN must stay in its row";
        }
      }
    }
  }
}
