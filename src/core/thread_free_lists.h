#pragma once
// Per-thread free lists by size class: the lock-free fast path of the CPU allocator's
// small blocks (cpu_allocator.cpp) and of the object pool (object_pool.cpp).
#include <array>
#include <cstddef>
#include <cstdlib>
#include <vector>

namespace nabla::detail {

/// Blocks (from malloc or aligned_alloc) of N size classes kept for reuse by one thread,
/// as a thread_local. At thread exit its destructor frees them and sets `*gone`, a
/// trivially destructible thread_local flag that stays readable until the end: frees that
/// come later on the thread (other thread_locals' destructors, static destruction) check
/// it first and go straight to free().
template <size_t N>
class ThreadFreeLists {
 public:
  explicit ThreadFreeLists(bool* gone) : gone_(gone) {}
  ThreadFreeLists(const ThreadFreeLists&) = delete;
  ThreadFreeLists& operator=(const ThreadFreeLists&) = delete;
  ~ThreadFreeLists() {
    *gone_ = true;
    clear();
  }

  /// A block of class `c` kept earlier, or null.
  void* take(size_t c) {
    auto& list = lists_[c];
    if (list.empty()) return nullptr;
    void* p = list.back();
    list.pop_back();
    return p;
  }
  /// Keeps `p`, of class `c`, unless the class holds `limit` blocks already (false: the
  /// caller frees it).
  bool keep(size_t c, void* p, size_t limit) {
    auto& list = lists_[c];
    if (list.size() >= limit) return false;
    list.push_back(p);
    return true;
  }
  /// Frees every block kept.
  void clear() {
    for (auto& list : lists_) {
      for (void* p : list) std::free(p);
      list.clear();
    }
  }

 private:
  std::array<std::vector<void*>, N> lists_;
  bool* gone_;
};

}  // namespace nabla::detail
