#include "nabla/core/tensor_impl.h"

#include <algorithm>
#include <limits>

#include "nabla/core/autograd_meta.h"
#include "nabla/core/error.h"
#include "nabla/core/object_pool.h"
#include "nabla/core/tensor.h"

namespace nabla {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t offset)
    : storage_(std::move(storage)), offset_(offset), dtype_(dtype), trace_epoch_(t_trace_epoch) {
  set_geometry(sizes, strides, offset);
}

namespace autograd {

std::atomic<NodeReleaser> node_releaser{nullptr};

// Note [Releasing a tensor's history], nabla/core/autograd_meta.h.
AutogradMeta::~AutogradMeta() {
  if (grad_fn) node_releaser.load(std::memory_order_acquire)(std::move(grad_fn));
}

}  // namespace autograd

TensorImpl::~TensorImpl() { delete autograd_meta_.load(std::memory_order_acquire); }

void TensorImpl::refuse_inference_write_outside() {
  throw Error(
      "Inplace update to inference tensor outside InferenceMode is not allowed. An inference "
      "tensor (made inside InferenceMode) has no version counter; write to a clone of it "
      "(t.clone()), or do the update inside InferenceMode.");
}

void TensorImpl::refuse_version_read() {
  throw Error(
      "version_counter: Inference tensors do not track version counter. An inference tensor "
      "(made inside InferenceMode) takes no part in autograd; clone() it outside "
      "InferenceMode to get a tensor with a version counter.");
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  offset_ = offset;
  refresh();
}

void TensorImpl::refresh() {
  // Ops check sizes with checked_numel and their own name; this is the last line of
  // defence against a view whose element count overflows (signed overflow is UB).
  numel_ = 1;
  for (int64_t s : sizes_)
    NABLA_CHECK(!__builtin_mul_overflow(numel_, s, &numel_), "TensorImpl: size ",
                IntArrayRef(sizes_.data(), sizes_.size()),
                " has too many elements (overflows int64)");
  // Contiguous means row-major order; size-1 dims may have any stride.
  contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) {
      contiguous_ = false;
      return;
    }
    expected *= sizes_[d];
  }
}

// Note [Lazy autograd meta]
// A tensor gets its AutogradMeta when autograd first needs it, which may happen in several
// threads at once on one shared tensor: loader workers indexing a dataset each register a
// view with the dataset's tensor (shape/views_backward.cpp, register_view). The first thread to
// publish its AutogradMeta wins; the others use it and delete their own. (A plain
// check-then-assign lost one thread's meta and leaked what it held; found by LeakSanitizer
// in the fashion_mnist example.)
autograd::AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (autograd::AutogradMeta* m = autograd_meta_.load(std::memory_order_acquire)) return *m;
  auto fresh = std::make_unique<autograd::AutogradMeta>();
  autograd::AutogradMeta* expected = nullptr;
  if (autograd_meta_.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel))
    return *fresh.release();
  return *expected;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st(sizes.size());
  int64_t acc = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= std::max<int64_t>(sizes[d], 1);
  }
  return st;
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  // `spanned` is the product with zeros taken as ones: contiguous_strides computes it, so
  // an empty tensor such as [0, 2^40, 2^40] must not overflow it either.
  int64_t n = 1, spanned = 1;
  for (int64_t s : sizes) {
    NABLA_CHECK(s >= 0, op, ": negative dimension ", s, " in size ", sizes);
    const int64_t m = std::max<int64_t>(s, 1);
    if (spanned > std::numeric_limits<int64_t>::max() / m) {
      NABLA_CHECK(false, op, ": size ", sizes, " has too many elements (overflows int64)");
    }
    spanned *= m;
    n *= s;
  }
  return n;
}

Tensor detail::alias_storage(const Tensor& base, IntArrayRef sizes, IntArrayRef strides,
                             int64_t offset) {
  return Tensor(detail::make_pooled<TensorImpl>(base.impl()->storage(), base.scalar_type(), sizes,
                                                strides, offset));
}

Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t n = checked_numel(sizes, "empty");
  size_t es = elementSize(dtype);
  NABLA_CHECK(static_cast<uint64_t>(n) <= (uint64_t(1) << 62) / es, "empty: size ", sizes,
              " needs more bytes than can be addressed");
  auto storage = detail::make_pooled<StorageImpl>(static_cast<size_t>(n) * es, device);
  auto strides = contiguous_strides(sizes);
  return Tensor(detail::make_pooled<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

}  // namespace nabla
