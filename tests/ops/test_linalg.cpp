// Linear algebra, what the op table (tests/conformance/table_linalg.cpp) cannot say: the
// gemm kernel's paths (every operand and output layout it treats differently, sizes above
// its blocking, many small batched products, one and two threads) against a naive float64
// product, addmm_'s aliasing and version counter, and error messages.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::shape;
using nabla::testing::values;

namespace {

using Shape = std::vector<int64_t>;

// Naive float64 product of two 2-d tensors of any layout.
std::vector<double> naive_mm(const Tensor& a, const Tensor& b) {
  Tensor ad = a.to(kDouble), bd = b.to(kDouble);
  auto pa = ad.accessor<double, 2>();
  auto pb = bd.accessor<double, 2>();
  int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<double> out(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += pa[i][p] * pb[p][j];
      out[i * n + j] = s;
    }
  return out;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " at " << i;
}

enum class MatLayout { Contiguous, Transposed, PaddedRows, ColumnStrided, Broadcast };
const MatLayout kLayouts[] = {MatLayout::Contiguous, MatLayout::Transposed, MatLayout::PaddedRows,
                              MatLayout::ColumnStrided, MatLayout::Broadcast};

const char* name(MatLayout l) {
  switch (l) {
    case MatLayout::Contiguous:
      return "contiguous";
    case MatLayout::Transposed:
      return "transposed";
    case MatLayout::PaddedRows:
      return "padded-rows";
    case MatLayout::ColumnStrided:
      return "column-strided";
    case MatLayout::Broadcast:
      return "broadcast";
  }
  return "?";
}

Tensor source(IntArrayRef sizes, ScalarType dt) {
  if (isFloatingType(dt)) return randn(sizes, TensorOptions(dt));
  return randint(-4, 5, sizes, TensorOptions(dt));
}

// A rows x cols matrix with random values in the given memory layout.
Tensor make_matrix(int64_t rows, int64_t cols, MatLayout l, ScalarType dt = kFloat) {
  switch (l) {
    case MatLayout::Contiguous:
      return source({rows, cols}, dt);
    case MatLayout::Transposed:
      return source({cols, rows}, dt).t();
    case MatLayout::PaddedRows:
      return source({rows, cols + 3}, dt).slice(1, 1, cols + 1);
    case MatLayout::ColumnStrided:
      return source({rows, 2 * cols}, dt).slice(1, 0, 2 * cols, 2);
    case MatLayout::Broadcast:
      return source({1, cols}, dt).expand({rows, cols});
  }
  return {};
}

}  // namespace

// Every layout pair and output kind through addmm_ on a strided or contiguous self.
TEST(Linalg, GemmAllLayoutsAndShapes) {
  const int64_t dims[][3] = {{1, 1, 5}, {4, 1, 3},    {1, 5, 3}, {4, 5, 1},
                             {7, 6, 9}, {33, 17, 65}, {3, 4, 2}};
  for (ScalarType dt : {kFloat, kDouble, kLong, kInt}) {
    // float32: sums of up to 65 products, scaled by 3 in addmm_, cancel down to ~1e-5.
    const double tol = dt == kFloat ? 1e-4 : 1e-12;
    for (auto& d : dims) {
      int64_t m = d[0], n = d[1], k = d[2];
      for (MatLayout la : kLayouts)
        for (MatLayout lb : kLayouts) {
          Tensor a = make_matrix(m, k, la, dt), b = make_matrix(k, n, lb, dt);
          std::string what = std::string(toString(dt)) + " " + std::to_string(m) + "x" +
                             std::to_string(n) + "x" + std::to_string(k) + " " + name(la) + "@" +
                             name(lb);
          auto want = naive_mm(a, b);
          expect_near_all(values(a.mm(b)), want, tol, "mm " + what);
          // Output layouts: contiguous self, transposed self, column-strided self.
          for (MatLayout lc :
               {MatLayout::Contiguous, MatLayout::Transposed, MatLayout::ColumnStrided}) {
            Tensor self = make_matrix(m, n, lc, dt);
            auto before = values(self);
            self.addmm_(a, b, 2, 3);
            std::vector<double> expect(want.size());
            for (size_t i = 0; i < want.size(); ++i) expect[i] = 2 * before[i] + 3 * want[i];
            expect_near_all(values(self), expect, tol,
                            std::string("addmm_ into ") + name(lc) + " " + what);
          }
        }
    }
  }
}

// Above the kernel's blocking (the table's largest product is 64 x 128 x 96).
TEST(Linalg, LargeFloatProductMatchesDouble) {
  Tensor a = randn({300, 250}), b = randn({250, 200});
  auto want = naive_mm(a, b);
  expect_near_all(values(a.matmul(b)), want, 1e-4, "300x200x250");
  expect_near_all(values(a.t().contiguous().t().matmul(b)), want, 1e-4, "transposed a");
}

TEST(Linalg, DotErrors) {
  Tensor a = tensor({1.0, 2.0, 3.0}), b = tensor({4.0, 5.0, 6.0});
  expect_error([&] { a.dot(ones({4})); }, {"dot", "inconsistent tensor size", "3", "4"});
  expect_error([&] { a.dot(ones({3, 1})); }, {"dot", "1D tensors expected", "1D and 2D"});
  expect_error([&] { a.dot(b.to(kDouble)); }, {"dot", "same dtype", "Float", "Double"});
  expect_error([&] { ones({2}, kBool).dot(ones({2}, kBool)); }, {"dot", "Bool"});
  expect_error([&] { a.dot(Tensor()); }, {"dot"});
}

TEST(Linalg, MvErrors) {
  Tensor m = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor v = tensor({1.0, 0.0, -1.0});
  expect_error([&] { m.mv(ones({4})); }, {"mv", "size mismatch", "2x3", "4"});
  expect_error([&] { m.mv(ones({3, 1})); }, {"mv", "2-D and 2-D"});
  expect_error([&] { v.mv(v); }, {"mv", "1-D and 1-D"});
  expect_error([&] { m.mv(v.to(kDouble)); }, {"mv", "same dtype", "Float", "Double"});
}

TEST(Linalg, MmErrors) {
  expect_error(
      [&] {
        ones({2, 3}).mm(ones({4, 5}));
      },
      {"mm", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"});
  expect_error(
      [&] {
        ones({2, 3}).mm(ones({3, 4}, kDouble));
      },
      {"mm", "expected m1 and m2 to have the same dtype, but got: Float != Double"});
  expect_error([&] { ones({3}).mm(ones({3, 4})); }, {"mm", "mat1 must be a matrix", "1-D"});
  expect_error([&] { ones({2, 3}).mm(ones({3})); }, {"mm", "mat2 must be a matrix", "1-D"});
  expect_error([&] { ones({2, 3}, kBool).mm(ones({3, 2}, kBool)); }, {"mm", "Bool"});
  expect_error([&] { ones({2, 3}).mm(Tensor()); }, {"mm"});
}

TEST(Linalg, MatmulErrors) {
  expect_error(
      [&] {
        ones({}).matmul(ones({2, 3}));
      },
      {"matmul", "both arguments to matmul need to be at least 1D", "0D and 2D"});
  expect_error([&] { ones({2, 3}).matmul(ones({})); }, {"matmul", "2D and 0D"});
  expect_error(
      [&] {
        ones({2, 3}).matmul(ones({4, 5}));
      },
      {"matmul", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"});
  expect_error(
      [&] {
        ones({3}).matmul(ones({4, 5}));
      },
      {"matmul", "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"});
  expect_error([&] { ones({2, 3}).matmul(ones({4})); }, {"matmul", "size mismatch", "2x3"});
  expect_error([&] { ones({3}).matmul(ones({4})); }, {"matmul", "inconsistent tensor size"});
  expect_error([&] { ones({2, 3, 4}).matmul(ones({5})); }, {"matmul", "(4)", "(5)", "[2, 3, 4]"});
  expect_error([&] { ones({2, 2, 3}).matmul(ones({2, 4, 5})); }, {"matmul", "(3)", "(4)"});
  expect_error([&] { ones({3, 2, 3}).matmul(ones({2, 3, 5})); }, {"matmul", "(3)", "(2)"});
  expect_error([&] { ones({2, 3}).matmul(ones({3, 4}, kDouble)); }, {"matmul", "Float != Double"});
  expect_error([&] { ones({3}, kLong).matmul(ones({3})); }, {"matmul", "Long", "Float"});
  expect_error([&] { ones({2, 2}, kBool).matmul(ones({2, 2}, kBool)); }, {"matmul", "Bool"});
  expect_error([&] { Tensor().matmul(ones({2})); }, {"matmul"});
}

// Many small products run in parallel over the batch.
TEST(Linalg, BmmSmallBatchAndErrors) {
  Tensor sa = randn({3000, 4, 3}, TensorOptions(kDouble)),
         sb = randn({3000, 3, 4}, TensorOptions(kDouble));
  Tensor sc = sa.bmm(sb);
  for (int64_t i = 0; i < 3000; i += 157)
    expect_near_all(values(sc[i]), naive_mm(sa[i], sb[i]), 1e-12, "bmm small batch");
  expect_error([&] { ones({2, 3}).bmm(ones({2, 3, 4})); }, {"bmm", "batch1 must be a 3D tensor"});
  expect_error([&] { ones({2, 2, 3}).bmm(ones({3, 4})); }, {"bmm", "batch2 must be a 3D tensor"});
  expect_error(
      [&] {
        ones({2, 2, 3}).bmm(ones({2, 4, 5}));
      },
      {"bmm",
       "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but "
       "got: [2, 4]"});
  expect_error([&] { ones({2, 2, 3}).bmm(ones({3, 3, 5})); }, {"bmm", "[2, 3]", "[3, 3]"});
  expect_error([&] { ones({2, 2, 3}).bmm(ones({2, 3, 5}, kDouble)); }, {"bmm", "Float != Double"});
}

TEST(Linalg, AddmmErrors) {
  Tensor m1 = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor m2 = tensor({{1.0, 0.0, 1.0}, {0.0, 1.0, 1.0}});
  Tensor self = tensor({{1.0, 1.0, 1.0}, {2.0, 2.0, 2.0}});
  expect_error(
      [&] {
        self.addmm(m1, ones({3, 3}));
      },
      {"addmm", "mat1 and mat2 shapes cannot be multiplied (2x2 and 3x3)"});
  expect_error([&] { self.addmm(ones({2}), m2); }, {"addmm", "mat1 must be a matrix", "1-D"});
  expect_error([&] { ones({3, 3}).addmm(m1, m2); }, {"addmm", "[3, 3]", "[2, 3]"});
  expect_error(
      [&] {
        ones({2, 3}, kDouble).addmm(m1, m2);
      },
      {"addmm", "self and mat2 must have the same dtype", "Double", "Float"});
  expect_error([&] { self.addmm(m1, m2.to(kDouble)); }, {"addmm", "Float != Double"});
}

// The result is self, its version moves, an operand aliasing self is read before the write,
// and a view is written in place.
TEST(Linalg, AddmmInPlace) {
  Tensor m1 = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor eye2 = eye(2);
  Tensor self = ones({2, 2});
  uint32_t v0 = self._version();
  const Tensor& r = self.addmm_(m1, eye2, 1, 2);
  EXPECT_TRUE(r.is_same(self));
  EXPECT_GT(self._version(), v0);
  EXPECT_EQ(values(self), (std::vector<double>{3, 5, 7, 9}));
  // self aliasing an operand: self = self @ m1 must read the old self.
  Tensor s2 = tensor({{1.0, 1.0}, {0.0, 1.0}});
  s2.addmm_(s2, m1, 0, 1);
  EXPECT_EQ(values(s2), (std::vector<double>{4, 6, 3, 4}));
  // A view into a larger tensor: only the view changes.
  Tensor big = zeros({3, 4});
  big.slice(0, 1, 3).slice(1, 1, 3).addmm_(m1, eye2);
  EXPECT_EQ(values(big), (std::vector<double>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0}));
  expect_error(
      [&] {
        ones({4}).addmm_(ones({2, 3}), ones({3, 4}));
      },
      {"addmm_", "Bad in-place call", "[4]", "[2, 4]"});
  expect_error([&] { ones({2, 2}, kLong).addmm_(m1, m1); }, {"addmm_", "same dtype"});
}

TEST(Linalg, OuterErrors) {
  Tensor a = tensor({1.0, 2.0}), b = tensor({1.0, 10.0, 100.0});
  expect_error([&] { a.outer(ones({3, 1})); }, {"outer", "Expected 1-D argument vec2", "2-D"});
  expect_error([&] { ones({2, 2}).outer(b); }, {"outer", "Expected 1-D argument self", "2-D"});
}

TEST(Linalg, LinearErrors) {
  Tensor w = tensor({{1.0, 0.0, 1.0}, {0.0, 1.0, 0.0}});  // out 2, in 3
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  expect_error(
      [&] {
        linear(ones({2, 3}), ones({4, 5}));
      },
      {"mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)"});
  expect_error([&] { linear(x, w, ones({5})); }, {"linear", "[5]"});
  expect_error([&] { linear(ones({}), w); }, {"linear"});
  expect_error([&] { linear(x, ones({2, 3, 1})); }, {"linear", "weight"});
}

TEST(Linalg, TwoThreadsMatchOne) {
  Tensor a = randn({130, 70}), b = randn({70, 90});
  Tensor ba = randn({500, 6, 5}), bb = randn({500, 5, 7});
  int old = get_num_threads();
  set_num_threads(1);
  Tensor r1 = a.matmul(b), s1 = ba.bmm(bb);
  set_num_threads(2);
  Tensor r2 = a.matmul(b), s2 = ba.bmm(bb);
  set_num_threads(old);
  expect_near_all(values(r2), values(r1), 1e-5, "matmul threads");
  EXPECT_TRUE(s1.equal(s2));
}
