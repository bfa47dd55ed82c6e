// The CUDA caching allocator. cudaMalloc and cudaFree synchronize the device and cost
// tens of microseconds, so freed blocks are kept per device and stream and handed out
// again: a training loop whose shapes repeat stops calling cudaMalloc after its first
// step (cuda::device_allocations() counts the calls). Blocks are rounded (512 bytes below
// 1 MiB, 2 MiB above) and reused for requests of up to twice less, never split. A block
// is reused only on the stream it was allocated on, so work queued before its free has
// finished before the next user's work starts (the stream orders them; Note [Current
// stream]). When cudaMalloc fails, the cache is returned to the driver and the call
// retried once; then the error names what was asked and what is held.
#include <map>
#include <mutex>
#include <unordered_map>

#include "nabla/core/cuda.h"
#include "nabla/core/detail/cuda/cuda_check.h"
#include "nabla/core/detail/cuda/device_checks.h"
#include "nabla/core/detail/device_memory.h"
#include "nabla/core/storage.h"

namespace nabla {
namespace {

constexpr size_t kSmall = size_t(1) << 20;
constexpr size_t kDeviceSmallGranule = 512;
constexpr size_t kDeviceLargeGranule = size_t(2) << 20;
constexpr int kMaxDevices = 16;

size_t round_size(size_t n) {
  const size_t g = n < kSmall ? kDeviceSmallGranule : kDeviceLargeGranule;
  return (n + g - 1) / g * g;
}

struct Block {
  size_t size;
  CUstream_st* stream;
};

struct DeviceCache {
  std::mutex mutex;
  std::multimap<size_t, std::pair<void*, CUstream_st*>> free_blocks;  // by size
  std::unordered_map<void*, Block> live;
  size_t allocated = 0, peak = 0, reserved = 0, mallocs = 0;

  // Frees every cached block; the caller holds the mutex and the device is current.
  void release_cached() {
    if (free_blocks.empty()) return;
    NABLA_CUDA_CHECK(cudaDeviceSynchronize());
    for (auto& [size, block] : free_blocks) {
      NABLA_CUDA_CHECK(cudaFree(block.first));
      reserved -= size;
    }
    free_blocks.clear();
  }
};

DeviceCache& cache(int device) {
  static DeviceCache* caches = new DeviceCache[kMaxDevices];  // never destroyed: late frees
  return caches[device];
}

int64_t resolve(int64_t device_index) {
  NABLA_CHECK(cuda::is_available(), "CUDA is not available: no CUDA device or driver");
  return device_index < 0 ? cuda::current_device() : device_index;
}

}  // namespace

namespace detail {

void* cuda_alloc(size_t nbytes, int device) {
  if (nbytes == 0) return nullptr;
  cuda::CUDAGuard guard(device);
  CUstream_st* stream = cuda::getCurrentCUDAStream(device).stream();
  const size_t rounded = round_size(nbytes);
  DeviceCache& c = cache(device);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.free_blocks.lower_bound(rounded);
         it != c.free_blocks.end() && it->first <= 2 * rounded; ++it) {
      if (it->second.second != stream) continue;
      p = it->second.first;
      c.live.emplace(p, Block{it->first, stream});
      c.free_blocks.erase(it);
      break;
    }
    if (!p) {
      cudaError_t err = cudaMalloc(&p, rounded);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        c.release_cached();
        err = cudaMalloc(&p, rounded);
      }
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw Error(str("CUDA out of memory: tried to allocate ", rounded,
                        " bytes on cuda:", device, " (", c.allocated, " bytes allocated by nabla, ",
                        c.reserved, " reserved)"));
      }
      NABLA_CUDA_CHECK(err);
      ++c.mallocs;
      c.reserved += rounded;
      c.live.emplace(p, Block{rounded, stream});
    }
    c.allocated += nbytes;
    if (c.allocated > c.peak) c.peak = c.allocated;
  }
  // Note [Poisoned new memory] (cpu_allocator.cpp) holds for device memory too.
  if (const int fill = new_memory_fill(); fill >= 0) [[unlikely]]
    NABLA_CUDA_CHECK(cudaMemsetAsync(p, fill, nbytes, stream));
  return p;
}

void cuda_free(void* p, size_t nbytes, int device) {
  if (!p) return;
  DeviceCache& c = cache(device);
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.live.find(p);
  if (it == c.live.end()) return;  // not ours (cannot happen for owned storages)
  c.free_blocks.emplace(it->second.size, std::make_pair(p, it->second.stream));
  c.live.erase(it);
  c.allocated -= nbytes;
}

void cuda_copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                     size_t nbytes, bool non_blocking) {
  // The CUDA side whose stream orders the copy: the destination's when it is on a GPU.
  const Device side = dst_device.is_cuda() ? dst_device : src_device;
  cuda::CUDAGuard guard(side.index());
  CUstream_st* stream = cuda::getCurrentCUDAStream(side.index()).stream();
  if (dst_device.is_cuda() && src_device.is_cuda() && dst_device != src_device)
    cuda::getCurrentCUDAStream(src_device.index()).synchronize();  // the source is complete
  NABLA_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream));
  // A copy to the host is complete on return unless asked otherwise into pinned memory;
  // a copy from the host has read its source on return (CUDA stages pageable memory).
  if (dst_device.is_cpu() && !(non_blocking && cuda_is_pinned(dst))) {
    cuda::detail::note_host_sync();
    NABLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    cuda::detail::raise_failed_checks(side.index(), cuda::detail::Waited::Stream, stream);
  }
}

void* cuda_host_alloc(size_t nbytes) {
  void* p = nullptr;
  NABLA_CUDA_CHECK(cudaHostAlloc(&p, nbytes > 0 ? nbytes : 1, cudaHostAllocDefault));
  return p;
}

void cuda_host_free(void* p) {
  if (p) (void)cudaFreeHost(p);
}

bool cuda_is_pinned(const void* p) {
  if (!p || !cuda::is_available()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace detail

namespace cuda {

namespace {

// One statistic of a device's cache, read under its lock.
size_t stat(int64_t device_index, size_t DeviceCache::*field) {
  DeviceCache& c = cache(static_cast<int>(resolve(device_index)));
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.*field;
}

}  // namespace

size_t memory_allocated(int64_t device_index) {
  return stat(device_index, &DeviceCache::allocated);
}
size_t max_memory_allocated(int64_t device_index) { return stat(device_index, &DeviceCache::peak); }
size_t memory_reserved(int64_t device_index) { return stat(device_index, &DeviceCache::reserved); }
size_t device_allocations(int64_t device_index) {
  return stat(device_index, &DeviceCache::mallocs);
}

void reset_peak_memory_stats(int64_t device_index) {
  DeviceCache& c = cache(static_cast<int>(resolve(device_index)));
  std::lock_guard<std::mutex> lock(c.mutex);
  c.peak = c.allocated;
}

void empty_cache() {
  for (int d = 0; d < device_count(); ++d) {
    CUDAGuard guard(d);
    DeviceCache& c = cache(d);
    std::lock_guard<std::mutex> lock(c.mutex);
    c.release_cached();
  }
}

}  // namespace cuda
}  // namespace nabla
