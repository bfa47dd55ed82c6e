#include "nabla/core/object_pool.h"

#include <cstdlib>
#include <new>

#include "core/thread_free_lists.h"

namespace nabla::detail {
namespace {

constexpr size_t kGranule = 16;
constexpr size_t kClasses = kPoolMaxBytes / kGranule;
constexpr size_t kMaxPerClass = 16384;  // a 5,000-op graph frees ~3 blocks per op at once

thread_local bool t_pool_gone = false;  // see ThreadFreeLists
thread_local ThreadFreeLists<kClasses> t_pool(&t_pool_gone);

size_t class_of(size_t n) { return (n + kGranule - 1) / kGranule - 1; }

}  // namespace

void* pool_alloc(size_t nbytes) {
  size_t c = class_of(nbytes == 0 ? 1 : nbytes);
  if (!t_pool_gone)
    if (void* p = t_pool.take(c)) return p;
  void* p = std::malloc((c + 1) * kGranule);
  if (!p) throw std::bad_alloc();
  return p;
}

void pool_free(void* p, size_t nbytes) {
  if (!p) return;
  if (!t_pool_gone && t_pool.keep(class_of(nbytes == 0 ? 1 : nbytes), p, kMaxPerClass)) return;
  std::free(p);
}

}  // namespace nabla::detail
