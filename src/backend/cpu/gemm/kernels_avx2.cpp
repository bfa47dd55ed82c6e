// The AVX2 + FMA micro-kernel: a 6 x 16 tile of C in 12 ymm accumulators (two vectors of
// the packed B panel and six broadcasts of the packed A panel per step of k). Compiled
// for AVX2 whatever the library's flags; called only when active_isa() allows it.
#include <immintrin.h>

#include "backend/cpu/gemm/gemm.h"

namespace nabla::cpu::gemm {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

__attribute__((target("avx2,fma"))) void kernel_6x16(int64_t kc, const float* ap, const float* bp,
                                                     float* c, int64_t ldc, float alpha, float beta,
                                                     int mr, int nr) {
  __m256 acc0[kMr], acc1[kMr];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) acc0[i] = acc1[i] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const __m256 a = _mm256_broadcast_ss(ap + i);
      acc0[i] = _mm256_fmadd_ps(a, b0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(a, b1, acc1[i]);
    }
    ap += kMr;
    bp += kNr;
  }
  alignas(32) float tile[kMr][kNr];
  const __m256 va = _mm256_set1_ps(alpha);
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    _mm256_store_ps(tile[i], _mm256_mul_ps(va, acc0[i]));
    _mm256_store_ps(tile[i] + 8, _mm256_mul_ps(va, acc1[i]));
  }
  if (mr == kMr && nr == kNr) {
    const __m256 vb = _mm256_set1_ps(beta);
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      __m256 r0 = _mm256_load_ps(tile[i]), r1 = _mm256_load_ps(tile[i] + 8);
      if (beta != 0.0f) {
        r0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row), r0);
        r1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(row + 8), r1);
      }
      _mm256_storeu_ps(row, r0);
      _mm256_storeu_ps(row + 8, r1);
    }
    return;
  }
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j)
      c[i * ldc + j] = beta == 0.0f ? tile[i][j] : tile[i][j] + beta * c[i * ldc + j];
}

}  // namespace

Kernel avx2_kernel() { return {kernel_6x16, kMr, kNr, 6 * 24, 256, 3072, "avx2 6x16"}; }

}  // namespace nabla::cpu::gemm
