// Golden-string tests for tensor printing (format rules at the top of src/ops/print.cpp).
#include <gtest/gtest.h>
#include <nabla/nabla.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

using namespace nabla;

namespace {

std::string printed(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

std::string trailer(const std::string& shape, const std::string& dtype) {
  return " Tensor(shape=[" + shape + "], dtype=" + dtype + ", device=cpu)";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Print, ZeroDim) {
  EXPECT_EQ(printed(scalar_tensor(1.5)), "(1.5)\n" + trailer("", "float32"));
  EXPECT_EQ(printed(scalar_tensor(-0.25)), "(-0.25)\n" + trailer("", "float32"));
  EXPECT_EQ(printed(scalar_tensor(1.0)), "(1)\n" + trailer("", "float32"));
  EXPECT_EQ(printed(tensor(7)), "(7)\n" + trailer("", "int64"));
  EXPECT_EQ(printed(tensor(true)), "(true)\n" + trailer("", "bool"));
  EXPECT_EQ(printed(scalar_tensor(1e10, kDouble)), "(1.0000e+10)\n" + trailer("", "float64"));
  EXPECT_EQ(printed(scalar_tensor(NAN)), "(nan)\n" + trailer("", "float32"));
  // A 0-d view into a larger tensor prints its own element.
  EXPECT_EQ(printed(arange(5)[3]), "(3)\n" + trailer("", "int64"));
}

TEST(Print, OneDim) {
  EXPECT_EQ(printed(tensor({1, 2, 3})), "[1, 2, 3]\n" + trailer("3", "int64"));
  EXPECT_EQ(printed(tensor({1.5, -2.0, 3.25})),
            "[1.5000, -2.0000, 3.2500]\n" + trailer("3", "float32"));
  EXPECT_EQ(printed(tensor({1.0, 2.0, 3.0})), "[1, 2, 3]\n" + trailer("3", "float32"));
  EXPECT_EQ(printed(tensor({-0.0, 1.0})), "[-0, 1]\n" + trailer("2", "float32"));  // sign kept
  EXPECT_EQ(printed(tensor({-5})), "[-5]\n" + trailer("1", "int64"));
}

TEST(Print, TwoDimIntegers) {
  EXPECT_EQ(printed(tensor({{1, 2, 3}, {4, 5, 6}})),
            "[[1, 2, 3],\n [4, 5, 6]]\n" + trailer("2, 3", "int64"));
  // Right-aligned to the widest element, minus sign included.
  EXPECT_EQ(printed(tensor({{1, -20}, {300, 4}})),
            "[[  1, -20],\n [300,   4]]\n" + trailer("2, 2", "int64"));
  EXPECT_EQ(printed(tensor({{7}})), "[[7]]\n" + trailer("1, 1", "int64"));
}

TEST(Print, TwoDimFloats) {
  EXPECT_EQ(printed(tensor({{0.5, -1.25}, {2.0, 10.0}})),
            "[[ 0.5000, -1.2500],\n [ 2.0000, 10.0000]]\n" + trailer("2, 2", "float32"));
  EXPECT_EQ(printed(tensor({{-1.0, 0.0}, {12.0, 3.0}})),
            "[[-1,  0],\n [12,  3]]\n" + trailer("2, 2", "float32"));
}

TEST(Print, GoldenFourDimExample) {
  // The example of , byte for byte.
  const std::string expected =
      "(0,0,.,.) = \n"
      "     0       1       2\n"
      "     3       4       5\n"
      "(0,1,.,.) = \n"
      "     6       7       8\n"
      "     9      10      11\n"
      "(0,2,.,.) = \n"
      "    12      13      14\n"
      "    15      16      17\n"
      "(1,0,.,.) = \n"
      "    18      19      20\n"
      "    21      22      23\n"
      "(1,1,.,.) = \n"
      "    24      25      26\n"
      "    27      28      29\n"
      "(1,2,.,.) = \n"
      "    30      31      32\n"
      "    33      34      35\n"
      "\n"
      " Tensor(shape=[2, 3, 2, 3], dtype=float32, device=cpu)";
  Tensor t = arange(36, kFloat).reshape({2, 3, 2, 3});
  EXPECT_EQ(printed(t), expected);
  EXPECT_EQ(t.toString(), expected);
}

TEST(Print, ThreeDim) {
  EXPECT_EQ(printed(arange(12).reshape({2, 2, 3})),
            "(0,.,.) = \n"
            "     0       1       2\n"
            "     3       4       5\n"
            "(1,.,.) = \n"
            "     6       7       8\n"
            "     9      10      11\n"
            "\n" +
                trailer("2, 2, 3", "int64"));
  // Cells grow past 6 characters to fit the widest element.
  EXPECT_EQ(printed(full({1, 1, 2}, 1234567.5, kDouble)),
            "(0,.,.) = \n1234567.5000  1234567.5000\n\n" + trailer("1, 1, 2", "float64"));
  EXPECT_EQ(printed(tensor({-1.5, 2.25}).reshape({1, 2, 1})),
            "(0,.,.) = \n-1.5000\n 2.2500\n\n" + trailer("1, 2, 1", "float32"));
}

TEST(Print, NonContiguous) {
  Tensor t = arange(6).reshape({2, 3}).t();
  ASSERT_FALSE(t.is_contiguous());
  EXPECT_EQ(printed(t), "[[0, 3],\n [1, 4],\n [2, 5]]\n" + trailer("3, 2", "int64"));
  EXPECT_EQ(printed(arange(10).slice(0, 1, 10, 3)), "[1, 4, 7]\n" + trailer("3", "int64"));
  EXPECT_EQ(printed(tensor({1, 2}).expand({2, 2})),
            "[[1, 2],\n [1, 2]]\n" + trailer("2, 2", "int64"));
  Tensor p = arange(12, kFloat).reshape({2, 2, 3}).transpose(0, 2);  // shape [3, 2, 2]
  EXPECT_EQ(printed(p),
            "(0,.,.) = \n"
            "     0       6\n"
            "     3       9\n"
            "(1,.,.) = \n"
            "     1       7\n"
            "     4      10\n"
            "(2,.,.) = \n"
            "     2       8\n"
            "     5      11\n"
            "\n" +
                trailer("3, 2, 2", "float32"));
}

TEST(Print, Bool) {
  EXPECT_EQ(printed(tensor({true, false, true})), "[true, false, true]\n" + trailer("3", "bool"));
  EXPECT_EQ(printed(tensor({{true, false}, {false, true}})),
            "[[ true, false],\n [false,  true]]\n" + trailer("2, 2", "bool"));
}

TEST(Print, IntegerDtypes) {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(printed(tensor({lo, hi})),
            "[-9223372036854775808, 9223372036854775807]\n" + trailer("2", "int64"));
  EXPECT_EQ(printed(arange(3, kByte) + 253),  // uint8 prints numbers, not characters
            "[253, 254, 255]\n" + trailer("3", "uint8"));
  EXPECT_EQ(printed(arange(-2, 1, kInt)), "[-2, -1, 0]\n" + trailer("3", "int32"));
  // int8 prints numbers, not characters.
  EXPECT_EQ(printed(tensor({-128, 65, 127}).to(kChar)), "[-128, 65, 127]\n" + trailer("3", "int8"));
  EXPECT_EQ(printed(tensor({-32768, 7}).to(kShort)), "[-32768, 7]\n" + trailer("2", "int16"));
}

TEST(Print, Float64) {
  EXPECT_EQ(printed(tensor({0.1, 0.2}, kDouble)), "[0.1000, 0.2000]\n" + trailer("2", "float64"));
  EXPECT_EQ(printed(tensor({3.0, 4.0}, kDouble)), "[3, 4]\n" + trailer("2", "float64"));
}

TEST(Print, NanAndInf) {
  // NAN and INFINITY are floats: a braced list keeps one literal type (as LibTorch's).
  const double kNan = NAN, kInf = INFINITY;
  EXPECT_EQ(printed(tensor({1.0, kNan, kInf, -kInf})),
            "[1, nan, inf, -inf]\n" + trailer("4", "float32"));
  EXPECT_EQ(printed(tensor({0.5, kNan})), "[0.5000, nan]\n" + trailer("2", "float32"));
  EXPECT_EQ(printed(tensor({kNan, kNan})), "[nan, nan]\n" + trailer("2", "float32"));
  EXPECT_EQ(printed(tensor({{kInf, 1.0}, {2.0, -kInf}})),
            "[[ inf,    1],\n [   2, -inf]]\n" + trailer("2, 2", "float32"));
}

TEST(Print, Scientific) {
  EXPECT_EQ(printed(tensor({1.0, 123456789.0}, kDouble)),
            "[1.0000e+00, 1.2346e+08]\n" + trailer("2", "float64"));
  EXPECT_EQ(printed(tensor({0.0, 1e-5, 1.0})),
            "[0.0000e+00, 1.0000e-05, 1.0000e+00]\n" + trailer("3", "float32"));
  EXPECT_EQ(printed(tensor({1e10}, kDouble)), "[1.0000e+10]\n" + trailer("1", "float64"));
  EXPECT_EQ(
      printed(tensor({{-2e-5, 3.0}, {1.0, 0.5}})),
      "[[-2.0000e-05,  3.0000e+00],\n [ 1.0000e+00,  5.0000e-01]]\n" + trailer("2, 2", "float32"));
  // Just below the thresholds stays fixed / integral.
  EXPECT_EQ(printed(tensor({99999999.0}, kDouble)), "[99999999]\n" + trailer("1", "float64"));
  EXPECT_EQ(printed(tensor({1e-4, 1.0}, kDouble)), "[0.0001, 1.0000]\n" + trailer("2", "float64"));
}

TEST(Print, SummarizeOneDim) {
  EXPECT_EQ(printed(arange(2000)), "[0, 1, 2, ..., 1997, 1998, 1999]\n" + trailer("2000", "int64"));
  // At the threshold nothing is elided.
  std::string s = printed(arange(1000));
  EXPECT_EQ(s.find("..."), std::string::npos);
  EXPECT_EQ(s.substr(0, 10), "[0, 1, 2, ");
  EXPECT_NE(s.find(", 998, 999]\n"), std::string::npos);
  // The float mode comes from the shown elements only.
  Tensor f = arange(2000, kFloat);
  f.data_ptr<float>()[1000] = 0.5f;
  EXPECT_EQ(printed(f), "[0, 1, 2, ..., 1997, 1998, 1999]\n" + trailer("2000", "float32"));
}

TEST(Print, SummarizeTwoDim) {
  EXPECT_EQ(printed(arange(10000).reshape({100, 100})),
            "[[   0,    1,    2, ...,   97,   98,   99],\n"
            " [ 100,  101,  102, ...,  197,  198,  199],\n"
            " [ 200,  201,  202, ...,  297,  298,  299],\n"
            " ...,\n"
            " [9700, 9701, 9702, ..., 9797, 9798, 9799],\n"
            " [9800, 9801, 9802, ..., 9897, 9898, 9899],\n"
            " [9900, 9901, 9902, ..., 9997, 9998, 9999]]\n" +
                trailer("100, 100", "int64"));
  // Only dims longer than 6 are cut.
  EXPECT_EQ(printed(arange(2000).reshape({2, 1000})),
            "[[   0,    1,    2, ...,  997,  998,  999],\n"
            " [1000, 1001, 1002, ..., 1997, 1998, 1999]]\n" +
                trailer("2, 1000", "int64"));
}

TEST(Print, SummarizeThreeDim) {
  std::string s = printed(arange(2000).reshape({10, 2, 100}));
  const std::string first_slice =
      "(0,.,.) = \n"
      "     0       1       2     ...      97      98      99\n"
      "   100     101     102     ...     197     198     199\n"
      "(1,.,.) = \n";
  EXPECT_EQ(s.substr(0, first_slice.size()), first_slice);
  EXPECT_NE(s.find("\n...\n(7,.,.) = \n"), std::string::npos) << s;
  EXPECT_EQ(count(s, ".,.) = "), 6u);
  EXPECT_NE(s.find("  1997    1998    1999\n\n" + trailer("10, 2, 100", "int64")),
            std::string::npos)
      << s;
  // Rows of a slice are cut too; the gap row is a cell-aligned "...".
  std::string r = printed(arange(2000).reshape({2, 1000, 1}));
  EXPECT_NE(r.find("(0,.,.) = \n     0\n     1\n     2\n   ...\n   997\n"), std::string::npos) << r;
  // Skipped slices of each leading dim collapse to one "..." line per gap.
  std::string q = printed(arange(1200).reshape({10, 10, 3, 4}));
  EXPECT_EQ(count(q, ".,.) = "), 36u);
  EXPECT_EQ(count(q, "\n...\n"), 7u);  // 6 shown dim-0 indices with a dim-1 gap, plus 1
  EXPECT_NE(q.find("    35\n...\n(0,7,.,.) = \n"), std::string::npos) << q;
  EXPECT_NE(q.find("   359\n...\n(7,0,.,.) = \n"), std::string::npos) << q;
  // 6^4 = 1296 elements, but no dim is longer than 6: nothing elided.
  EXPECT_EQ(printed(zeros({6, 6, 6, 6})).find("..."), std::string::npos);
}

TEST(Print, Empty) {
  EXPECT_EQ(printed(empty({0})), "[]\n" + trailer("0", "float32"));
  EXPECT_EQ(printed(zeros({2, 0, 3}, kInt64)), "[]\n" + trailer("2, 0, 3", "int64"));
  EXPECT_EQ(printed(arange(6).reshape({2, 3}).slice(1, 1, 1)), "[]\n" + trailer("2, 0", "int64"));
}

TEST(Print, Undefined) {
  EXPECT_EQ(printed(Tensor()), "[ Tensor (undefined) ]");
  EXPECT_EQ(Tensor().toString(), "[ Tensor (undefined) ]");
}

TEST(Print, ToStringAndPrintMatchOperator) {
  for (const Tensor& t : {scalar_tensor(2.5), tensor({1, 2}), arange(24.0).reshape({2, 3, 4}),
                          arange(3000), Tensor()}) {
    EXPECT_EQ(t.toString(), printed(t));
    ::testing::internal::CaptureStdout();
    t.print();
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), printed(t) + "\n");
  }
  // A width left on the stream does not pad the tensor text.
  std::ostringstream os;
  os << std::setw(80) << tensor({1, 2});
  EXPECT_EQ(os.str(), printed(tensor({1, 2})));
}
