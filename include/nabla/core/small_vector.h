#pragma once
// SmallVector: a vector of trivially copyable values kept inline up to N elements, so
// that the sizes and strides of a tensor cost no heap allocation (hot in tiny ops).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>

namespace nabla {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { assign(n, v); }
  SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <class It>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  template <class It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data_);
    size_ = n;
  }
  void assign(size_t n, T v) {
    size_ = 0;
    reserve(n);
    std::fill_n(data_, n, v);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(p, data_, size_ * sizeof(T));
    release();
    data_ = p;
    cap_ = n;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    if (n > size_) std::fill(data_ + size_, data_ + n, v);
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void insert(T* pos, T v) {
    size_t i = pos - data_;
    push_back(v);
    std::rotate(data_ + i, data_ + size_ - 1, data_ + size_);
  }
  void erase(T* pos) {
    std::copy(pos + 1, end(), pos);
    --size_;
  }
  void clear() { size_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T& front() { return data_[0]; }
  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  void release() {
    if (data_ != inline_) std::free(data_);
    data_ = inline_;
    cap_ = N;
  }
  void steal(SmallVector& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      cap_ = N;
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
};

/// Sizes and strides of one tensor.
using DimVector = SmallVector<int64_t, 6>;

}  // namespace nabla
