// Deferred device checks (Note [Deferred device checks], device_checks.h).
#include "nabla/core/detail/cuda/device_checks.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "nabla/core/cuda.h"
#include "nabla/core/detail/cuda/cuda_check.h"

namespace nabla::cuda::detail {
namespace {

constexpr int kMaxDevices = 16;
constexpr size_t kSlots = 4096;  // per device; each two words

struct Pending {
  size_t slot;
  CUstream_st* stream;
  DeferredCheck what;
};

struct DeviceSlots {
  std::mutex mutex;
  volatile unsigned long long* host = nullptr;  // kSlots pairs, mapped
  unsigned long long* device = nullptr;         // the same memory, as the device sees it
  std::vector<size_t> free;
  std::vector<Pending> pending;
};

DeviceSlots& slots_of(int device) {
  static DeviceSlots* all = new DeviceSlots[kMaxDevices];  // never destroyed
  NABLA_CHECK(device >= 0 && device < kMaxDevices, "CUDA device index ", device, " out of range");
  return all[device];
}

// Allocates the device's slots on first use; the caller holds the lock.
void ensure_slots(DeviceSlots& s, int device) {
  if (s.host) return;
  CUDAGuard guard(device);
  void* p = nullptr;
  NABLA_CUDA_CHECK(cudaHostAlloc(&p, kSlots * 2 * sizeof(unsigned long long),
                                 cudaHostAllocMapped | cudaHostAllocPortable));
  void* d = nullptr;
  NABLA_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
  s.host = static_cast<volatile unsigned long long*>(p);
  s.device = static_cast<unsigned long long*>(d);
  for (size_t i = 0; i < kSlots * 2; ++i) s.host[i] = 0;
  s.free.reserve(kSlots);
  for (size_t i = kSlots; i > 0; --i) s.free.push_back(i - 1);
}

// Reads the pending checks after a wait (lock held): releases the finished ones, returns
// the wording of the first failure ("" if none).
std::string collect(DeviceSlots& s, Waited waited, CUstream_st* stream) {
  std::string failure;
  std::vector<Pending> still;
  for (Pending& p : s.pending) {
    volatile unsigned long long* w = s.host + 2 * p.slot;
    const bool failed = w[0] != 0;
    const bool finished =
        waited == Waited::Device || (waited == Waited::Stream && p.stream == stream);
    if (failed && failure.empty())
      failure = str(p.what.op, ": ", p.what.noun, " ", static_cast<int64_t>(w[1]),
                    " is out of bounds for ", p.what.context,
                    " (found by a check on the GPU, raised at the next wait for the device)");
    if (failed || finished) {
      w[0] = 0;
      w[1] = 0;
      s.free.push_back(p.slot);
    } else {
      still.push_back(std::move(p));
    }
  }
  s.pending = std::move(still);
  return failure;
}

}  // namespace

unsigned long long* claim_check_slot(int device, CUstream_st* stream, DeferredCheck what) {
  DeviceSlots& s = slots_of(device);
  std::string failure;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    ensure_slots(s, device);
    if (s.free.empty()) {
      // Every slot is claimed: wait for the device, which releases them all.
      CUDAGuard guard(device);
      note_host_sync();
      NABLA_CUDA_CHECK(cudaDeviceSynchronize());
      failure = collect(s, Waited::Device, nullptr);
    }
    if (failure.empty()) {
      const size_t slot = s.free.back();
      s.free.pop_back();
      s.pending.push_back({slot, stream, std::move(what)});
      return s.device + 2 * slot;
    }
  }
  throw Error(failure);
}

void raise_failed_checks(int device, Waited waited, CUstream_st* stream) {
  DeviceSlots& s = slots_of(device);
  std::string failure;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.pending.empty()) return;
    failure = collect(s, waited, stream);
  }
  if (!failure.empty()) throw Error(failure);
}

}  // namespace nabla::cuda::detail
