// The CPU caching allocator. Profiling tiny ops showed malloc/free (memalign in
// particular) taking ~45% of the time, and large results paying page faults on every
// call; recycling blocks removes both.
//  - Small blocks (<= 64 KiB) use power-of-two classes from 64 B, cached per thread
//    (bounded per class: 256 blocks, or 1 MiB of the smaller ones — a graph of a few
//    thousand tiny ops frees thousands of 64-byte blocks at once), so the hot path takes
//    no lock.
//  - Large blocks are rounded up to 4 KiB and cached process-wide by exact size, up to
//    kMaxCachedLarge bytes or half the peak of allocated memory, whichever is more (a
//    GPT-2 step frees and re-takes ~0.7 GB of activations, logits and gradients of ~10
//    sizes while its working set stays near the peak: with a fixed 512 MiB it went back
//    to the system ~120 times a step, page-faulting every block in again; half the peak
//    makes that 0 and bounds what is held at 1.5x the peak); a block freed into a full
//    cache evicts the blocks freed longest ago (so a program whose sizes change keeps
//    reusing memory instead of page-faulting fresh blocks behind a cache full of stale
//    sizes).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>

#include "core/thread_free_lists.h"
#include "nabla/core/detail/allocation_limit.h"
#include "nabla/core/error.h"
#include "nabla/core/storage.h"

namespace nabla {
namespace {

constexpr size_t kAlign = 64;
constexpr int kNumClasses = 11;  // 64 B << 0..10 = 64 B .. 64 KiB
constexpr size_t kMaxSmall = kAlign << (kNumClasses - 1);
constexpr size_t kMinPerClass = 256;
constexpr size_t kClassBudget = size_t(1) << 20;  // bytes cached per small class and thread
constexpr size_t max_cached(int size_class) {
  size_t by_budget = kClassBudget / (kAlign << size_class);
  return by_budget > kMinPerClass ? by_budget : kMinPerClass;
}
constexpr size_t kLargeGranule = 4096;
constexpr size_t kMaxCachedLarge = size_t(512) << 20;
constexpr size_t kPeakFraction = 2;  // the cache may also hold up to peak / kPeakFraction

std::atomic<size_t> g_allocated{0};
std::atomic<size_t> g_peak{0};
std::atomic<size_t> g_system_allocs{0};

int size_class(size_t n) {
  int c = 0;
  size_t s = kAlign;
  while (s < n) {
    s <<= 1;
    ++c;
  }
  return c;
}

void* system_alloc(size_t rounded) {
  g_system_allocs.fetch_add(1, std::memory_order_relaxed);
  void* p = std::aligned_alloc(kAlign, rounded);
  NABLA_CHECK(p != nullptr, "cpu_alloc: out of memory allocating ", rounded, " bytes");
  return p;
}

// Set when this thread's cache is gone (thread exit, static destruction): later frees
// bypass it (see ThreadFreeLists).
thread_local bool t_cache_gone = false;
thread_local detail::ThreadFreeLists<kNumClasses> t_cache(&t_cache_gone);

struct LargeCache {
  struct Block {
    size_t size;
    void* p;
  };
  std::mutex mutex;
  std::list<Block> by_age;  // oldest first
  std::multimap<size_t, std::list<Block>::iterator> by_size;
  size_t bytes = 0;

  void* take(size_t size) {
    auto it = by_size.find(size);
    if (it == by_size.end()) return nullptr;
    void* p = it->second->p;
    by_age.erase(it->second);
    by_size.erase(it);
    bytes -= size;
    return p;
  }
  void put(size_t size, void* p) {
    const size_t limit =
        std::max(kMaxCachedLarge, g_peak.load(std::memory_order_relaxed) / kPeakFraction);
    if (size > limit) {
      std::free(p);
      return;
    }
    while (bytes + size > limit && !by_age.empty()) evict_oldest();
    by_age.push_back({size, p});
    by_size.emplace(size, std::prev(by_age.end()));
    bytes += size;
  }
  void evict_oldest() {
    const Block b = by_age.front();
    auto range = by_size.equal_range(b.size);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == by_age.begin()) {
        by_size.erase(it);
        break;
      }
    by_age.pop_front();
    bytes -= b.size;
    std::free(b.p);
  }
  void clear() {
    while (!by_age.empty()) evict_oldest();
  }
};
LargeCache& large_cache() {
  static LargeCache* cache = new LargeCache();  // never destroyed: frees may come late
  return *cache;
}

void track(size_t nbytes) {
  size_t now = g_allocated.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
  size_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

}  // namespace

size_t cpu_memory_allocated() { return g_allocated.load(std::memory_order_relaxed); }
size_t cpu_memory_peak() { return g_peak.load(std::memory_order_relaxed); }
void reset_peak_memory() { g_peak.store(g_allocated.load(std::memory_order_relaxed)); }
size_t cpu_system_allocations() { return g_system_allocs.load(std::memory_order_relaxed); }
size_t cpu_memory_cached() {
  LargeCache& cache = large_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.bytes;
}

namespace {

// Note [Poisoned new memory]: with NABLA_POISON_NEW_MEMORY set, every block handed out is
// filled with 0xFF bytes first — NaN in every floating dtype, -1 in the integers — so a
// kernel that adds into its output instead of assigning it, or leaves part of it unwritten,
// gives NaN instead of passing by luck on recycled zeros. The op table runs this way. Tests
// may change the byte (set_new_memory_fill): without LibTorch to compare with, the op table
// runs an op again on zero-filled memory and requires the same result.
std::atomic<int> g_new_memory_fill{std::getenv("NABLA_POISON_NEW_MEMORY") ? 0xFF : -1};

void* alloc_block(size_t nbytes) {
  if (nbytes <= kMaxSmall) {
    int c = size_class(nbytes);
    if (!t_cache_gone)
      if (void* p = t_cache.take(c)) return p;
    return system_alloc(kAlign << c);
  }
  size_t rounded = (nbytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
  {
    LargeCache& cache = large_cache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (void* p = cache.take(rounded)) return p;
  }
  return system_alloc(rounded);
}

}  // namespace

namespace {

// Note [Allocation limits]: this thread's bound, and the message an allocation over it gets.
thread_local size_t t_max_bytes = ~size_t{0};
thread_local const std::string* t_limit_message = nullptr;

}  // namespace

detail::AllocationLimit::AllocationLimit(size_t max_bytes, std::string message)
    : previous_max_(t_max_bytes), previous_message_(t_limit_message), message_(std::move(message)) {
  if (max_bytes < t_max_bytes) {
    t_max_bytes = max_bytes;
    t_limit_message = &message_;
  }
}

detail::AllocationLimit::~AllocationLimit() {
  t_max_bytes = previous_max_;
  t_limit_message = previous_message_;
}

void* cpu_alloc(size_t nbytes) {
  NABLA_CHECK(nbytes <= (size_t(1) << 62), "cpu_alloc: size ", nbytes, " bytes overflows");
  if (nbytes > t_max_bytes) [[unlikely]]
    NABLA_CHECK(false, *t_limit_message, " (", nbytes, " bytes asked for, ", t_max_bytes,
                " allowed here)");
  void* p = alloc_block(nbytes);
  track(nbytes);  // after: a failed allocation must not count as allocated memory
  if (const int fill = g_new_memory_fill.load(std::memory_order_relaxed); fill >= 0) [[unlikely]]
    std::memset(p, fill, nbytes);
  return p;
}

int new_memory_fill() { return g_new_memory_fill.load(std::memory_order_relaxed); }

int set_new_memory_fill(int byte) {
  NABLA_CHECK(byte >= -1 && byte <= 0xFF, "set_new_memory_fill: expected a byte or -1, got ", byte);
  return g_new_memory_fill.exchange(byte, std::memory_order_relaxed);
}

void cpu_free(void* p, size_t nbytes) {
  if (!p) return;
  g_allocated.fetch_sub(nbytes, std::memory_order_relaxed);
  if (nbytes <= kMaxSmall) {
    const int c = size_class(nbytes);
    if (!t_cache_gone && t_cache.keep(c, p, max_cached(c))) return;
    std::free(p);
    return;
  }
  size_t rounded = (nbytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
  LargeCache& cache = large_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.put(rounded, p);
}

void cpu_empty_cache() {
  if (!t_cache_gone) t_cache.clear();
  LargeCache& cache = large_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.clear();
}

}  // namespace nabla
