#pragma once
// Pieces the file formats share (numpy.cpp, safetensors.cpp): each format's dtype table,
// read both ways, and little-endian integers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "nabla/core/scalar_type.h"

namespace nabla::serialize::detail {

/// One row of a format's dtype table: a dtype and its code in the format. A dtype may
/// have several rows (codes read as it); the first is the one written.
struct DtypeCode {
  ScalarType dtype;
  const char* code;
};

/// The code written for `t`, or "?" when the format has none.
template <size_t N>
const char* code_of(const DtypeCode (&table)[N], ScalarType t) {
  for (const DtypeCode& row : table)
    if (row.dtype == t) return row.code;
  return "?";
}

/// The dtype `code` stands for; false when the format has no such code.
template <size_t N>
bool dtype_of_code(const DtypeCode (&table)[N], std::string_view code, ScalarType& out) {
  for (const DtypeCode& row : table)
    if (code == row.code) {
      out = row.dtype;
      return true;
    }
  return false;
}

/// The `n`-byte little-endian unsigned integer at `at` (the caller checks the bounds).
inline uint64_t get_le(std::string_view b, uint64_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}

/// Appends the `n` low bytes of `v`, least significant first.
inline void put_le(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace nabla::serialize::detail
