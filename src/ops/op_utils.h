#pragma once
// Helpers shared by the ops: dim wrapping, broadcasting, output allocation, dtype rules.
#include "nabla/autograd/record.h"
#include "nabla/backend/backend.h"
#include "nabla/core/detail/visit_dtype.h"
#include "nabla/core/tensor.h"

namespace nabla {
// The names every op family's backward nodes are written with (include/nabla/autograd/record.h).
using autograd::NodeType;
using autograd::OpNode;
using autograd::SavedVariable;
using autograd::variable_list;
}  // namespace nabla

namespace nabla::ops {

/// wrap_dim(dim, ndim, op): a possibly negative `dim` wrapped into [0, ndim), `op` named in
/// the error (core's, nabla/core/tensor.h, so that the layers below ops use it too).
using ::nabla::detail::wrap_dim;

/// A fresh contiguous tensor (uninitialized).
inline Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  return empty_contiguous(sizes, dtype, device);
}
/// A fresh dense tensor laid out in `format`; Preserve takes `like`'s strides when it is
/// non-overlapping and dense, else the layout `like` suggests (LibTorch's rule).
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device, MemoryFormat format,
                    const Tensor* like = nullptr);

/// The broadcast of two shapes; a nabla::Error naming `op` when incompatible.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

/// `t` viewed with sizes `shape` (stride 0 on broadcast dims); requires compatibility.
Tensor expand_to(const Tensor& t, IntArrayRef shape);

/// `t` converted to `dtype` (the same tensor when it already has it).
Tensor cast(const Tensor& t, ScalarType dtype);

/// PyTorch's result_type for an op over tensors and scalars: dimensioned tensors take
/// priority over 0-d tensors, which take priority over Scalars, except that a lower
/// priority operand of a higher category (bool < integral < floating) raises the
/// result to that category's default (a float Scalar with an int tensor gives float32).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

/// The dtype a Scalar becomes as a tensor (bool, int64 or the default float).
ScalarType scalar_dtype(const Scalar& s);
/// A 0-d tensor holding `s` in `dtype`.
Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device);
/// A 0-d zero of t's dtype and device, as the masked-out branch of a where().
inline Tensor zero_like_scalar(const Tensor& t) {
  return scalar_tensor(0, t.scalar_type(), t.device());
}

/// A read-only 0-d tensor holding `s` in `dtype`, shared by calls that ask for the same
/// value: `x * 2.0` reuses the constant of the last few such calls on this thread instead
/// of allocating one per op. Never write into it (the binary ops only read their operands).
Tensor constant_scalar(const Scalar& s, ScalarType dtype, Device device);

/// Raises unless `t` is defined; `what` names the op and argument.
void check_defined(const Tensor& t, const char* what);
/// Raises when two tensors live on different devices.
void check_same_device(const Tensor& a, const Tensor& b, const char* op);
/// As check_same_device, except that a 0-d CPU tensor joins an op on another device by
/// moving there (LibTorch treats it as a number): a or b is replaced by its moved copy.
void unify_devices(Tensor& a, Tensor& b, const char* op);
/// Raises for in-place writes that cannot hold `result_dtype` (int tensor += float) or
/// whose broadcast shape differs from self's.
void check_inplace(const Tensor& self, IntArrayRef result_shape, ScalarType result_dtype,
                   const char* op);
/// Note [Host reads]: some ops read values on the host — shapes that
/// depend on values (nonzero, masked_select, repeat_interleave), and the few ops computed
/// there (multinomial, median, mode, unique, histc, the cumulative extremes, special
/// functions: a GPU tensor's values come to the host and the result goes back, one wait).
/// host_values gives a CPU tensor with t's values (t
/// itself on the CPU; for a CUDA tensor one device-to-host copy, which waits for the
/// device), and host_ptr is the only way ops take a pointer to read or write on the host:
/// a device tensor there is a nabla::Error naming the device, never a stray pointer.
inline Tensor host_values(const Tensor& t) { return t.is_cpu() ? t : t.detach().cpu(); }
template <class T = void>
T* host_ptr(const Tensor& t) {
  NABLA_CHECK(t.is_cpu(), "this op computes on the host and has no ", t.device().type(),
              " path yet: move its inputs to the CPU (.cpu()) first (Note [Host reads])");
  if constexpr (std::is_void_v<T>)
    return t.data_ptr();
  else
    return t.data_ptr<T>();
}

/// Raises unless every value of the integer tensor `index` lies in [lo, hi), worded by
/// `what`: "<op>: <noun> <value> is out of bounds for <context>". Without reading the index
/// on the host: the check is a kernel of index's device, which on a GPU raises at the next
/// host wait (Note [Deferred device checks]).
void check_index_range(const Tensor& index, int64_t lo, int64_t hi, const IndexCheck& what);

/// Marks an in-place write (Note [Version counter]).
inline void bump_version(const Tensor& t) { t.unsafeGetTensorImpl()->bump_version(); }

/// In-place op on a tensor that takes part in autograd: `result` (computed out of place,
/// with its graph) is copied into `self`, whose history becomes result's (PyTorch's
/// rebase_history). A leaf that requires grad is refused outside no_grad.
const Tensor& assign_with_history(const Tensor& self, const Tensor& result, const char* op);

/// The in-place form of an out-of-place op: `f(self)` is computed and written into
/// self. With autograd, f reads a clone so the graph keeps self's old value (as the
/// elementwise in-place ops do), and self's history becomes the result's; that holds too
/// when only another operand requires grad (`zeros.index_add_(0, i, w)`). The result must
/// fit self's shape and dtype (a float result cannot go into an int tensor).
template <class F>
const Tensor& inplace_from(const Tensor& self, const char* op, F&& f) {
  check_defined(self, op);
  const bool self_grad = autograd::any_requires_grad(self);
  Tensor r = f(self_grad ? self.clone() : self);
  // An operand requires grad: f's graph may have saved self, which the write overwrites.
  if (!self_grad && autograd::requires_grad(r)) r = f(self.clone());
  check_inplace(self, r.sizes(), r.scalar_type(), op);
  if (self_grad || autograd::requires_grad(r)) return assign_with_history(self, r, op);
  backend_for(self.device()).copy(self, r);  // a copy converts 16-bit floats too
  bump_version(self);
  return self;
}

/// Sums `g` down to `shape` (the inverse of broadcasting), for gradients of broadcast inputs.
Tensor sum_to(const Tensor& g, IntArrayRef shape);

/// The state of the ops whose outputs copy elements of `x` picked along one dim by an index
/// tensor shaped like the output (gather, sort, topk, cummax, cummin; index_select's index
/// is 1-d): the gradient goes back to the picked elements.
struct IndexedCopy {
  DimVector self_sizes;
  int64_t dim = 0;  // wrapped
  autograd::SavedVariable indices;
  auto saved() { return std::tie(indices); }
};
/// grad_self [self_sizes] = zeros with grad [values] scattered to the indices, each element
/// picked at most once (sort, topk).
autograd::variable_list indexed_copy_backward(autograd::OpNode<IndexedCopy>& n,
                                              const autograd::variable_list& grads);
/// The same, summing where an element is picked more than once (gather, cummax, cummin).
autograd::variable_list indexed_copy_add_backward(autograd::OpNode<IndexedCopy>& n,
                                                  const autograd::variable_list& grads);
/// Records `values` (copied from `x` at `indices` along the wrapped dim `d`) as a node of
/// `type`.
void record_indexed_copy(const autograd::NodeType<IndexedCopy>& type, const Tensor& x, int64_t d,
                         const Tensor& values, const Tensor& indices);

/// Half/BFloat16 (storage dtypes, src/ops/elementwise/reduced_precision.cpp): dst = src converted,
/// src already of dst's sizes; a fill; a float64 copy of a 16-bit tensor.
void copy_with_reduced(const Tensor& dst, const Tensor& src);
void fill_reduced(const Tensor& t, const Scalar& value);
Tensor reduced_to_double(const Tensor& src);
/// dst = src through the backend, or the conversion above when a 16-bit float is involved.
inline void copy_any(const Tensor& dst, const Tensor& src) {
  // Same dtypes go to the backend, which copies the bits: through double, a float16 NaN
  // payload would become the canonical NaN (a clone of a loaded file would differ from it).
  if (dst.scalar_type() != src.scalar_type() &&
      (isReducedFloatingType(dst.scalar_type()) || isReducedFloatingType(src.scalar_type())))
      [[unlikely]]
    copy_with_reduced(dst, src);
  else
    backend_for(dst.device()).copy(dst, src);  // by device: backend_for(Tensor) refuses Half
}

/// Ensures a view stays inside its storage.
void check_in_bounds(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                     const char* op);
/// A view of `base` with new geometry, sharing storage (and so the version counter).
inline Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides,
                        int64_t offset) {
  return ::nabla::detail::alias_storage(base, sizes, strides, offset);
}

}  // namespace nabla::ops

// `dst = src` for a struct copied into a recorded node's state. GCC 12, inlining
// record_node into an op's forward (seen in unity batches), takes node->state for part of
// the Node base and warns that the copy overflows it (-Wstringop-overflow); the copy is
// inside OpNode<State>, as ASan agrees. The warning is off for this statement only.
#if defined(__GNUC__) && !defined(__clang__)
#define NABLA_ASSIGN_NODE_STATE(dst, src)                                                        \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wstringop-overflow\"") dst = \
      src;                                                                                       \
  _Pragma("GCC diagnostic pop")
#else
#define NABLA_ASSIGN_NODE_STATE(dst, src) dst = src
#endif
