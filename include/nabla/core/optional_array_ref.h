#pragma once
// OptionalArrayRef: an ArrayRef that may be absent (c10::OptionalArrayRef), as LibTorch's
// functions with an optional list argument take it. Like ArrayRef it does not own the
// elements: built from a braced list or a single value, it is valid for the full
// expression that built it (a call's argument).
#include <initializer_list>
#include <type_traits>

#include "nabla/core/array_ref.h"
#include "nabla/core/error.h"
#include "nabla/core/optional.h"

namespace nabla {

template <class T>
class OptionalArrayRef {
 public:
  OptionalArrayRef() = default;
  OptionalArrayRef(nullopt_t) {}                                // NOLINT: implicit, as LibTorch's
  OptionalArrayRef(ArrayRef<T> values) : value_(values) {}      // NOLINT
  OptionalArrayRef(const T& one) : value_(ArrayRef<T>(one)) {}  // NOLINT
  OptionalArrayRef(std::initializer_list<T> values) : value_(ArrayRef<T>(values)) {}  // NOLINT
  // Containers (std::vector, SmallVector, ...); a single number takes the `const T&` form,
  // whose ArrayRef points at the caller's value, not at a copy made here.
  template <class U,
            class = std::enable_if_t<std::is_convertible_v<const U&, ArrayRef<T>> &&
                                     !std::is_same_v<U, ArrayRef<T>> && !std::is_arithmetic_v<U>>>
  OptionalArrayRef(const U& values) : value_(ArrayRef<T>(values)) {}         // NOLINT
  OptionalArrayRef(const optional<ArrayRef<T>>& values) : value_(values) {}  // NOLINT

  bool has_value() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  ArrayRef<T> value() const {
    NABLA_CHECK(value_.has_value(), "OptionalArrayRef::value: it holds no value");
    return *value_;
  }
  ArrayRef<T> operator*() const { return value(); }
  ArrayRef<T> value_or(ArrayRef<T> fallback) const { return value_ ? *value_ : fallback; }
  void reset() noexcept { value_.reset(); }

 private:
  optional<ArrayRef<T>> value_;
};

using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace nabla
