// The CPU caching allocator. Profiling tiny ops showed malloc/free (memalign in
// particular) taking ~45% of the time, and large results paying page faults on every
// call; recycling blocks removes both.
//  - Small blocks (<= 64 KiB) use power-of-two classes from 64 B, cached per thread
//    (bounded per class), so the hot path takes no lock.
//  - Large blocks are rounded up to 4 KiB and cached process-wide by exact size, up to
//    kMaxCachedLarge bytes; beyond that they go back to the system.
#include <array>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/storage.h"

namespace nabla {
namespace {

constexpr size_t kAlign = 64;
constexpr int kNumClasses = 11;  // 64 B << 0..10 = 64 B .. 64 KiB
constexpr size_t kMaxSmall = kAlign << (kNumClasses - 1);
constexpr size_t kMaxPerClass = 256;
constexpr size_t kLargeGranule = 4096;
constexpr size_t kMaxCachedLarge = size_t(512) << 20;

std::atomic<size_t> g_allocated{0};
std::atomic<size_t> g_peak{0};

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
  void* p = std::aligned_alloc(kAlign, rounded);
  NABLA_CHECK(p != nullptr, "cpu_alloc: out of memory allocating ", rounded, " bytes");
  return p;
}

// Set when this thread's cache is gone (thread exit, static destruction): later frees
// bypass it. A trivially destructible thread_local stays readable until the end.
thread_local bool t_cache_gone = false;

struct ThreadCache {
  std::array<std::vector<void*>, kNumClasses> free;
  ~ThreadCache() {
    t_cache_gone = true;
    for (auto& list : free)
      for (void* p : list) std::free(p);
  }
};
thread_local ThreadCache t_cache;

struct LargeCache {
  std::mutex mutex;
  std::multimap<size_t, void*> blocks;
  size_t bytes = 0;
  ~LargeCache() {
    for (auto& [size, p] : blocks) std::free(p);
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

void* cpu_alloc(size_t nbytes) {
  NABLA_CHECK(nbytes <= (size_t(1) << 62), "cpu_alloc: size ", nbytes, " bytes overflows");
  track(nbytes);
  if (nbytes <= kMaxSmall) {
    int c = size_class(nbytes);
    if (t_cache_gone) return system_alloc(kAlign << c);
    auto& list = t_cache.free[c];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
    return system_alloc(kAlign << c);
  }
  size_t rounded = (nbytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
  {
    LargeCache& cache = large_cache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.blocks.find(rounded);
    if (it != cache.blocks.end()) {
      void* p = it->second;
      cache.blocks.erase(it);
      cache.bytes -= rounded;
      return p;
    }
  }
  return system_alloc(rounded);
}

void cpu_free(void* p, size_t nbytes) {
  if (!p) return;
  g_allocated.fetch_sub(nbytes, std::memory_order_relaxed);
  if (nbytes <= kMaxSmall) {
    if (t_cache_gone) {
      std::free(p);
      return;
    }
    auto& list = t_cache.free[size_class(nbytes)];
    if (list.size() < kMaxPerClass) {
      list.push_back(p);
      return;
    }
    std::free(p);
    return;
  }
  size_t rounded = (nbytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
  LargeCache& cache = large_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.bytes + rounded > kMaxCachedLarge) {
    std::free(p);
    return;
  }
  cache.blocks.emplace(rounded, p);
  cache.bytes += rounded;
}

void cpu_empty_cache() {
  if (!t_cache_gone)
    for (auto& list : t_cache.free) {
    for (void* p : list) std::free(p);
    list.clear();
  }
  LargeCache& cache = large_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  for (auto& [size, p] : cache.blocks) std::free(p);
  cache.blocks.clear();
  cache.bytes = 0;
}

}  // namespace nabla
