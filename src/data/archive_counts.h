#pragma once
// Counts and positions that samplers write to archives: int64 entries, never negative.
#include <cstddef>
#include <cstdint>
#include <string>

#include "nabla/core/error.h"
#include "nabla/serialize/archive.h"

namespace nabla::data::detail {

/// Reads `key`; raises nabla::Error naming `owner` and the key if it is missing or negative.
inline size_t read_count(serialize::InputArchive& archive, const std::string& key,
                         const char* owner) {
  int64_t value = 0;
  archive.read(key, value);
  NABLA_CHECK(value >= 0, owner, "::load: '", key, "' is ", value, ", expected >= 0");
  return static_cast<size_t>(value);
}

inline void write_count(serialize::OutputArchive& archive, const std::string& key, size_t value) {
  archive.write(key, static_cast<int64_t>(value));
}

}  // namespace nabla::data::detail
