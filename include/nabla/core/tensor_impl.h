#pragma once
// TensorImpl: the shape, layout and dtype of a tensor over a shared Storage, plus its
// autograd metadata ("TensorImpl layer"). Tensor is a handle to one of these.
#include <atomic>
#include <cstdint>
#include <memory>

#include "nabla/core/array_ref.h"
#include "nabla/core/device.h"
#include "nabla/core/scalar_type.h"
#include "nabla/core/small_vector.h"
#include "nabla/core/storage.h"

namespace nabla {

namespace autograd {
struct AutogradMeta;
}

class TensorImpl {
 public:
  /// A tensor over `storage` starting at element `offset` with the given geometry.
  /// Requires the geometry to stay inside the storage (checked by the caller ops).
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t offset);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return contiguous_; }
  const Storage& storage() const { return storage_; }
  /// Address of element 0 (storage data + offset).
  void* data() const {
    return static_cast<char*>(storage_->data()) +
           offset_ * static_cast<int64_t>(elementSize(dtype_));
  }

  /// Changes the geometry in place (used by in-place view ops such as squeeze_).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  /// Points this tensor at other bytes (Tensor::set_data); autograd meta is kept.
  void set_storage(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                   int64_t offset) {
    storage_ = std::move(storage);
    dtype_ = dtype;
    set_geometry(sizes, strides, offset);
  }

  uint32_t version() const { return storage_->version(); }
  /// An in-place write: counted for autograd's saved tensors. An inference tensor has no
  /// counter and takes writes only inside InferenceMode.
  void bump_version() {
    if (storage_->is_inference()) [[unlikely]] {
      refuse_inference_write();
      return;
    }
    storage_->bump_version();
  }
  bool is_inference() const { return storage_->is_inference(); }
  /// LibTorch's c10::VariableVersion handle (its read side): the counter this tensor
  /// shares with its views. Reading it raises for an inference tensor, which has none.
  class VersionCounter {
   public:
    explicit VersionCounter(const StorageImpl* storage) : storage_(storage) {}
    bool enabled() const { return !storage_->is_inference(); }
    uint32_t current_version() const {
      if (!enabled()) [[unlikely]]
        refuse_version_read();
      return storage_->version();
    }

   private:
    const StorageImpl* storage_;
  };
  VersionCounter version_counter() const { return VersionCounter(storage_.get()); }

  autograd::AutogradMeta* autograd_meta() const {
    return autograd_meta_.load(std::memory_order_acquire);
  }
  autograd::AutogradMeta& ensure_autograd_meta();

  /// The trace that was recording on this thread when this tensor was made (0: none),
  /// so that graph::trace can tell a tensor its code computed without a traced op from
  /// one it read from outside (Note [Tracing], src/graph/trace.cpp).
  uint32_t trace_epoch() const { return trace_epoch_; }
  /// Whether a factory (zeros, tensor, from_blob, ...) made this tensor: made while
  /// tracing, it is a constant of the graph, not an untraced computation.
  bool factory_made() const { return factory_made_; }
  void mark_factory_made() { factory_made_ = true; }

 private:
  [[noreturn]] static void refuse_inference_write_outside();
  [[noreturn]] static void refuse_version_read();
  static void refuse_inference_write() {
    if (!detail::inference_mode_enabled()) refuse_inference_write_outside();
  }
  void refresh();

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t offset_;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool contiguous_ = true;
  bool factory_made_ = false;
  uint32_t trace_epoch_;
  // Created on first use, possibly by several threads at once (Note [Lazy autograd meta],
  // tensor_impl.cpp); owned, deleted with the tensor.
  std::atomic<autograd::AutogradMeta*> autograd_meta_{nullptr};
};

/// The trace recording on this thread (0: none); new TensorImpls take it. Set by
/// graph::trace while the traced code runs.
inline thread_local uint32_t t_trace_epoch = 0;

/// Row-major strides for `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);
/// Product of sizes; throws nabla::Error naming `op` on negative sizes or overflow.
int64_t checked_numel(IntArrayRef sizes, const char* op);

}  // namespace nabla
