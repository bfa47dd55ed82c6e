#pragma once
// ExpandingArray<D>: a D-element size argument that also accepts one integer, which
// it repeats (LibTorch's torch::ExpandingArray): `kernel_size(3)` means {3, 3} for a
// 2-d op, `kernel_size({3, 5})` gives each dim its own value.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "nabla/core/array_ref.h"
#include "nabla/core/error.h"

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

}  // namespace nabla
