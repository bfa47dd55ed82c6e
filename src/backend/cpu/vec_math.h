#pragma once
// Float exp, expm1, log, log1p, tanh, erf and sigmoid written as straight-line
// arithmetic the compiler vectorizes (std::exp and friends are scalar libm calls, 5-20x
// slower over a tensor); tests/backend/test_vec_math.cpp bounds their errors.
// Each handles the whole float range: ±inf, NaN and results that overflow or underflow
// come out as libm's. Doubles use libm (the overloads below), so float64 results — the
// ones the gradient checks compare — are unchanged.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

// Forced inline: called from lambdas inside large kernel switches, where GCC's inlining
// budget would otherwise leave a call per element and no vector loop.
#define NABLA_VEC_INLINE inline __attribute__((always_inline))

namespace nabla::cpu {

/// c0 x^n + c1 x^(n-1) + ... + cn by Horner's rule (highest coefficient first).
template <class T, class... C>
NABLA_VEC_INLINE T horner(T x, T c0, C... cs) {
  T p = c0;
  ((p = p * x + cs), ...);
  return p;
}

/// 2^n as a float for n in [-126, 127], assembled in the exponent bits.
NABLA_VEC_INLINE float pow2i(int32_t n) {
  const int32_t bits = (n + 127) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// exp: x = n ln2 + r with |r| <= ln2 / 2, exp(r) by Cephes' degree-7 polynomial (about
/// 1 ulp); 2^n is applied in two halves so results in the subnormal range or past
/// FLT_MAX (inf) come out right.
NABLA_VEC_INLINE float vec_exp(float x) {
  // The bound first: NaN takes it (max(a, b) is a < b ? b : a), so no NaN reaches the
  // integer conversion below; NaN's own result is chosen at the end.
  const float xc = std::min(88.8f, std::max(-104.0f, x));
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const float r = (xc - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = horner(r, 1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f,
                   1.6666665459e-1f, 5.0000001201e-1f);
  p = p * r * r + r + 1.0f;
  const int32_t ni = static_cast<int32_t>(n), half = ni >> 1;
  const float e = p * pow2i(half) * pow2i(ni - half);
  return x != x ? x : e;
}
NABLA_VEC_INLINE double vec_exp(double x) { return std::exp(x); }

/// tanh: an odd polynomial below |x| = 0.625 (Cephes tanhf's, ~1 ulp), else
/// 1 - 2 / (exp(2|x|) + 1) with the sign of x.
NABLA_VEC_INLINE float vec_tanh(float x) {
  const float a = std::fabs(x), s = x * x;
  const float p = horner(s, -5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f,
                         1.33314422036e-1f, -3.33332819422e-1f);
  const float small = p * s * x + x;
  const float e = vec_exp(2.0f * std::min(a, 10.0f));  // NaN stays NaN through min(a, 10)
  const float big = std::copysign(1.0f - 2.0f / (e + 1.0f), x);
  return a < 0.625f ? (x == 0.0f ? x : small) : big;  // -0 stays -0
}
NABLA_VEC_INLINE double vec_tanh(double x) { return std::tanh(x); }

/// erf: below |x| = 1 its Taylor series to x^21 (truncation error under 2e-9); above,
/// Abramowitz & Stegun 7.1.26 (absolute error at most 1.5e-7, about 2 ulp of erf there).
NABLA_VEC_INLINE float vec_erf(float x) {
  const float a = std::fabs(x), s = x * x;
  const float p = horner(s, 1.4807192815879218e-08f, -1.6365844691234924e-07f,
                         1.6462114365889246e-06f, -1.492565035840625e-05f, 1.2055332981789664e-04f,
                         -8.548327023450852e-04f, 5.223977625442188e-03f, -2.6866170645131252e-02f,
                         1.1283791670955126e-01f, -3.7612638903183754e-01f, 1.1283791670955126f);
  const float small = x * p;
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  const float q =
      horner(t, 1.061405429f, -1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f) * t;
  const float big = std::copysign(1.0f - q * vec_exp(-s), x);
  return a < 1.0f ? small : big;
}
NABLA_VEC_INLINE double vec_erf(double x) { return std::erf(x); }

/// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by Cephes logf's polynomial in
/// m - 1 (about 1 ulp); subnormals are scaled into the normal range first. 0 gives -inf,
/// negatives NaN, +inf and NaN themselves.
NABLA_VEC_INLINE float vec_log(float x) {
  const bool sub = x < 1.17549435e-38f;  // subnormal (or 0, negative: fixed up below)
  const float xs = sub ? x * 8388608.0f : x;
  int32_t bits;
  std::memcpy(&bits, &xs, sizeof bits);
  float e = static_cast<float>(((bits >> 23) & 0xff) - 126) - (sub ? 23.0f : 0.0f);
  bits = (bits & 0x007fffff) | 0x3f000000;  // mantissa in [0.5, 1)
  float m;
  std::memcpy(&m, &bits, sizeof m);
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1.0f : e;
  m = low ? m + m - 1.0f : m - 1.0f;
  const float z = m * m;
  float y = horner(m, 7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f, -1.2420140846e-1f,
                   1.4249322787e-1f, -1.6668057665e-1f, 2.0000714765e-1f, -2.4999993993e-1f,
                   3.3333331174e-1f);
  y = y * m * z - 2.12194440e-4f * e - 0.5f * z;
  const float r = (m + y) + 0.693359375f * e;
  const float special = x == 0.0f ? -INFINITY : (x < 0.0f ? NAN : x);  // ±0, negative, inf, NaN
  return (x > 0.0f && x < INFINITY) ? r : special;
}
NABLA_VEC_INLINE double vec_log(double x) { return std::log(x); }

/// log1p: log(u) * x / (u - 1) with u = 1 + x, which cancels the rounding of u (exact
/// where u == 1: the result is x).
NABLA_VEC_INLINE float vec_log1p(float x) {
  const float u = 1.0f + x;
  const float r = u == 1.0f ? x : vec_log(u) * (x / (u - 1.0f));  // x / (u - 1) first: no overflow
  return x == INFINITY ? x : r;
}
NABLA_VEC_INLINE double vec_log1p(double x) { return std::log1p(x); }

/// expm1: its Taylor series to x^9 below |x| = 0.5 (truncation error under 1e-9
/// relative), where exp(x) - 1 would lose digits; exp(x) - 1 above.
NABLA_VEC_INLINE float vec_expm1(float x) {
  const float p = horner(x, 2.7557319223985893e-06f, 2.48015873015873e-05f, 1.984126984126984e-04f,
                         1.388888888888889e-03f, 8.333333333333333e-03f, 4.1666666666666664e-02f,
                         1.6666666666666666e-01f, 0.5f);
  const float small = p * x * x + x;
  return std::fabs(x) < 0.5f ? (x == 0.0f ? x : small) : vec_exp(x) - 1.0f;  // -0 stays -0
}
NABLA_VEC_INLINE double vec_expm1(double x) { return std::expm1(x); }

/// sigmoid: 1 / (1 + e) for x >= 0 and e / (1 + e) below, with e = exp(-|x|) <= 1, so
/// nothing overflows and tiny results keep their digits.
NABLA_VEC_INLINE float vec_sigmoid(float x) {
  const float e = vec_exp(-std::fabs(x)), r = 1.0f / (1.0f + e);
  return x >= 0.0f ? r : e * r;
}
NABLA_VEC_INLINE double vec_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace nabla::cpu
