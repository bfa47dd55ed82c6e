#pragma once
// nabla::irange: the integers of [begin, end) (or [0, end)) for range-for loops, as
// LibTorch's c10::irange. An end below begin gives an empty range; the values have the
// type of `end`.
#include <cstddef>
#include <iterator>
#include <type_traits>

namespace nabla {

template <class I>
class integer_range {
  static_assert(std::is_integral_v<I>, "irange: the bounds must be integers");

 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    using pointer = const I*;
    using reference = const I&;

    constexpr explicit iterator(I v) : v_(v) {}
    constexpr const I& operator*() const { return v_; }
    constexpr const I* operator->() const { return &v_; }
    constexpr iterator& operator++() {
      ++v_;
      return *this;
    }
    constexpr iterator operator++(int) {
      iterator old = *this;
      ++v_;
      return old;
    }
    constexpr bool operator==(const iterator& o) const { return v_ == o.v_; }
    constexpr bool operator!=(const iterator& o) const { return v_ != o.v_; }

   private:
    I v_;
  };

  constexpr integer_range(I begin, I end) : begin_(begin), end_(end < begin ? begin : end) {}
  constexpr iterator begin() const { return iterator(begin_); }
  constexpr iterator end() const { return iterator(end_); }
  constexpr bool empty() const { return begin_ == end_; }
  constexpr std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }

 private:
  I begin_, end_;
};

/// for (const auto i : irange(2, n)): 2, 3, ..., n - 1.
template <class B, class E,
          std::enable_if_t<std::is_integral_v<B> && std::is_integral_v<E>, int> = 0>
constexpr integer_range<E> irange(B begin, E end) {
  return integer_range<E>(static_cast<E>(begin), end);
}

/// for (const auto i : irange(n)): 0, 1, ..., n - 1 (nothing for n <= 0).
template <class E, std::enable_if_t<std::is_integral_v<E>, int> = 0>
constexpr integer_range<E> irange(E end) {
  return integer_range<E>(E(0), end);
}

}  // namespace nabla
