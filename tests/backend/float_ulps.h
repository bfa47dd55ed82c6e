#pragma once
// Measuring float32 math against a double reference, shared by the sweeps of
// test_vec_math.cpp (the functions themselves) and test_transcendental_kernels.cpp
// (the same functions through the kernels).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace nabla::testing {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

inline float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

/// Error of `got` in units of the float spacing at the correctly rounded `want`; results
/// below `abs_floor` in magnitude are measured in units of abs_floor instead (0: the
/// spacing of the smallest subnormal). NaN-ness, infinities and zero signs must match
/// (else 1e30).
inline double ulps(float got, double want, double abs_floor = 0) {
  const float w = static_cast<float>(want);
  if (std::isnan(w) || std::isnan(got)) return std::isnan(w) == std::isnan(got) ? 0 : 1e30;
  if (std::isinf(w) || std::isinf(got)) return got == w ? 0 : 1e30;
  if (w == 0 && got == 0) return std::signbit(w) == std::signbit(got) ? 0 : 1e30;
  const double spacing =
      std::max<double>(std::nextafter(std::fabs(w), kInf) - std::fabs(w), abs_floor);
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

}  // namespace nabla::testing
