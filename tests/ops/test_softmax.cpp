// softmax / log_softmax, what the op table (tests/conformance/table_nn_activation.cpp)
// cannot say: rows long and many enough for the kernels' blocked, strided and parallel
// paths, the maximum and a NaN at every position of the vector part and the tail, float32
// gradients at extreme logits, and error messages.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
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

// Above the table's sizes (its longest row has 40 elements).
TEST(Softmax, LargeInnerAndParallel) {
  // Many columns (strided path over several column blocks) and many rows (parallel).
  Tensor x = randn({2, 7, 600});
  expect_near_all(softmax(x, 1), ref_softmax(x, 1), 1e-6);
  Tensor y = randn({3000, 40});
  expect_near_all(log_softmax(y, 1), ref_softmax(y, 1).log(), 1e-5);
}

// The table differentiates in float64 only.
TEST(Softmax, Float32GradientsAtHugeLogits) {
  Tensor x = tensor({1e4, -1e4, 0.0, 1e4}).requires_grad_();
  log_softmax(x, 0).sum().backward();
  for (double v : values(x.grad())) EXPECT_TRUE(std::isfinite(v));
}

// Messages beyond the op's name, and an undefined input (the table's inputs are defined).
TEST(Softmax, Errors) {
  Tensor i = tensor({1, 2, 3});
  expect_error([&] { softmax(i, 0); }, {"softmax", "floating", "Long"});
  expect_error([&] { log_softmax(i, 0); }, {"log_softmax", "Long"});
  expect_error([] { softmax(randn({2, 3}), 2); }, {"softmax", "2"});
  expect_error([] { softmax(Tensor(), 0); }, {"softmax"});
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
