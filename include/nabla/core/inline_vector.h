#pragma once
// InlineVector: a vector of any (nothrow-movable) type that keeps its first N elements
// inside the object and moves to the heap past that. SmallVector (small_vector.h) is
// the faster form for trivially copyable values; this one constructs, moves and destroys
// its elements, so it can hold shared_ptrs. A backward node keeps its edges and the
// metadata of its gradients in one (Note [Node storage], node.h): one allocation per
// node instead of three, and the engine reads them without another pointer hop.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace nabla {

template <class T, size_t N>
class InlineVector {
  static_assert(N > 0);
  static_assert(std::is_nothrow_move_constructible_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVector() = default;
  InlineVector(std::initializer_list<T> il) {
    reserve(il.size());
    for (const T& v : il) push_back(v);
  }
  InlineVector(const InlineVector& o) {
    reserve(o.size_);
    for (const T& v : o) push_back(v);
  }
  InlineVector(InlineVector&& o) noexcept { take(o); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) {
      clear();
      reserve(o.size_);
      for (const T& v : o) push_back(v);
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      clear();
      free_heap();
      take(o);
    }
    return *this;
  }
  ~InlineVector() {
    clear();
    free_heap();
  }

  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(begin(), end(), p);
    std::destroy(begin(), end());
    free_heap();
    data_ = p;
    cap_ = n;
  }
  template <class... A>
  T& emplace_back(A&&... args) {
    if (size_ == cap_)
      grow_for_one(std::forward<A>(args)...);
    else
      ::new (static_cast<void*>(data_ + size_)) T(std::forward<A>(args)...);
    return data_[size_++];
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() { std::destroy_at(data_ + --size_); }
  void clear() {
    std::destroy(begin(), end());
    size_ = 0;
  }

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

 private:
  T* inline_data() { return std::launder(reinterpret_cast<T*>(inline_)); }
  // The new element is built before the old ones move, so `args` may refer to one of them.
  template <class... A>
  void grow_for_one(A&&... args) {
    size_t n = cap_ * 2;
    T* p = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    ::new (static_cast<void*>(p + size_)) T(std::forward<A>(args)...);
    std::uninitialized_move(begin(), end(), p);
    std::destroy(begin(), end());
    free_heap();
    data_ = p;
    cap_ = n;
  }
  void free_heap() {
    if (data_ != inline_data()) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = inline_data();
    cap_ = N;
  }
  // Leaves `o` empty; this vector is empty and inline on entry.
  void take(InlineVector& o) noexcept {
    if (o.data_ == o.inline_data()) {
      std::uninitialized_move(o.begin(), o.end(), data_);
      size_ = o.size_;
      o.clear();
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.inline_data();
      o.cap_ = N;
      o.size_ = 0;
    }
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace nabla
