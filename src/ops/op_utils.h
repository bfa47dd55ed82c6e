#pragma once
// Helpers shared by the ops: dim wrapping, broadcasting, output allocation, dtype rules.
#include "nabla/backend/backend.h"
#include "nabla/core/tensor.h"

namespace nabla::ops {

/// Wraps a possibly negative `dim` into [0, ndim); `op` names the caller in the error.
/// A 0-d tensor accepts dims -1 and 0, as in LibTorch.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

/// A fresh contiguous tensor (uninitialized).
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device = Device(kCPU));

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
Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device = Device(kCPU));

/// Raises unless `t` is defined; `what` names the op and argument.
void check_defined(const Tensor& t, const char* what);
/// Raises when two tensors live on different devices.
void check_same_device(const Tensor& a, const Tensor& b, const char* op);
/// Raises for in-place writes that cannot hold `result_dtype` (int tensor += float) or
/// whose broadcast shape differs from self's.
void check_inplace(const Tensor& self, IntArrayRef result_shape, ScalarType result_dtype,
                   const char* op);
/// Marks an in-place write (Note [Version counter]).
inline void bump_version(const Tensor& t) { t.unsafeGetTensorImpl()->bump_version(); }

/// In-place op on a tensor that takes part in autograd: `result` (computed out of place,
/// with its graph) is copied into `self`, whose history becomes result's (PyTorch's
/// rebase_history). A leaf that requires grad is refused outside no_grad.
const Tensor& assign_with_history(const Tensor& self, const Tensor& result, const char* op);

/// Ensures a view stays inside its storage.
void check_in_bounds(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                     const char* op);
/// A view of `base` with new geometry, sharing storage (and so the version counter).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

}  // namespace nabla::ops
