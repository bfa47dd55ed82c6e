// nabla's GEMM on every ISA path this CPU supports, and the oneDNN route that sgemm()
// takes when built with it, against a float64 reference: shapes around the micro-kernel
// and block edges, transposed and strided operands (every other element: the oneDNN
// route's fallback), alpha/beta (beta == 0 must not read C), one and two threads.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "backend/cpu/gemm/gemm.h"
#include "backend/cpu/onednn/onednn.h"
#include "nabla/backend/isa.h"
#include "test_util.h"

namespace {

using nabla::Isa;
using Gemm = nabla::testing::IsaPathTest;  // also run under NABLA_ISA

std::vector<Isa> paths() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512})
    if (isa <= nabla::supported_isa()) out.push_back(isa);
  return out;
}

struct Case {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
  int64_t gap = 1;  // A's elements along its contiguous dim are `gap` apart
};

using Runner = std::function<void(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                  int64_t rsa, int64_t csa, const float* b, int64_t rsb,
                                  int64_t csb, float beta, float* c, int64_t ldc)>;

void check(const char* path, const Runner& run, const Case& cs) {
  std::mt19937 rng(static_cast<unsigned>(cs.m * 131 + cs.n * 17 + cs.k));
  std::uniform_real_distribution<float> u(-1, 1);
  // A is m x k stored as [m][k + 3] (or transposed [k][m + 3]): strided rows.
  const int64_t lda = (cs.ta ? cs.m : cs.k) * cs.gap + 3, ldb = (cs.tb ? cs.k : cs.n) + 2,
                ldc = cs.n + 5;
  std::vector<float> a((cs.ta ? cs.k : cs.m) * lda), b((cs.tb ? cs.n : cs.k) * ldb), c(cs.m * ldc);
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);
  for (auto& v : c) v = cs.beta == 0 ? std::nanf("") : u(rng);
  const std::vector<float> c0 = c;
  const int64_t rsa = cs.ta ? cs.gap : lda, csa = cs.ta ? lda : cs.gap, rsb = cs.tb ? 1 : ldb,
                csb = cs.tb ? ldb : 1;
  run(cs.m, cs.n, cs.k, cs.alpha, a.data(), rsa, csa, b.data(), rsb, csb, cs.beta, c.data(), ldc);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < cs.k; ++p)
        want += double(a[i * rsa + p * csa]) * b[p * rsb + j * csb];
      want = cs.alpha * want + (cs.beta == 0 ? 0.0 : cs.beta * double(c0[i * ldc + j]));
      ASSERT_NEAR(c[i * ldc + j], want, 1e-4 * (1 + std::sqrt(double(cs.k))))
          << path << " m " << cs.m << " n " << cs.n << " k " << cs.k << " ta " << cs.ta << " tb "
          << cs.tb << " at (" << i << ", " << j << ")";
    }
  // Padding columns of C stay untouched.
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = cs.n; j < ldc; ++j)
      if (!std::isnan(c0[i * ldc + j])) {
        ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]);
      }
}

const Case kCases[] = {
    {1, 1, 1, false, false, 1, 0},       {5, 7, 3, false, false, 1, 0},
    {12, 32, 16, false, false, 1, 0},    {13, 33, 17, true, false, 0.5, 2},
    {11, 31, 400, false, true, 1, 1},    {200, 70, 385, true, true, -1, 0.5},
    {64, 96, 288, false, false, 1, 0},   {3, 300, 20, false, true, 2, 0},
    {257, 5, 9, true, false, 1, 0},      {0, 4, 4, false, false, 1, 0},
    {4, 4, 0, false, false, 1, 0.5},     {150, 3100, 7, false, false, 1, 0},
    {40, 90, 70, false, false, 1, 0, 2}, {70, 40, 300, true, true, 1, 1, 2},
    {1, 50, 30, false, false, 1, 0},     {60, 1, 30, false, true, 1, 0.5},
};

TEST_F(Gemm, EveryPathAgreesWithTheReference) {
  using namespace std::placeholders;
  for (Isa isa : paths())
    for (int threads : {1, 2})
      for (const Case& cs : kCases)
        check(nabla::isa_name(isa),
              std::bind(nabla::cpu::gemm::sgemm_on, isa, threads, _1, _2, _3, _4, _5, _6, _7, _8,
                        _9, _10, _11, _12, _13),
              cs);
}

TEST_F(Gemm, OneDnnRouteAgreesWithTheReference) {
  if (!nabla::cpu::onednn::available()) GTEST_SKIP() << nabla::cpu::onednn::describe();
  using namespace std::placeholders;
  for (int threads : {1, 2})
    for (const Case& cs : kCases)
      check("oneDNN",
            std::bind(nabla::cpu::gemm::sgemm_onednn, threads, _1, _2, _3, _4, _5, _6, _7, _8, _9,
                      _10, _11, _12, _13),
            cs);
}

TEST_F(Gemm, ProductsTakeOneDnnWhenBuiltWithIt) {
  // A build with libdnnl-dev must route float32 products through it (the benchmarks'
  // choice), except under NABLA_ISA=scalar.
  const bool expected = NABLA_EXPECT_DNNL && nabla::active_isa() != Isa::Scalar;
  EXPECT_EQ(nabla::cpu::onednn::available(), expected);
  EXPECT_EQ(nabla::cpu::gemm::describe().find("dnnl_sgemm") != std::string::npos, expected)
      << nabla::cpu::gemm::describe();
}

TEST_F(Gemm, TheActivePathIsTheBestTheCpuSupports) {
  // Without NABLA_ISA the kernels must take the CPU's best compiled path (never a slower
  // one silently); CI runs the suite again with NABLA_ISA set to each lower path. A build
  // with every path (NABLA_KERNEL_ISAS=all, the default) takes the CPU's best.
  if (std::getenv("NABLA_ISA") == nullptr) {
    int best = static_cast<int>(nabla::supported_isa());
    while (!nabla::isa_compiled(static_cast<Isa>(best))) --best;
    EXPECT_EQ(nabla::active_isa(), static_cast<Isa>(best));
    if (nabla::isa_compiled(Isa::Avx512) && nabla::isa_compiled(Isa::Avx2) &&
        nabla::isa_compiled(Isa::Scalar)) {
      EXPECT_EQ(nabla::active_isa(), nabla::supported_isa());
    }
  }
  std::cout << nabla::show_config();
}

}  // namespace
