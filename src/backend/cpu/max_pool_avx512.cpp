// 2x2 / stride-2 max pooling with AVX-512: 16 outputs of a row at a time (masked at the
// row's end, so narrow images need no scalar tail). Each row pair is split into its even
// and odd columns by two-source permutes, the four window values are compared with
// branch-free masked selects, and the winner's position is built from its window slot.
// Compiled for AVX-512 whatever the library's flags; called only on CPUs that have it.
#include "backend/cpu/max_pool_avx512.h"

#include <immintrin.h>

#include <algorithm>

// GCC 12's AVX-512 headers start some intrinsics from an "undefined" register, which
// -Wmaybe-uninitialized reports when inlined with masks; the values are fully defined.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace nabla::cpu {

namespace {

#define NABLA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

// take = cand > best, or cand is NaN while best is not (NaN wins; the first NaN stays).
NABLA_AVX512 inline __mmask16 beats(__m512 cand, __m512 best) {
  return _mm512_cmp_ps_mask(cand, best, _CMP_GT_OQ) |
         (_mm512_cmp_ps_mask(cand, cand, _CMP_UNORD_Q) &
          _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q));
}

}  // namespace

NABLA_AVX512 void max_pool_2x2_avx512(float* values, int64_t* indices, const float* img, int64_t w,
                                      int64_t oh, int64_t ow) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i one = _mm512_set1_epi32(1), wv = _mm512_set1_epi32(static_cast<int>(w));
  for (int64_t y = 0; y < oh; ++y) {
    const float* r0 = img + 2 * y * w;
    const float* r1 = r0 + w;
    for (int64_t x = 0; x < ow; x += 16) {
      const int64_t n = std::min<int64_t>(16, ow - x);
      const __mmask16 out_mask = static_cast<__mmask16>((1u << n) - 1);
      // Columns 2x .. 2x + 2n - 1 of both rows, in two masked halves of 16.
      const int64_t cols = 2 * n;
      const __mmask16 lo = static_cast<__mmask16>(cols >= 16 ? 0xFFFF : (1u << cols) - 1);
      const __mmask16 hi = static_cast<__mmask16>(cols <= 16 ? 0 : (1u << (cols - 16)) - 1);
      const __m512 a0 = _mm512_maskz_loadu_ps(lo, r0 + 2 * x),
                   a1 = _mm512_maskz_loadu_ps(hi, r0 + 2 * x + 16);
      const __m512 b0 = _mm512_maskz_loadu_ps(lo, r1 + 2 * x),
                   b1 = _mm512_maskz_loadu_ps(hi, r1 + 2 * x + 16);
      __m512 best = _mm512_permutex2var_ps(a0, even, a1);
      __m512i slot = _mm512_setzero_si512();  // 0 1 / 2 3 in window order
      const __m512 cand[3] = {_mm512_permutex2var_ps(a0, odd, a1),
                              _mm512_permutex2var_ps(b0, even, b1),
                              _mm512_permutex2var_ps(b0, odd, b1)};
      for (int c = 0; c < 3; ++c) {
        const __mmask16 take = beats(cand[c], best);
        best = _mm512_mask_mov_ps(best, take, cand[c]);
        slot = _mm512_mask_mov_epi32(slot, take, _mm512_set1_epi32(c + 1));
      }
      _mm512_mask_storeu_ps(values + y * ow + x, out_mask, best);
      // position = 2y w + 2 (x + lane) + (slot & 1) + (slot >> 1) w
      __m512i at = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(2 * y * w + 2 * x)), even);
      at = _mm512_add_epi32(at, _mm512_and_si512(slot, one));
      at = _mm512_add_epi32(at, _mm512_mullo_epi32(_mm512_srli_epi32(slot, 1), wv));
      const __mmask8 m0 = static_cast<__mmask8>(out_mask & 0xFF),
                     m1 = static_cast<__mmask8>(out_mask >> 8);
      _mm512_mask_storeu_epi64(indices + y * ow + x, m0,
                               _mm512_cvtepi32_epi64(_mm512_castsi512_si256(at)));
      if (m1)
        _mm512_mask_storeu_epi64(indices + y * ow + x + 8, m1,
                                 _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(at, 1)));
    }
  }
}

}  // namespace nabla::cpu
