#pragma once
// Note [Float math in double]
// sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, pow, log2, log10, exp2 and fmod of
// floats, written as
// straight-line arithmetic the compiler vectorizes, evaluated in double: the arguments
// are widened (exactly), reduced and fed to polynomials accurate to about 1e-12, and the
// result is rounded to float once. So results are within 1 ulp (correctly rounded but
// for near-ties) without a float-specific error analysis; tests/backend/test_vec_math.cpp
// sweeps every binade. On AVX-512 this runs as fast as LibTorch's SLEEF float code.
//
// Each function has a fast range; `*_slow(x)` says an argument is outside it (huge sin
// arguments, zero or infinite atan2 pairs, zero pow bases, fmod quotients past 2^24, NaN
// and inf where the fast code would not give libm's answer); the predicates combine their
// tests with | and & (no branches), so their loops vectorize too. The kernels
// (run_unary_checked / run_binary_checked in kernels/elementwise.cpp) recompute those
// elements with libm; for other arguments the fast value is defined and finite-safe.
// The double overloads are libm, and never slow.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "backend/cpu/vec_math.h"

namespace nabla::cpu {

namespace wide {

constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52: x + it rounds x to an integer
constexpr int64_t kRoundMagicBits = 0x4338000000000000;
constexpr double kPi = 3.14159265358979323846, kPio2 = 1.57079632679489661923,
                 kPio4 = 0.78539816339744830962;

NABLA_VEC_INLINE int64_t bits_of(double x) {
  int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
NABLA_VEC_INLINE double from_bits(int64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// The nearest integer n to x and its low bits (through the rounding constant).
struct Rounded {
  double n;
  int64_t bits;  // n mod 2^k in the low bits
};
NABLA_VEC_INLINE Rounded round_bits(double x) {
  const double t = x + kRoundMagic;
  return {t - kRoundMagic, bits_of(t)};
}
/// exp(x) for |x| <= 200 (clamped there; NaN stays NaN): x = n ln2 + r, |r| <= ln2/2,
/// Taylor to r^11 (relative error 6e-15), 2^n assembled in the exponent bits. All integer
/// work is on 64-bit lanes, so it vectorizes on AVX2 as on AVX-512.
NABLA_VEC_INLINE double exp(double x) {
  const double xc = std::min(std::max(x, -200.0), 200.0);
  const auto [n, bits] = round_bits(xc * 1.4426950408889634);
  const double r = (xc - n * 0.6931471803691238) - n * 1.9082149292705877e-10;
  const double p = horner(r, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320, 1.0 / 5040,
                          1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0);
  return p * from_bits((bits - kRoundMagicBits + 1023) << 52);
}

/// log(x) of a positive float (subnormals included: they are normal doubles): x = m 2^e
/// with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.172, to
/// s^15 (relative error 3e-14).
NABLA_VEC_INLINE double log_of_positive(float xf) {
  const int64_t b = bits_of(static_cast<double>(xf));
  int64_t e = (b >> 52) - 1023;
  double m = from_bits((b & 0x000fffffffffffff) | 0x3ff0000000000000);  // [1, 2)
  const bool high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  e = high ? e + 1 : e;
  const double ed = from_bits(kRoundMagicBits + e) - kRoundMagic;  // exact int64 -> double
  const double s = (m - 1.0) / (m + 1.0), z = s * s;
  const double p = horner(z, 2.0 / 15, 2.0 / 13, 2.0 / 11, 2.0 / 9, 2.0 / 7, 2.0 / 5, 2.0 / 3, 2.0);
  return ed * 0.6931471805599453 + s * p;
}

/// x - k pi/2 for |x| <= 2^26 and an integer k: pi/2 in three pieces (25, 25 and 53
/// bits), so the first two products and differences are exact.
NABLA_VEC_INLINE double minus_pio2_times(double x, double k) {
  return ((x - k * 1.5707963109016418) - k * 1.5893254712295857e-08) - k * 6.123233995736766e-17;
}
/// sin on [-pi/2, pi/2]: r + r z P(z), z = r^2, P a Chebyshev fit (relative error 2e-13).
NABLA_VEC_INLINE double sin_poly(double r) {
  const double z = r * r;
  return r + r * z *
                 horner(z, 1.550250902793809e-10, -2.5036745008428295e-08, 2.755712317437327e-06,
                        -0.0001984126870905615, 0.008333333330940365, -0.16666666666658467);
}
/// cos on [-pi/4, pi/4], Taylor to r^12 (relative error under 1e-10).
NABLA_VEC_INLINE double cos_poly(double r) {
  const double z = r * r;
  return 1.0 + z * horner(z, 2.08767569878681e-09, -2.755731922398589e-07, 2.48015873015873e-05,
                          -1.3888888888888889e-03, 4.1666666666666664e-02, -0.5);
}
constexpr float kTrigMax = 67108864.0f;  // 2^26: the range minus_pio2_times is exact on

/// asin(a) for a in [0, 0.5]: a + a z P(z), z = a^2, P a Chebyshev fit (relative error
/// 4e-12).
NABLA_VEC_INLINE double asin_core(double a) {
  const double z = a * a;
  return a + a * z *
                 horner(z, 0.02930523970533579, 0.0054431851027481075, 0.019306260869368045,
                        0.022132443623426794, 0.030397634130580702, 0.044642358484883196,
                        0.07500000598829049, 0.16666666665495086);
}
/// atan(t) for t in [0, tan(pi/8)]: t + t z Q(z), z = t^2 (relative error 3e-12).
NABLA_VEC_INLINE double atan_core(double t) {
  const double z = t * t;
  return t + t * z *
                 horner(z, -0.04043224825887161, 0.07135325122330678, -0.09028983500350463,
                        0.11107495135714474, -0.14285612511387016, 0.1999999891728858,
                        -0.3333333333144073);
}
/// atan(t) for t in [0, 1]: above tan(pi/8), pi/4 + atan((t-1)/(t+1)).
NABLA_VEC_INLINE double atan_unit(double t) {
  const bool mid = t > 0.41421356237309503;
  const double p = atan_core(mid ? (t - 1.0) / (t + 1.0) : t);
  return mid ? kPio4 + p : p;
}

}  // namespace wide

// ---- sin, cos, tan ----------------------------------------------------------------------

NABLA_VEC_INLINE bool vec_trig_slow(float x) { return !(std::fabs(x) <= wide::kTrigMax); }
NABLA_VEC_INLINE bool vec_trig_slow(double) { return false; }

// sin(x) = (-1)^n sin(x - n pi) and cos(x) = (-1)^(n+1) sin(x - (n + 1/2) pi): one
// polynomial on [-pi/2, pi/2]. tan reduces by pi/2 and divides sin by cos.
NABLA_VEC_INLINE float vec_sin(float x) {
  const double xd = vec_trig_slow(x) ? 0.0 : x;
  const auto [n, bits] = wide::round_bits(xd * 0.31830988618379067);
  const double p = wide::sin_poly(wide::minus_pio2_times(xd, 2.0 * n));
  return x == 0.0f ? x : static_cast<float>((bits & 1) ? -p : p);  // -0 stays -0
}
NABLA_VEC_INLINE double vec_sin(double x) { return std::sin(x); }

NABLA_VEC_INLINE float vec_cos(float x) {
  const double xd = vec_trig_slow(x) ? 0.0 : x;
  const auto [n, bits] = wide::round_bits(xd * 0.31830988618379067 - 0.5);
  const double p = wide::sin_poly(wide::minus_pio2_times(xd, 2.0 * n + 1.0));
  return static_cast<float>((bits & 1) ? p : -p);
}
NABLA_VEC_INLINE double vec_cos(double x) { return std::cos(x); }

NABLA_VEC_INLINE float vec_tan(float x) {
  const double xd = vec_trig_slow(x) ? 0.0 : x;
  const auto [n, bits] = wide::round_bits(xd * 0.63661977236758134);
  const double r = wide::minus_pio2_times(xd, n);
  const double s = wide::sin_poly(r), c = wide::cos_poly(r);
  return x == 0.0f ? x : static_cast<float>((bits & 1) ? -c / s : s / c);  // -0 stays -0
}
NABLA_VEC_INLINE double vec_tan(double x) { return std::tan(x); }

// ---- asin, acos, atan, atan2 (full range; NaN and |x| > 1 give NaN as libm) --------------

NABLA_VEC_INLINE float vec_asin(float x) {
  const double a = std::fabs(static_cast<double>(x));
  const double s = std::sqrt((1.0 - a) * 0.5);
  const double r = a <= 0.5 ? wide::asin_core(a) : wide::kPio2 - 2.0 * wide::asin_core(s);
  return std::copysign(static_cast<float>(r), x);
}
NABLA_VEC_INLINE double vec_asin(double x) { return std::asin(x); }

NABLA_VEC_INLINE float vec_acos(float x) {
  const double xd = x, a = std::fabs(xd);
  const double s = std::sqrt((1.0 - a) * 0.5);
  const double small = wide::kPio2 - std::copysign(wide::asin_core(a), xd);
  const double big = 2.0 * wide::asin_core(s);
  return static_cast<float>(a <= 0.5 ? small : (xd > 0 ? big : wide::kPi - big));
}
NABLA_VEC_INLINE double vec_acos(double x) { return std::acos(x); }

NABLA_VEC_INLINE float vec_atan(float x) {
  const double a = std::fabs(static_cast<double>(x));
  const bool inv = a > 1.0;
  const double p = wide::atan_unit(inv ? 1.0 / a : a);  // 1/inf = 0: atan(inf) = pi/2
  return std::copysign(static_cast<float>(inv ? wide::kPio2 - p : p), x);
}
NABLA_VEC_INLINE double vec_atan(double x) { return std::atan(x); }

/// atan2: slow for 0/0 and infinite or NaN operands (their signed-zero and pi/4 cases).
NABLA_VEC_INLINE bool vec_atan2_slow(float y, float x) {
  return !(std::fabs(x) < INFINITY) | !(std::fabs(y) < INFINITY) | ((x == 0.0f) & (y == 0.0f));
}
NABLA_VEC_INLINE bool vec_atan2_slow(double, double) { return false; }
NABLA_VEC_INLINE float vec_atan2(float y, float x) {
  const double ax = std::fabs(static_cast<double>(x)), ay = std::fabs(static_cast<double>(y));
  const bool steep = ay > ax;
  const double t =
      (steep ? ax : ay) / (steep ? ay : ax);  // in [0, 1]; ratios of floats stay normal
  double a = wide::atan_unit(t);
  a = steep ? wide::kPio2 - a : a;
  a = std::signbit(x) ? wide::kPi - a : a;
  return std::copysign(static_cast<float>(a), y);
}
NABLA_VEC_INLINE double vec_atan2(double y, double x) { return std::atan2(y, x); }

// ---- sinh, cosh (full range: past 89.4 the double result rounds to float inf) ---------

NABLA_VEC_INLINE float vec_sinh(float x) {
  const double xd = x, a = std::fabs(xd), z = xd * xd;
  // Below 0.5 its Taylor series to x^13 (relative error 2e-14), where (e - 1/e) / 2 would
  // cancel.
  const double small = xd + xd * z *
                                horner(z, 1.0 / 6227020800, 1.0 / 39916800, 1.0 / 362880,
                                       1.0 / 5040, 1.0 / 120, 1.0 / 6);
  const double e = wide::exp(a);
  const double big = std::copysign(0.5 * e - 0.5 / e, xd);
  return static_cast<float>(a < 0.5 ? small : big);
}
NABLA_VEC_INLINE double vec_sinh(double x) { return std::sinh(x); }

NABLA_VEC_INLINE float vec_cosh(float x) {
  const double e = wide::exp(std::fabs(static_cast<double>(x)));
  return static_cast<float>(0.5 * e + 0.5 / e);
}
NABLA_VEC_INLINE double vec_cosh(double x) { return std::cosh(x); }

// ---- pow ------------------------------------------------------------------------------

/// pow: fast for finite, nonzero bases and finite exponents (a negative base with a
/// fractional exponent gives NaN there); zeros, infinities and NaN follow C's rules
/// through libm.
NABLA_VEC_INLINE bool vec_pow_slow(float x, float y) {
  return !(std::fabs(x) < INFINITY) | !(std::fabs(y) < INFINITY) | (x == 0.0f);
}
NABLA_VEC_INLINE bool vec_pow_slow(double, double) { return false; }
NABLA_VEC_INLINE float vec_pow(float x, float y) {
  const double yd = y, xd = x;
  const double r = wide::exp(yd * wide::log_of_positive(std::fabs(x)));  // 0 * log: exactly 1
  // A negative base's factor, in arithmetic rather than selects (a scalar exponent makes
  // them loop-invariant selects, which GCC does not vectorize): -1 for odd integers
  // (y - 2 round(y / 2) = +-1), 1 for even ones, NaN for fractions (sqrt of a negative).
  const double fraction = std::fabs(yd - std::nearbyint(yd));
  const double parity = yd - 2.0 * std::nearbyint(yd * 0.5);
  const double factor = (1.0 - 2.0 * std::fabs(parity)) + std::sqrt(-fraction);
  return static_cast<float>(xd < 0.0 ? r * factor : r);
}
NABLA_VEC_INLINE double vec_pow(double x, double y) { return std::pow(x, y); }

// ---- log2, log10, exp2 -------------------------------------------------------------------

/// log2 and log10: fast for positive finite x (subnormals included); zero, negative, inf
/// and NaN follow libm.
NABLA_VEC_INLINE bool vec_log_slow(float x) { return !(x > 0.0f) | !(x < INFINITY); }
NABLA_VEC_INLINE bool vec_log_slow(double) { return false; }
NABLA_VEC_INLINE float vec_log2(float x) {
  return static_cast<float>(wide::log_of_positive(vec_log_slow(x) ? 1.0f : x) * 1.4426950408889634);
}
NABLA_VEC_INLINE double vec_log2(double x) { return std::log2(x); }
NABLA_VEC_INLINE float vec_log10(float x) {
  return static_cast<float>(wide::log_of_positive(vec_log_slow(x) ? 1.0f : x) *
                            0.43429448190325182);
}
NABLA_VEC_INLINE double vec_log10(double x) { return std::log10(x); }

/// exp2 over the whole range (past +-200 the double result is inf or 0 in float anyway).
NABLA_VEC_INLINE float vec_exp2(float x) {
  return static_cast<float>(wide::exp(static_cast<double>(x) * 0.69314718055994531));
}
NABLA_VEC_INLINE double vec_exp2(double x) { return std::exp2(x); }

// ---- fmod -----------------------------------------------------------------------------

/// C's fmod(a, b) (the sign of a): a - trunc(a/b) b in double is exact while |a/b| < 2^24
/// (the quotient's integer part is then decided correctly and q b fits in 48 bits);
/// larger quotients, b = 0 or inf, and NaN/inf operands go to libm.
NABLA_VEC_INLINE bool vec_fmod_slow(float a, float b) {
  const double ad = a, bd = b;  // |a| < 2^24 |b| exactly (no division), false for b = 0
  return !(std::fabs(ad) < 16777216.0 * std::fabs(bd)) | !(std::fabs(bd) < INFINITY);
}
NABLA_VEC_INLINE bool vec_fmod_slow(double, double) { return false; }
NABLA_VEC_INLINE float vec_fmod(float a, float b) {
  const double ad = a, bd = b;
  const double q = std::trunc(ad / bd);
  return std::copysign(static_cast<float>(ad - q * bd), a);  // 0 takes a's sign, as libm
}
NABLA_VEC_INLINE double vec_fmod(double a, double b) { return std::fmod(a, b); }

}  // namespace nabla::cpu
