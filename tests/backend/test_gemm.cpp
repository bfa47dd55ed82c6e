// nabla's GEMM on every ISA path this CPU supports, against a float64 reference:
// shapes around the micro-kernel and block edges, transposed and strided operands,
// alpha/beta (beta == 0 must not read C), one and two threads.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backend/cpu/gemm/gemm.h"
#include "nabla/backend/isa.h"

namespace {

using nabla::Isa;

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
};

void check(Isa isa, int threads, const Case& cs) {
  std::mt19937 rng(static_cast<unsigned>(cs.m * 131 + cs.n * 17 + cs.k));
  std::uniform_real_distribution<float> u(-1, 1);
  // A is m x k stored as [m][k + 3] (or transposed [k][m + 3]): strided rows.
  const int64_t lda = (cs.ta ? cs.m : cs.k) + 3, ldb = (cs.tb ? cs.k : cs.n) + 2, ldc = cs.n + 5;
  std::vector<float> a((cs.ta ? cs.k : cs.m) * lda), b((cs.tb ? cs.n : cs.k) * ldb), c(cs.m * ldc);
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);
  for (auto& v : c) v = cs.beta == 0 ? std::nanf("") : u(rng);
  const std::vector<float> c0 = c;
  const int64_t rsa = cs.ta ? 1 : lda, csa = cs.ta ? lda : 1, rsb = cs.tb ? 1 : ldb,
                csb = cs.tb ? ldb : 1;
  nabla::cpu::gemm::sgemm_on(isa, threads, cs.m, cs.n, cs.k, cs.alpha, a.data(), rsa, csa, b.data(),
                             rsb, csb, cs.beta, c.data(), ldc);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < cs.k; ++p)
        want += double(a[i * rsa + p * csa]) * b[p * rsb + j * csb];
      want = cs.alpha * want + (cs.beta == 0 ? 0.0 : cs.beta * double(c0[i * ldc + j]));
      ASSERT_NEAR(c[i * ldc + j], want, 1e-4 * (1 + std::sqrt(double(cs.k))))
          << nabla::isa_name(isa) << " threads " << threads << " m " << cs.m << " n " << cs.n
          << " k " << cs.k << " ta " << cs.ta << " tb " << cs.tb << " at (" << i << ", " << j
          << ")";
    }
  // Padding columns of C stay untouched.
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = cs.n; j < ldc; ++j)
      if (!std::isnan(c0[i * ldc + j])) {
        ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]);
      }
}

TEST(Gemm, EveryPathAgreesWithTheReference) {
  const Case cases[] = {
      {1, 1, 1, false, false, 1, 0},     {5, 7, 3, false, false, 1, 0},
      {12, 32, 16, false, false, 1, 0},  {13, 33, 17, true, false, 0.5, 2},
      {11, 31, 400, false, true, 1, 1},  {200, 70, 385, true, true, -1, 0.5},
      {64, 96, 288, false, false, 1, 0}, {3, 300, 20, false, true, 2, 0},
      {257, 5, 9, true, false, 1, 0},    {0, 4, 4, false, false, 1, 0},
      {4, 4, 0, false, false, 1, 0.5},   {150, 3100, 7, false, false, 1, 0},
  };
  for (Isa isa : paths())
    for (int threads : {1, 2})
      for (const Case& cs : cases) check(isa, threads, cs);
}

TEST(Gemm, TheActivePathIsTheBestTheCpuSupports) {
  // Without NABLA_ISA the kernels must take the CPU's best path (never a slower one
  // silently); CI runs the suite again with NABLA_ISA set to each lower path.
  if (std::getenv("NABLA_ISA") == nullptr) {
    EXPECT_EQ(nabla::active_isa(), nabla::supported_isa());
  }
  std::cout << nabla::show_config();
}

}  // namespace
