#pragma once
// Recycled memory for nabla's small bookkeeping objects (TensorImpl, StorageImpl, graph
// nodes, autograd meta). Profiling tiny ops showed glibc malloc/free at about a third of
// the time: a training step frees whole graphs at once, overflowing malloc's per-thread
// cache. Blocks are kept in per-thread free lists by 16-byte size class.
#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace nabla::detail {

constexpr size_t kPoolMaxBytes = 1024;

void* pool_alloc(size_t nbytes);
void pool_free(void* p, size_t nbytes);

/// std::allocator-compatible front end of the pool (for allocate_shared).
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes <= kPoolMaxBytes) return static_cast<T*>(pool_alloc(bytes));
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes <= kPoolMaxBytes)
      pool_free(p, bytes);
    else
      ::operator delete(p);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const PoolAllocator<U>&) const {
    return false;
  }
};

/// make_shared with the object and its control block in one pooled block.
template <class T, class... Args>
std::shared_ptr<T> make_pooled(Args&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace nabla::detail
