// Conversions of the 16-bit floating types (include/nabla/core/half.h), round to nearest
// even as IEEE 754 and LibTorch do.
#include "nabla/core/half.h"

#include <cmath>
#include <ostream>

namespace nabla {

namespace {
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace

Half::Half(float value) {
  const uint32_t f = bits_of(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN (NaN keeps a quiet payload bit)
    x = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    x = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Add 0.5 (as a float) so the hardware rounds the mantissa to the subnormal grid.
    const float shifted = float_of(abs) + 0.5f;
    x = static_cast<uint16_t>(sign | (bits_of(shifted) - 0x3f000000u));
    return;
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
  uint32_t m = abs + 0xc8000fffu + ((abs >> 13) & 1u);
  x = static_cast<uint16_t>(sign | (m >> 13));
}

Half::operator float() const {
  const uint32_t sign = static_cast<uint32_t>(x & 0x8000u) << 16;
  const uint32_t exp = (x >> 10) & 0x1fu, mant = x & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24.
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return float_of(sign | 0x7f800000u | (mant << 13));
  return float_of(sign | ((exp + 112) << 23) | (mant << 13));
}

BFloat16::BFloat16(float value) {
  const uint32_t f = bits_of(value);
  if (std::isnan(value)) {
    x = static_cast<uint16_t>((f >> 16) | 0x40u);
    return;
  }
  const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  x = static_cast<uint16_t>((f + rounding) >> 16);
}

BFloat16::operator float() const { return float_of(static_cast<uint32_t>(x) << 16); }

std::ostream& operator<<(std::ostream& os, Half h) { return os << static_cast<float>(h); }
std::ostream& operator<<(std::ostream& os, BFloat16 b) { return os << static_cast<float>(b); }

}  // namespace nabla
