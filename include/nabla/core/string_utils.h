#pragma once
// c10's string helpers: nabla::to_string and guts::to_string (anything with operator<<,
// e.g. a pointer as "0x..."), and Join.
#include <sstream>
#include <string>

namespace nabla {

/// The stream representation of `value` (c10::to_string).
template <class T>
std::string to_string(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

namespace guts {
using ::nabla::to_string;
}  // namespace guts

/// The items of `container` written with `delimiter` between them (c10::Join).
template <class Container>
std::string Join(const std::string& delimiter, const Container& container) {
  std::ostringstream os;
  bool first = true;
  for (const auto& item : container) {
    if (!first) os << delimiter;
    os << item;
    first = false;
  }
  return os.str();
}

}  // namespace nabla
