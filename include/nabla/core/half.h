#pragma once
// Half (IEEE 754 binary16) and BFloat16 (the upper 16 bits of a float32): the 16-bit
// floating types LibTorch programs use to read and write reduced-precision data
// (c10::Half, c10::BFloat16). nabla holds them as storage dtypes: tensors of kHalf or
// kBFloat16 can be created, filled, copied, viewed, printed and converted (`.to(kFloat)`);
// arithmetic on them is refused with an error saying to convert first.
#include <cstdint>
#include <cstring>
#include <iosfwd>

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

}  // namespace nabla
