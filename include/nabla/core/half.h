#pragma once
// Half (IEEE 754 binary16) and BFloat16 (the upper 16 bits of a float32): the 16-bit
// floating types LibTorch programs use to read and write reduced-precision data
// (c10::Half, c10::BFloat16). nabla holds them as storage dtypes: tensors of kHalf or
// kBFloat16 can be created, filled, copied, viewed, printed and converted (`.to(kFloat)`);
// the elementwise ops, reductions and activations compute them in float32 and round once
// (Note [16-bit compute], src/ops/elementwise/float32_compute.h); other ops refuse them, saying to
// convert first.
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <limits>

namespace nabla {

struct Half {
  uint16_t x = 0;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float value);       // NOLINT: as c10::Half, implicit from float
  operator float() const;  // NOLINT
};

struct BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float value);   // NOLINT
  operator float() const;  // NOLINT
};

std::ostream& operator<<(std::ostream& os, Half h);
std::ostream& operator<<(std::ostream& os, BFloat16 b);

namespace detail {
/// std::numeric_limits for a 16-bit float given its bit patterns (as c10 provides for
/// c10::Half and c10::BFloat16; LibTorch's tests take limits of every dtype's C++ type).
template <class T, uint16_t kLowest, uint16_t kMin, uint16_t kMax, uint16_t kEpsilon,
          uint16_t kInfinity, uint16_t kQuietNaN, uint16_t kSignalingNaN, int kDigits>
struct Float16Limits {
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false,
                        is_exact = false, has_infinity = true, has_quiet_NaN = true,
                        has_signaling_NaN = true, is_iec559 = false, is_bounded = true,
                        is_modulo = false;
  static constexpr int digits = kDigits, radix = 2;
  static constexpr T min() { return T(kMin, T::from_bits()); }
  static constexpr T lowest() { return T(kLowest, T::from_bits()); }
  static constexpr T max() { return T(kMax, T::from_bits()); }
  static constexpr T epsilon() { return T(kEpsilon, T::from_bits()); }
  static constexpr T infinity() { return T(kInfinity, T::from_bits()); }
  static constexpr T quiet_NaN() { return T(kQuietNaN, T::from_bits()); }
  static constexpr T signaling_NaN() { return T(kSignalingNaN, T::from_bits()); }
  static constexpr T denorm_min() { return T(1, T::from_bits()); }
};
}  // namespace detail

}  // namespace nabla

template <>
struct std::numeric_limits<nabla::Half>
    : public nabla::detail::Float16Limits<nabla::Half, 0xFBFF, 0x0400, 0x7BFF, 0x1400, 0x7C00,
                                          0x7E00, 0x7D00, 11> {};
template <>
struct std::numeric_limits<nabla::BFloat16>
    : public nabla::detail::Float16Limits<nabla::BFloat16, 0xFF7F, 0x0080, 0x7F7F, 0x3C00, 0x7F80,
                                          0x7FC0, 0x7FA0, 8> {};
