#include "ops/op_utils.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/autograd_meta.h"
#include "nabla/core/object_pool.h"
#include "nabla/ops/factories.h"
#include "ops/shape/views_backward.h"

namespace nabla::ops {

void check_index_range(const Tensor& index, int64_t lo, int64_t hi, const IndexCheck& what) {
  if (index.numel() == 0) return;
  const Tensor c = (index.scalar_type() == kLong ? index : index.to(kLong)).contiguous();
  backend_for(c.device()).check_index_range(c, lo, hi, what);
}

Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device, MemoryFormat format,
                    const Tensor* like) {
  if (format == MemoryFormat::Preserve) {
    NABLA_ASSERT(like != nullptr, "empty_tensor: Preserve needs a tensor to follow");
    if (!is_non_overlapping_and_dense(like->sizes(), like->strides()))
      format = suggest_memory_format(like->sizes(), like->strides());
    else if (!like->is_contiguous()) {
      Tensor t = empty_tensor(sizes, dtype, device);
      t.unsafeGetTensorImpl()->set_geometry(sizes, like->strides(), 0);
      return t;
    } else
      format = MemoryFormat::Contiguous;
  }
  Tensor t = empty_tensor(sizes, dtype, device);
  if (format != MemoryFormat::Contiguous)
    t.unsafeGetTensorImpl()->set_geometry(sizes, strides_for_memory_format(sizes, format), 0);
  return t;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    NABLA_CHECK(da == db || da == 1 || db == 1, op, ": the size of tensor a (", da,
                ") must match the size of tensor b (", db, ") at non-singleton dimension ", i,
                " (shapes ", a, " and ", b, " cannot be broadcast)");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor expand_to(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  return t.expand(shape);
}

Tensor cast(const Tensor& t, ScalarType dtype) {
  return t.scalar_type() == dtype ? t : t.to(dtype);
}

namespace {
int category(ScalarType t) { return t == kBool ? 0 : (isFloatingType(t) ? 2 : 1); }

// Promotes `state` (the result so far from higher-priority operands) with a
// lower-priority operand's dtype: only a higher category changes it.
ScalarType promote_lower(ScalarType state, ScalarType lower, bool lower_is_scalar) {
  if (category(lower) <= category(state)) return state;
  if (lower_is_scalar) return category(lower) == 2 ? get_default_dtype() : kLong;
  return lower;
}
}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) {
  bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promoteTypes(a.scalar_type(), b.scalar_type());
  const Tensor& hi = a0 ? b : a;
  const Tensor& lo = a0 ? a : b;
  return promote_lower(hi.scalar_type(), lo.scalar_type(), false);
}

ScalarType scalar_dtype(const Scalar& s) {
  if (s.isBoolean()) return kBool;
  if (s.isIntegral(false)) return kLong;
  return get_default_dtype();
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  return promote_lower(a.scalar_type(), scalar_dtype(b), true);
}

Tensor constant_scalar(const Scalar& s, ScalarType dtype, Device device) {
  if (!device.is_cpu()) return scalar_tensor(s, dtype, device);
  struct Entry {
    bool is_double = false;
    uint64_t bits = 0;
    ScalarType dtype = kFloat;
    bool inference = false;  // made in InferenceMode: an inference tensor, kept apart
    Tensor value;
  };
  thread_local std::array<Entry, 8> cache;
  thread_local size_t next = 0;
  bool is_double = s.isFloatingPoint();
  uint64_t bits;
  if (is_double) {
    double d = s.toDouble();
    std::memcpy(&bits, &d, sizeof bits);
  } else {
    bits = static_cast<uint64_t>(s.isBoolean() ? int64_t(s.toBool()) : s.toLong());
  }
  const bool inference = ::nabla::detail::inference_mode_enabled();
  for (Entry& e : cache)
    if (e.value.defined() && e.is_double == is_double && e.bits == bits && e.dtype == dtype &&
        e.inference == inference)
      return e.value;
  Entry& slot = cache[next++ % cache.size()];
  slot = Entry{is_double, bits, dtype, inference, scalar_tensor(s, dtype, device)};
  return slot.value;
}

Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device) {
  Tensor t = empty_tensor({}, dtype, device);
  t.unsafeGetTensorImpl()->mark_factory_made();  // a constant when traced (Note [Tracing])
  if (!device.is_cpu()) {
    backend_for(device).fill(t, s);
    return t;
  }
  // Every `x * 2.0` makes one of these: write the value directly.
  void* p = ops::host_ptr(t);
  detail::visit_dtype(
      dtype,
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        *static_cast<T*>(p) = s.to<T>();
      },
      [&] { fill_reduced(t, s); });
  return t;
}

void check_defined(const Tensor& t, const char* what) {
  NABLA_CHECK(t.defined(), what, ": expected a defined tensor but got an undefined one");
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  NABLA_CHECK(a.device() == b.device(), op,
              ": expected all tensors to be on the same device, but found tensors on ", a.device(),
              " and ", b.device());
}

void unify_devices(Tensor& a, Tensor& b, const char* op) {
  if (a.device() == b.device()) return;
  if (a.dim() == 0 && a.is_cpu())
    a = a.to(b.device(), a.scalar_type());
  else if (b.dim() == 0 && b.is_cpu())
    b = b.to(a.device(), b.scalar_type());
  else
    check_same_device(a, b, op);
}

void check_inplace(const Tensor& self, IntArrayRef result_shape, ScalarType result_dtype,
                   const char* op) {
  // Before anything is written (bump_version refuses too, but after the write).
  NABLA_CHECK(!self.is_inference() || InferenceMode::is_enabled(), op,
              ": Inplace update to inference tensor outside InferenceMode is not allowed "
              "(the tensor was made inside InferenceMode; update a clone of it instead)");
  NABLA_CHECK(self.sizes() == result_shape, op, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", result_shape);
  bool ok = category(result_dtype) <= category(self.scalar_type());
  NABLA_CHECK(ok, op, ": result type ", result_dtype, " can't be cast to the desired output type ",
              self.scalar_type());
  // A view made under no_grad must not be written with grad on, even by a write that
  // records nothing (Note [Views and in-place]).
  if (GradMode::is_enabled() && self.unsafeGetTensorImpl()->autograd_meta())
    check_inplace_autograd(self, op);
}

void check_in_bounds(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                     const char* op) {
  NABLA_CHECK(sizes.size() == strides.size(), op, ": mismatch in length of sizes (", sizes.size(),
              ") and strides (", strides.size(), ")");
  NABLA_CHECK(offset >= 0, op, ": negative storage offset ", offset);
  int64_t n = checked_numel(sizes, op);
  if (n == 0) return;
  int64_t max_index = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    NABLA_CHECK(strides[i] >= 0, op, ": negative strides are not supported, got ", strides);
    max_index += (sizes[i] - 1) * strides[i];
  }
  int64_t capacity = static_cast<int64_t>(base.impl()->storage()->nbytes() / base.element_size());
  NABLA_CHECK(max_index < capacity, op, ": setStorage: sizes ", sizes, ", strides ", strides,
              " and storage offset ", offset, " need ", max_index + 1,
              " elements, but the storage holds only ", capacity);
}

const Tensor& assign_with_history(const Tensor& self, const Tensor& result, const char* op) {
  check_inplace_autograd(self, op);  // leaves, views of leaves, ... (shape/views_backward.h)
  backend_for(self.device()).copy(self, result);
  bump_version(self);
  rebase_history(self, result);  // Note [Views and in-place]
  return self;
}

Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (g.sizes() == shape) return g;
  int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;  // inline: no allocation per broadcast gradient
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g.size(lead + static_cast<int64_t>(i)) != 1)
      dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? g : g.sum(dims, /*keepdim=*/true);
  return r.view(shape);
}

namespace {
autograd::variable_list scatter_to_self(autograd::OpNode<IndexedCopy>& n, const Tensor& grad,
                                        bool accumulate) {
  const IndexedCopy& s = n.state;
  if (s.self_sizes.empty()) return {grad};  // 0-d input: the value is the input
  Tensor base = zeros(s.self_sizes, TensorOptions(grad.scalar_type()).device(grad.device()));
  const Tensor& index = n.get(s.indices);
  return {accumulate ? base.scatter_add(s.dim, index, grad) : base.scatter(s.dim, index, grad)};
}
}  // namespace

autograd::variable_list indexed_copy_backward(autograd::OpNode<IndexedCopy>& n,
                                              const autograd::variable_list& grads) {
  return scatter_to_self(n, grads[0], false);
}
autograd::variable_list indexed_copy_add_backward(autograd::OpNode<IndexedCopy>& n,
                                                  const autograd::variable_list& grads) {
  return scatter_to_self(n, grads[0], true);
}

void record_indexed_copy(const autograd::NodeType<IndexedCopy>& type, const Tensor& x, int64_t d,
                         const Tensor& values, const Tensor& indices) {
  auto node = autograd::record_node(type, {&x});
  if (!node) return;
  node->state.self_sizes.assign(x.sizes().begin(), x.sizes().end());
  node->state.dim = d;
  node->state.indices = autograd::save(indices);
  autograd::set_history(values, node);
}

}  // namespace nabla::ops
