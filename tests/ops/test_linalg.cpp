// Linear algebra: matmul and its cases, mm/bmm/mv/dot/outer, addmm(_), linear. Values are
// checked against a naive float64 product computed here, over every operand layout the
// gemm kernel treats differently (row-major, transposed, padded rows, column-strided,
// broadcast) and every output shape it special-cases (dot, gemv, gemm).
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

TEST(Linalg, MmHandValues) {
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor b = tensor({{5.0, 6.0}, {7.0, 8.0}});
  Tensor c = a.mm(b);
  EXPECT_EQ(shape(c), (Shape{2, 2}));
  EXPECT_EQ(c.scalar_type(), kFloat);
  EXPECT_EQ(values(c), (std::vector<double>{19, 22, 43, 50}));
  EXPECT_EQ(values(mm(a.t(), b)), (std::vector<double>{26, 30, 38, 44}));
  EXPECT_EQ(values(matmul(a, b.t())), (std::vector<double>{17, 23, 39, 53}));
  EXPECT_EQ(values(a.to(kDouble).mm(b.to(kDouble))), (std::vector<double>{19, 22, 43, 50}));
}

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

TEST(Linalg, LargeFloatProductMatchesDouble) {
  Tensor a = randn({300, 250}), b = randn({250, 200});
  auto want = naive_mm(a, b);
  expect_near_all(values(a.matmul(b)), want, 1e-4, "300x200x250");
  expect_near_all(values(a.t().contiguous().t().matmul(b)), want, 1e-4, "transposed a");
}

TEST(Linalg, IntegerProducts) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});  // int64
  Tensor b = tensor({{1, 0}, {0, 1}, {1, 1}});
  Tensor c = a.mm(b);
  EXPECT_EQ(c.scalar_type(), kLong);
  EXPECT_EQ(values(c), (std::vector<double>{4, 5, 10, 11}));
  EXPECT_EQ(values(a.to(kInt).mm(b.to(kInt))), (std::vector<double>{4, 5, 10, 11}));
  EXPECT_EQ(a.to(kInt).mm(b.to(kInt)).scalar_type(), kInt);
  // uint8 wraps modulo 256: 16 * 16 = 256 -> 0, plus 1 * 3.
  Tensor u = tensor({{16, 1}}, kByte), v = tensor({{16}, {3}}, kByte);
  EXPECT_EQ(values(u.mm(v)), (std::vector<double>{3}));
  // Integer scalars in addmm.
  Tensor self = tensor({{1, 1}, {1, 1}});
  EXPECT_EQ(values(self.addmm(a, b, 2, 3)), (std::vector<double>{14, 17, 32, 35}));
}

TEST(Linalg, Dot) {
  Tensor a = tensor({1.0, 2.0, 3.0}), b = tensor({4.0, 5.0, 6.0});
  Tensor d = a.dot(b);
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(d.item<float>(), 32.0f);
  EXPECT_EQ(dot(a, b).item<float>(), 32.0f);
  // Strided vectors.
  Tensor s = arange(6, kDouble);
  EXPECT_EQ(s.slice(0, 0, 6, 2).dot(s.slice(0, 1, 6, 2)).item<double>(), 0 * 1 + 2 * 3 + 4 * 5);
  Tensor e = ones({3}).expand({3});
  EXPECT_EQ(e.dot(a).item<float>(), 6.0f);
  EXPECT_EQ(ones({1}).expand({4}).dot(arange(4, kFloat)).item<float>(), 6.0f);
  // Integers, empty.
  EXPECT_EQ(tensor({1, 2}).dot(tensor({3, 4})).item<int64_t>(), 11);
  EXPECT_EQ(tensor({1, 2}).dot(tensor({3, 4})).scalar_type(), kLong);
  Tensor z = empty({0}).dot(empty({0}));
  EXPECT_EQ(z.dim(), 0);
  EXPECT_EQ(z.item<float>(), 0.0f);
  expect_error([&] { a.dot(ones({4})); }, {"dot", "inconsistent tensor size", "3", "4"});
  expect_error([&] { a.dot(ones({3, 1})); }, {"dot", "1D tensors expected", "1D and 2D"});
  expect_error([&] { a.dot(b.to(kDouble)); }, {"dot", "same dtype", "Float", "Double"});
  expect_error([&] { ones({2}, kBool).dot(ones({2}, kBool)); }, {"dot", "Bool"});
  expect_error([&] { a.dot(Tensor()); }, {"dot"});
}

TEST(Linalg, Mv) {
  Tensor m = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor v = tensor({1.0, 0.0, -1.0});
  EXPECT_EQ(shape(m.mv(v)), (Shape{2}));
  EXPECT_EQ(values(m.mv(v)), (std::vector<double>{-2, -2}));
  EXPECT_EQ(values(mv(m.t(), tensor({1.0, 1.0}))), (std::vector<double>{5, 7, 9}));
  Tensor sv = tensor({1.0, 9.0, 0.0, 9.0, -1.0}).slice(0, 0, 5, 2);
  EXPECT_EQ(values(m.mv(sv)), (std::vector<double>{-2, -2}));
  EXPECT_EQ(shape(empty({0, 3}).mv(v)), (Shape{0}));
  EXPECT_EQ(values(empty({2, 0}).mv(empty({0}))), (std::vector<double>{0, 0}));
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

TEST(Linalg, MatmulCases) {
  Tensor v3 = tensor({1.0, 2.0, 3.0});
  Tensor m23 = arange(6, kFloat).view({2, 3});
  Tensor m34 = arange(12, kFloat).view({3, 4});
  // 1-d . 1-d
  Tensor d = v3.matmul(v3);
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(d.item<float>(), 14.0f);
  // 2-d . 1-d and 1-d . 2-d
  EXPECT_EQ(shape(m23.matmul(v3)), (Shape{2}));
  EXPECT_EQ(values(m23.matmul(v3)), (std::vector<double>{8, 26}));
  EXPECT_EQ(shape(v3.matmul(m34)), (Shape{4}));
  EXPECT_EQ(values(v3.matmul(m34)), naive_mm(v3.view({1, 3}), m34));
  // 2-d . 2-d
  EXPECT_EQ(values(m23.matmul(m34)), naive_mm(m23, m34));

  // N-d . 2-d (folded into one product) and N-d . 1-d
  Tensor a = randn({2, 3, 4, 5}), w = randn({5, 6});
  Tensor y = a.matmul(w);
  EXPECT_EQ(shape(y), (Shape{2, 3, 4, 6}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      expect_near_all(values(y[i][j]), naive_mm(a[i][j], w), 1e-5, "fold");
  Tensor u = randn({5});
  Tensor yv = a.matmul(u);
  EXPECT_EQ(shape(yv), (Shape{2, 3, 4}));
  expect_near_all(values(yv[1][2]), naive_mm(a[1][2], u.view({5, 1})), 1e-5, "fold mv");
  // A layout that cannot be folded without a copy (batch dims permuted).
  Tensor ap = a.permute({1, 0, 2, 3});
  Tensor yp = ap.matmul(w);
  EXPECT_EQ(shape(yp), (Shape{3, 2, 4, 6}));
  expect_near_all(values(yp[2][1]), naive_mm(a[1][2], w), 1e-5, "non-foldable");
  // Transposed inner matrices.
  Tensor at = randn({3, 5, 4}).transpose(1, 2);
  expect_near_all(values(at.matmul(w)[1]), naive_mm(at[1], w), 1e-5, "transposed batch");

  // 1-d / 2-d . N-d: the smaller operand is broadcast over the batch.
  Tensor bb = randn({2, 5, 6});
  Tensor x = u.matmul(bb);
  EXPECT_EQ(shape(x), (Shape{2, 6}));
  expect_near_all(values(x[1]), naive_mm(u.view({1, 5}), bb[1]), 1e-5, "1d@3d");
  Tensor m45 = randn({4, 5});
  Tensor x2 = m45.matmul(bb);
  EXPECT_EQ(shape(x2), (Shape{2, 4, 6}));
  expect_near_all(values(x2[0]), naive_mm(m45, bb[0]), 1e-5, "2d@3d");

  // Batch dims broadcast: [5,1,2,3] @ [4,3,2] -> [5,4,2,2].
  Tensor p = randn({5, 1, 2, 3}), q = randn({4, 3, 2});
  Tensor r = p.matmul(q);
  EXPECT_EQ(shape(r), (Shape{5, 4, 2, 2}));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 4; ++j)
      expect_near_all(values(r[i][j]), naive_mm(p[i][0], q[j]), 1e-5, "broadcast batch");
  // N-d . 1-d with a batched vector on the left: [3] @ [2,3,4] and [2,3,4] @ [4].
  EXPECT_EQ(shape(ones({2, 3, 4}).matmul(ones({4}))), (Shape{2, 3}));
  EXPECT_EQ(values(ones({2, 3, 4}).matmul(ones({4}))), std::vector<double>(6, 4.0));
  EXPECT_EQ(shape(ones({3}).matmul(ones({2, 3, 4}))), (Shape{2, 4}));
  // Free function and dtype preserved.
  EXPECT_EQ(matmul(m23.to(kDouble), m34.to(kDouble)).scalar_type(), kDouble);
  EXPECT_EQ(values(matmul(tensor({{1, 2}}), tensor({{3}, {4}}))), (std::vector<double>{11}));
}

TEST(Linalg, MatmulEmpty) {
  EXPECT_EQ(shape(empty({0, 3}).matmul(empty({3, 0}))), (Shape{0, 0}));
  Tensor z = empty({2, 0}).matmul(empty({0, 3}));
  EXPECT_EQ(shape(z), (Shape{2, 3}));
  EXPECT_EQ(values(z), std::vector<double>(6, 0.0));
  EXPECT_EQ(shape(empty({0, 2, 3}).matmul(empty({3, 4}))), (Shape{0, 2, 4}));
  EXPECT_EQ(shape(empty({4, 0, 3}).matmul(empty({4, 3, 2}))), (Shape{4, 0, 2}));
  Tensor zb = empty({4, 2, 0}).matmul(empty({4, 0, 3}));
  EXPECT_EQ(shape(zb), (Shape{4, 2, 3}));
  EXPECT_EQ(values(zb), std::vector<double>(24, 0.0));
  EXPECT_EQ(shape(empty({0}).matmul(empty({0, 5}))), (Shape{5}));
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

TEST(Linalg, Bmm) {
  Tensor a = randn({4, 2, 3}), b = randn({4, 3, 5});
  Tensor c = a.bmm(b);
  EXPECT_EQ(shape(c), (Shape{4, 2, 5}));
  for (int64_t i = 0; i < 4; ++i) expect_near_all(values(c[i]), naive_mm(a[i], b[i]), 1e-5, "bmm");
  // Transposed matrices, a permuted batch and a broadcast batch operand.
  Tensor at = randn({4, 3, 2}).transpose(1, 2);
  Tensor bp = randn({3, 4, 5}).permute({1, 0, 2});
  Tensor be = randn({1, 3, 5}).expand({4, 3, 5});
  Tensor c2 = bmm(at, bp), c3 = at.bmm(be);
  for (int64_t i = 0; i < 4; ++i) {
    expect_near_all(values(c2[i]), naive_mm(at[i], bp[i]), 1e-5, "bmm strided");
    expect_near_all(values(c3[i]), naive_mm(at[i], be[i]), 1e-5, "bmm broadcast");
  }
  // Many small products run in parallel over the batch.
  Tensor sa = randn({3000, 4, 3}, TensorOptions(kDouble)),
         sb = randn({3000, 3, 4}, TensorOptions(kDouble));
  Tensor sc = sa.bmm(sb);
  for (int64_t i = 0; i < 3000; i += 157)
    expect_near_all(values(sc[i]), naive_mm(sa[i], sb[i]), 1e-12, "bmm small batch");
  Tensor ib = tensor({{{1, 2}, {3, 4}}, {{0, 1}, {1, 0}}});
  EXPECT_EQ(values(ib.bmm(ib)), (std::vector<double>{7, 10, 15, 22, 1, 0, 0, 1}));
  EXPECT_EQ(shape(empty({0, 2, 3}).bmm(empty({0, 3, 4}))), (Shape{0, 2, 4}));
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

TEST(Linalg, Addmm) {
  Tensor m1 = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor m2 = tensor({{1.0, 0.0, 1.0}, {0.0, 1.0, 1.0}});
  Tensor self = tensor({{1.0, 1.0, 1.0}, {2.0, 2.0, 2.0}});
  // m1 @ m2 = [[1,2,3],[3,4,7]]
  EXPECT_EQ(values(self.addmm(m1, m2)), (std::vector<double>{2, 3, 4, 5, 6, 9}));
  EXPECT_EQ(values(addmm(self, m1, m2, 0.5, 2)), (std::vector<double>{2.5, 4.5, 6.5, 7, 9, 15}));
  // self broadcasts: a bias row, a column, a 0-d.
  EXPECT_EQ(values(tensor({10.0, 20.0, 30.0}).addmm(m1, m2)),
            (std::vector<double>{11, 22, 33, 13, 24, 37}));
  EXPECT_EQ(values(tensor({{10.0}, {20.0}}).addmm(m1, m2)),
            (std::vector<double>{11, 12, 13, 23, 24, 27}));
  EXPECT_EQ(values(tensor(1.0).addmm(m1, m2, 1, 1)), (std::vector<double>{2, 3, 4, 4, 5, 8}));
  // beta == 0 ignores self, NaN included.
  Tensor nan = full({2, 3}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(values(nan.addmm(m1, m2, 0, 1)), (std::vector<double>{1, 2, 3, 3, 4, 7}));
  Tensor nan_copy = nan.clone();
  nan_copy.addmm_(m1, m2, 0, 1);
  EXPECT_EQ(values(nan_copy), (std::vector<double>{1, 2, 3, 3, 4, 7}));
  // beta == 0 also on the gemv and dot paths.
  Tensor nan_col = full({2, 1}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(values(nan_col.addmm(m1, tensor({{1.0}, {1.0}}), 0, 1)), (std::vector<double>{3, 7}));
  Tensor nan_row = full({1, 3}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(values(nan_row.addmm(tensor({{1.0, 1.0}}), m2, 0, 1)), (std::vector<double>{1, 1, 2}));
  Tensor nan_one = full({1, 1}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(values(nan_one.addmm(tensor({{1.0, 1.0}}), tensor({{2.0}, {3.0}}), 0, 1)),
            (std::vector<double>{5}));
  // k == 0: the product is zero, the result beta * self.
  Tensor three = full({2, 4}, 3.0);
  EXPECT_EQ(values(three.addmm(ones({2, 0}), ones({0, 4}), 2, 1)), std::vector<double>(8, 6.0));
  EXPECT_EQ(values(nan.addmm(ones({2, 0}), ones({0, 3}), 0, 1)), std::vector<double>(6, 0.0));
  Tensor t2 = full({2, 4}, 3.0);
  t2.t().addmm_(ones({4, 0}), ones({0, 2}), 0.5, 1);
  EXPECT_EQ(values(t2), std::vector<double>(8, 1.5));

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

TEST(Linalg, Outer) {
  Tensor a = tensor({1.0, 2.0}), b = tensor({1.0, 10.0, 100.0});
  Tensor o = a.outer(b);
  EXPECT_EQ(shape(o), (Shape{2, 3}));
  EXPECT_EQ(values(o), (std::vector<double>{1, 10, 100, 2, 20, 200}));
  EXPECT_EQ(outer(tensor({1, 2}), tensor({3.0}, kDouble)).scalar_type(), kDouble);
  EXPECT_EQ(shape(outer(empty({0}), b)), (Shape{0, 3}));
  expect_error([&] { a.outer(ones({3, 1})); }, {"outer", "Expected 1-D argument vec2", "2-D"});
  expect_error([&] { ones({2, 2}).outer(b); }, {"outer", "Expected 1-D argument self", "2-D"});
}

TEST(Linalg, Linear) {
  Tensor w = tensor({{1.0, 0.0, 1.0}, {0.0, 1.0, 0.0}});  // out 2, in 3
  Tensor bias = tensor({10.0, 20.0});
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  EXPECT_EQ(values(linear(x, w, bias)), (std::vector<double>{14, 22, 20, 25}));
  EXPECT_EQ(values(linear(x, w)), (std::vector<double>{4, 2, 10, 5}));
  // 1-d input and 1-d weight.
  Tensor y1 = linear(tensor({1.0, 2.0, 3.0}), w, bias);
  EXPECT_EQ(shape(y1), (Shape{2}));
  EXPECT_EQ(values(y1), (std::vector<double>{14, 22}));
  EXPECT_EQ(linear(tensor({1.0, 2.0, 3.0}), tensor({1.0, 1.0, 1.0})).dim(), 0);
  // Leading dims, contiguous and not.
  Tensor x3 = randn({4, 5, 3});
  Tensor y3 = linear(x3, w, bias);
  EXPECT_EQ(shape(y3), (Shape{4, 5, 2}));
  Tensor y3p = linear(x3.transpose(0, 1), w, bias);
  EXPECT_EQ(shape(y3p), (Shape{5, 4, 2}));
  for (int64_t i = 0; i < 4; ++i) {
    auto want = naive_mm(x3[i], w.t());
    for (size_t j = 0; j < want.size(); ++j) want[j] += j % 2 ? 20.0 : 10.0;
    expect_near_all(values(y3[i]), want, 1e-5, "linear 3d");
    expect_near_all(values(y3p.select(1, i)), want, 1e-5, "linear 3d permuted");
  }
  EXPECT_EQ(shape(linear(empty({0, 7, 3}), w, bias)), (Shape{0, 7, 2}));
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
