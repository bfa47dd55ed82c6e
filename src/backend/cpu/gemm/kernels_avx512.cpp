// The AVX-512 micro-kernel: a 12 x 32 tile of C in 24 zmm accumulators. Each step of k
// loads two vectors of the packed B panel and broadcasts 12 values of the packed A panel
// (fused into the FMAs as embedded broadcasts). Compiled for AVX-512 whatever the
// library's flags, and only called when active_isa() says the CPU has it.
#include <immintrin.h>

#include "backend/cpu/gemm/gemm.h"

namespace nabla::cpu::gemm {
namespace {

constexpr int kMr = 12;
constexpr int kNr = 32;

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))) void kernel_12x32(
    int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, float alpha, float beta,
    int mr, int nr) {
  __m512 acc0[kMr], acc1[kMr];
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(bp), b1 = _mm512_load_ps(bp + 16);
#pragma GCC unroll 12
    for (int i = 0; i < kMr; ++i) {
      const __m512 a = _mm512_set1_ps(ap[i]);
      acc0[i] = _mm512_fmadd_ps(a, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(a, b1, acc1[i]);
    }
    ap += kMr;
    bp += kNr;
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  const __mmask16 m0 = nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1);
  const __mmask16 m1 = nr >= 32  ? __mmask16(0xFFFF)
                       : nr > 16 ? __mmask16((1u << (nr - 16)) - 1)
                                 : __mmask16(0);
#pragma GCC unroll 12
  for (int i = 0; i < kMr; ++i) {
    if (i >= mr) break;
    float* row = c + i * ldc;
    __m512 r0 = _mm512_mul_ps(va, acc0[i]), r1 = _mm512_mul_ps(va, acc1[i]);
    if (beta != 0.0f) {
      r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, row), r0);
      r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, row + 16), r1);
    }
    _mm512_mask_storeu_ps(row, m0, r0);
    _mm512_mask_storeu_ps(row + 16, m1, r1);
  }
}

}  // namespace

Kernel avx512_kernel() { return {kernel_12x32, kMr, kNr, 12 * 16, 384, 3072, "avx512 12x32"}; }

}  // namespace nabla::cpu::gemm
