#pragma once
// c10::optional spelled as nabla::optional, and the other standard helpers c10 re-exports
// (c10::make_unique).
#include <memory>
#include <optional>

namespace nabla {
template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::make_unique;
using std::nullopt;
using std::nullopt_t;
}  // namespace nabla
