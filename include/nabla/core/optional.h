#pragma once
// c10::optional spelled as nabla::optional, and the other standard helpers c10 re-exports
// (c10::make_unique, c10::variant, c10::visit).
#include <memory>
#include <optional>
#include <variant>

namespace nabla {
template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::make_unique;
using std::nullopt;
using std::nullopt_t;
template <class... Ts>
using variant = std::variant<Ts...>;
using std::get_if;
using std::holds_alternative;
using std::monostate;
using std::visit;
}  // namespace nabla
