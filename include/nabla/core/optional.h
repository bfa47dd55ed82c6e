#pragma once
// c10::optional spelled as nabla::optional.
#include <optional>

namespace nabla {
template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
}  // namespace nabla
