#pragma once
// ExpandingArray<D>: a D-element size argument that also accepts one integer, which
// it repeats (LibTorch's torch::ExpandingArray): `kernel_size(3)` means {3, 3} for a
// 2-d op, `kernel_size({3, 5})` gives each dim its own value.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "nabla/core/array_ref.h"
#include "nabla/core/error.h"
#include "nabla/core/optional.h"

namespace nabla {

template <size_t D, class T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) { values_.fill(single); }  // NOLINT: implicit, as LibTorch
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::vector<T>& list) {  // NOLINT
    NABLA_CHECK(list.size() == D, "Expected ", D, " values, but instead got ", list.size(), " (a ",
                D, "-d size argument)");
    for (size_t i = 0; i < D; ++i) values_[i] = list[i];
  }
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT
  ExpandingArray(ArrayRef<T> list) {                                   // NOLINT
    NABLA_CHECK(list.size() == D, "Expected ", D, " values, but instead got ", list.size(), " (a ",
                D, "-d size argument)");
    for (size_t i = 0; i < D; ++i) values_[i] = list[i];
  }

  T& operator[](size_t i) { return values_[i]; }
  const T& operator[](size_t i) const { return values_[i]; }
  static constexpr size_t size() { return D; }
  const T* data() const { return values_.data(); }
  ArrayRef<T> ref() const { return ArrayRef<T>(values_.data(), D); }
  operator ArrayRef<T>() const { return ref(); }  // NOLINT: passes as IntArrayRef
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }
  /// The values as an array (LibTorch spells it *array and array->).
  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }

 private:
  std::array<T, D> values_{};
};

/// Prints as LibTorch: the value of a 1-d array ("5"), a list otherwise ("[5, 6]").
template <size_t D, class T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& a) {
  if constexpr (D == 1) {
    return stream << a[0];
  } else {
    return stream << a.ref();
  }
}

/// A D-element size whose entries may be nullopt (LibTorch's
/// torch::ExpandingArrayWithOptionalElem): adaptive pooling's output_size, where an absent
/// entry keeps that dim's input size. Accepts one integer, a list of integers, or a braced
/// list mixing integers and nullopt: AdaptiveAvgPool2dOptions({3, nullopt}).
template <size_t D, class T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, optional<T>> {
  using Base = ExpandingArray<D, optional<T>>;

 public:
  using Base::Base;
  ExpandingArrayWithOptionalElem(std::initializer_list<T> list)  // NOLINT: implicit
      : ExpandingArrayWithOptionalElem(std::vector<T>(list)) {}
  ExpandingArrayWithOptionalElem(const std::vector<T>& list)  // NOLINT
      : Base(optional<T>()) {
    NABLA_CHECK(list.size() == D, "Expected ", D, " values, but instead got ", list.size(), " (a ",
                D, "-d size argument)");
    for (size_t i = 0; i < D; ++i) (*this)[i] = list[i];
  }
  ExpandingArrayWithOptionalElem(ArrayRef<T> list)  // NOLINT
      : ExpandingArrayWithOptionalElem(list.vec()) {}
  ExpandingArrayWithOptionalElem(T single) : Base(optional<T>(single)) {}  // NOLINT
  ExpandingArrayWithOptionalElem(const std::array<T, D>& values)           // NOLINT
      : Base(optional<T>()) {
    for (size_t i = 0; i < D; ++i) (*this)[i] = values[i];
  }
};

/// Prints as LibTorch: absent entries as None ("[5, None]"; a 1-d array as its entry).
template <size_t D, class T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArrayWithOptionalElem<D, T>& a) {
  if (D != 1) stream << "[";
  for (size_t i = 0; i < D; ++i) {
    if (i > 0) stream << ", ";
    if (a[i].has_value())
      stream << *a[i];
    else
      stream << "None";
  }
  if (D != 1) stream << "]";
  return stream;
}

}  // namespace nabla
