#pragma once
// CUDA devices, streams, events and the caching allocator's statistics: LibTorch's
// torch::cuda, c10::cuda and at::cuda (all nabla::cuda after the rename), and PyTorch's
// torch.cuda memory functions. Every function exists in every build: without CUDA (built
// with -DNABLA_CUDA=OFF, or no GPU on the machine) is_available() is false,
// device_count() 0, and the others raise a nabla::Error that says so.
#include <cstddef>
#include <cstdint>

#include "nabla/core/device.h"

// The CUDA runtime's own handle types (cudaStream_t is CUstream_st*), declared so that
// this header needs no CUDA header.
struct CUstream_st;
struct CUevent_st;

namespace nabla::cuda {

/// Whether a CUDA device can be used: the build has CUDA and the machine a GPU with a
/// driver.
bool is_available();
/// Number of CUDA devices (0 without CUDA).
int64_t device_count();
/// Whether convolutions run on cuDNN (built with it, and a GPU present).
bool cudnn_is_available();
/// Waits for all work queued on the device (-1: the current device).
void synchronize(int64_t device_index = -1);
/// The current device (LibTorch's c10::cuda::current_device) and setting it.
int64_t current_device();
void set_device(int64_t device_index);
/// Seeds the random number generator of the current CUDA device (manual_seed_all: of
/// every device). nabla::manual_seed seeds them all too, as torch::manual_seed does.
void manual_seed(uint64_t seed);
void manual_seed_all(uint64_t seed);

/// A CUDA stream of one device (c10::cuda::CUDAStream). The default stream is the one
/// kernels run on unless a CUDAStreamGuard or setCurrentCUDAStream chose another.
class CUDAStream {
 public:
  CUDAStream(int8_t device_index, CUstream_st* stream) : device_(device_index), stream_(stream) {}
  /// The cudaStream_t (nullptr: the device's legacy default stream).
  CUstream_st* stream() const { return stream_; }
  operator CUstream_st*() const { return stream_; }
  Device device() const { return Device(kCUDA, device_); }
  int64_t device_index() const { return device_; }
  /// Whether all work queued on the stream has finished.
  bool query() const;
  /// Waits for all work queued on the stream.
  void synchronize() const;
  bool operator==(const CUDAStream& o) const {
    return device_ == o.device_ && stream_ == o.stream_;
  }
  bool operator!=(const CUDAStream& o) const { return !(*this == o); }

 private:
  int8_t device_;
  CUstream_st* stream_;
};

/// The stream kernels of this thread run on for a device (-1: the current device).
CUDAStream getCurrentCUDAStream(int64_t device_index = -1);
/// The device's default stream.
CUDAStream getDefaultCUDAStream(int64_t device_index = -1);
/// A stream from a small per-device pool (created once, never destroyed), as LibTorch's.
CUDAStream getStreamFromPool(bool isHighPriority = false, int64_t device_index = -1);
/// Makes `stream` this thread's current stream of its device.
void setCurrentCUDAStream(CUDAStream stream);

/// Makes `stream` current (and its device the current device) for a scope, restoring
/// both on exit (c10::cuda::CUDAStreamGuard).
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(CUDAStream stream);
  ~CUDAStreamGuard();
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  CUDAStream original_stream() const { return original_; }
  CUDAStream current_stream() const { return current_; }

 private:
  CUDAStream original_, current_;
  int64_t original_device_;
};

/// Makes a device current for a scope (c10::cuda::CUDAGuard).
class CUDAGuard {
 public:
  explicit CUDAGuard(int64_t device_index);
  explicit CUDAGuard(Device device) : CUDAGuard(device.has_index() ? device.index() : -1) {}
  ~CUDAGuard();
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;

 private:
  int64_t original_;
};

/// A CUDA event (at::cuda::CUDAEvent), created on first record. Timing is on only when
/// constructed with enable_timing.
class CUDAEvent {
 public:
  explicit CUDAEvent(bool enable_timing = false) : timing_(enable_timing) {}
  ~CUDAEvent();
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  /// Records the event on `stream` (default: the current stream).
  void record();
  void record(const CUDAStream& stream);
  /// Makes `stream` wait for the work recorded before the event (no host wait).
  void block(const CUDAStream& stream);
  /// Whether the recorded work has finished (true when never recorded).
  bool query() const;
  /// Waits on the host for the recorded work.
  void synchronize() const;
  /// Milliseconds between this event and a later one (both recorded, timing enabled).
  float elapsed_time(const CUDAEvent& later) const;
  CUevent_st* event() const { return event_; }

 private:
  bool timing_;
  int8_t device_ = -1;
  CUevent_st* event_ = nullptr;
};

// ---- The caching allocator (PyTorch's torch.cuda.memory_* functions) ---------------------
/// Bytes of tensor memory in use on a device (-1: the current device).
size_t memory_allocated(int64_t device_index = -1);
/// The peak of memory_allocated since the start or the last reset_peak_memory_stats().
size_t max_memory_allocated(int64_t device_index = -1);
/// Bytes held from the driver (in use or cached for reuse).
size_t memory_reserved(int64_t device_index = -1);
void reset_peak_memory_stats(int64_t device_index = -1);
/// How many times the allocator asked the driver for memory (cudaMalloc) on a device: a
/// training loop that allocates nothing new after warm-up leaves this count still.
size_t device_allocations(int64_t device_index = -1);
/// How many times nabla made the host wait for a device (a copy to the host, item(),
/// synchronize(), a stream's or event's synchronize): a training step that queues its work
/// without waiting leaves this count still (the benchmarks count them per step).
size_t host_synchronizations();
/// Returns every cached, unused block to the driver.
void empty_cache();
namespace CUDACachingAllocator {
inline void emptyCache() { empty_cache(); }
}  // namespace CUDACachingAllocator

}  // namespace nabla::cuda
