#pragma once
// Scalar: a number passed to an op (c10::Scalar). Remembers whether it was written as a
// bool, an integer or a floating value, which decides type promotion.
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "nabla/core/half.h"

namespace nabla {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) {
    i_ = static_cast<int64_t>(v);
  }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double) {
    d_ = static_cast<double>(v);
  }
  Scalar(Half v) : kind_(Kind::Double) { d_ = static_cast<float>(v); }
  Scalar(BFloat16 v) : kind_(Kind::Double) { d_ = static_cast<float>(v); }

  Kind kind() const { return kind_; }
  bool isFloatingPoint() const { return kind_ == Kind::Double; }
  bool isIntegral(bool include_bool) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool isBoolean() const { return kind_ == Kind::Bool; }

  double toDouble() const { return kind_ == Kind::Double ? d_ : static_cast<double>(i_); }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return kind_ == Kind::Double ? static_cast<int64_t>(d_) : i_; }
  int32_t toInt() const { return static_cast<int32_t>(toLong()); }
  bool toBool() const { return kind_ == Kind::Double ? d_ != 0.0 : i_ != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return toBool();
    else if constexpr (std::is_floating_point_v<T>)
      return static_cast<T>(toDouble());
    else
      return static_cast<T>(toLong());
  }
  Scalar operator-() const { return kind_ == Kind::Double ? Scalar(-d_) : Scalar(-i_); }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

/// As c10::Scalar: floating values as doubles, integers as integers, bools as true/false.
inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBoolean()) return os << (s.toBool() ? "true" : "false");
  return os << s.toLong();
}

}  // namespace nabla
