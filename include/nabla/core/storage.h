#pragma once
// Storage: the bytes a tensor and all of its views share ("Storage layer").
// CPU bytes come from a 64-byte aligned allocator; from_blob storages wrap user memory
// and call the user's deleter (if any) when the last view goes away.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "nabla/core/device.h"

namespace nabla {

namespace detail {
/// Whether InferenceMode (nabla/autograd/grad_mode.h) is on in this thread: storage made
/// while it is on belongs to inference tensors.
inline bool& inference_mode_enabled() {
  thread_local bool enabled = false;
  return enabled;
}
}  // namespace detail

/// 64-byte aligned CPU memory from a caching allocator (cpu_allocator.cpp): small blocks
/// are recycled through per-thread size-class lists, large ones through a bounded
/// process-wide cache, so training loops stop calling malloc after the first step.
/// Returns non-null (nabla::Error when the request cannot be met). cpu_free must get
/// the same nbytes.
void* cpu_alloc(size_t nbytes);
void cpu_free(void* p, size_t nbytes);
/// Returns every cached (free) block to the system.
void cpu_empty_cache();
/// The byte cpu_alloc fills every new block with, or -1 for none (Note [Poisoned new
/// memory], cpu_allocator.cpp): 0xFF when NABLA_POISON_NEW_MEMORY is set at start-up, else
/// -1. For tests: a result that changes with the fill read memory before writing it.
/// set_new_memory_fill returns the previous value.
int new_memory_fill();
int set_new_memory_fill(int byte);

/// Bytes of tensor storage currently allocated by nabla on the CPU, and the peak since
/// the last reset_peak_memory() (for memory tests and benchmarks).
size_t cpu_memory_allocated();
size_t cpu_memory_peak();
void reset_peak_memory();
/// Bytes of free large blocks held by the cache (at most 512 MiB), and how many times
/// cpu_alloc has asked the system for memory: a training loop that stops allocating
/// after warm-up leaves this count still.
size_t cpu_memory_cached();
size_t cpu_system_allocations();

/// A view of a storage's memory as LibTorch's DataPtr: the pointer, its device and the
/// deleter's context (nabla's own allocations: the memory itself; from_blob memory: the
/// deleter, or null when none was given, as LibTorch's). It does not own the memory.
class DataPtr {
 public:
  DataPtr(void* data, void* context, Device device)
      : data_(data), context_(context), device_(device) {}
  void* get() const { return data_; }
  void* get_context() const { return context_; }
  Device device() const { return device_; }
  explicit operator bool() const { return data_ != nullptr; }

 private:
  void* data_;
  void* context_;
  Device device_;
};

class StorageImpl {
 public:
  /// Owns `nbytes` fresh bytes on `device`.
  StorageImpl(size_t nbytes, Device device);
  /// Wraps external memory; `deleter` (may be empty) runs on destruction.
  StorageImpl(void* data, size_t nbytes, Device device, std::function<void(void*)> deleter);
  ~StorageImpl();
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return data_; }
  DataPtr data_ptr() const {
    return DataPtr(data_,
                   owned_     ? data_
                   : deleter_ ? const_cast<void*>(static_cast<const void*>(&deleter_))
                              : nullptr,
                   device_);
  }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// Grows the bytes to `nbytes`, keeping the old ones in front (Tensor::resize_); every
  /// view sees the new memory. Memory wrapped by from_blob cannot grow (nabla::Error).
  void grow(size_t nbytes);

  // Note [Version counter]
  // Every in-place write to a tensor bumps the counter of its storage. Views share
  // their base's storage and so its counter; detach() shares it as
  // PyTorch's does; clone() gets a new storage and a new counter. Autograd's saved
  // tensors remember the version they saw and refuse to unpack after it changed.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  /// Made in InferenceMode: its tensors are inference tensors (Tensor::is_inference).
  bool is_inference() const { return inference_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  bool owned_;
  std::function<void(void*)> deleter_;
  std::atomic<uint32_t> version_{0};
  bool inference_ = detail::inference_mode_enabled();
};

/// Shared ownership of a StorageImpl (a shared_ptr), with the methods of LibTorch's
/// Storage: t.storage().data() is the first byte of t's memory.
class Storage : public std::shared_ptr<StorageImpl> {
 public:
  using std::shared_ptr<StorageImpl>::shared_ptr;
  Storage(std::shared_ptr<StorageImpl> impl)  // NOLINT: a shared_ptr is a Storage
      : std::shared_ptr<StorageImpl>(std::move(impl)) {}
  void* data() const { return get()->data(); }
  DataPtr data_ptr() const { return get()->data_ptr(); }
  size_t nbytes() const { return get()->nbytes(); }
  Device device() const { return get()->device(); }
  bool is_alias_of(const Storage& other) const { return get() == other.get(); }
  StorageImpl* unsafeGetStorageImpl() const { return get(); }
};

}  // namespace nabla
