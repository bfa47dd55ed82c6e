#include "nabla/core/storage.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "nabla/core/error.h"

namespace nabla {

namespace {
std::atomic<size_t> g_allocated{0};
std::atomic<size_t> g_peak{0};
}  // namespace

size_t cpu_memory_allocated() { return g_allocated.load(std::memory_order_relaxed); }
size_t cpu_memory_peak() { return g_peak.load(std::memory_order_relaxed); }
void reset_peak_memory() { g_peak.store(g_allocated.load(std::memory_order_relaxed)); }

void* cpu_alloc(size_t nbytes) {
  constexpr size_t kAlign = 64;
  // Round up so aligned_alloc's size requirement holds; zero bytes still gets a block
  // so data() is never null.
  size_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  if (rounded == 0) rounded = kAlign;
  NABLA_CHECK(rounded >= nbytes, "cpu_alloc: size ", nbytes, " bytes overflows");
  void* p = std::aligned_alloc(kAlign, rounded);
  NABLA_CHECK(p != nullptr, "cpu_alloc: out of memory allocating ", nbytes, " bytes");
  size_t now = g_allocated.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
  size_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void cpu_free(void* p, size_t nbytes) {
  g_allocated.fetch_sub(nbytes, std::memory_order_relaxed);
  std::free(p);
}

StorageImpl::StorageImpl(size_t nbytes, Device device)
    : data_(nullptr), nbytes_(nbytes), device_(device), owned_(true) {
  NABLA_CHECK(device.is_cpu(), "Storage: device ", device,
              " is not available in this build (only cpu)");
  data_ = cpu_alloc(nbytes);
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device,
                         std::function<void(void*)> deleter)
    : data_(data), nbytes_(nbytes), device_(device), owned_(false), deleter_(std::move(deleter)) {}

StorageImpl::~StorageImpl() {
  if (owned_) cpu_free(data_, nbytes_);
  else if (deleter_) deleter_(data_);
}

}  // namespace nabla
