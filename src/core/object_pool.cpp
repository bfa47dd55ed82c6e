#include "nabla/core/object_pool.h"

#include <array>
#include <cstdlib>
#include <vector>

namespace nabla::detail {
namespace {

constexpr size_t kGranule = 16;
constexpr size_t kClasses = kPoolMaxBytes / kGranule;
constexpr size_t kMaxPerClass = 16384;  // a 5,000-op graph frees ~3 blocks per op at once

thread_local bool t_pool_gone = false;  // see cpu_allocator.cpp: frees after thread exit

struct Pool {
  std::array<std::vector<void*>, kClasses> free;
  ~Pool() {
    t_pool_gone = true;
    for (auto& list : free)
      for (void* p : list) std::free(p);
  }
};
thread_local Pool t_pool;

size_t class_of(size_t n) { return (n + kGranule - 1) / kGranule - 1; }

}  // namespace

void* pool_alloc(size_t nbytes) {
  size_t c = class_of(nbytes == 0 ? 1 : nbytes);
  if (!t_pool_gone) {
    auto& list = t_pool.free[c];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
  }
  void* p = std::malloc((c + 1) * kGranule);
  if (!p) throw std::bad_alloc();
  return p;
}

void pool_free(void* p, size_t nbytes) {
  if (!p) return;
  if (!t_pool_gone) {
    auto& list = t_pool.free[class_of(nbytes == 0 ? 1 : nbytes)];
    if (list.size() < kMaxPerClass) {
      list.push_back(p);
      return;
    }
  }
  std::free(p);
}

}  // namespace nabla::detail
