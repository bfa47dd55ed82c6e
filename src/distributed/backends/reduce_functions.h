#pragma once
// Elementwise reductions over raw buffers, for backends that take a reduction function
// (Gloo): out[i] = a[i] op b[i] for the group's wire dtypes (process_group.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "nabla/core/error.h"
#include "nabla/core/scalar_type.h"
#include "nabla/distributed/types.h"

namespace nabla::distributed::detail {

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <class T, class F>
void reduce_loop(void* out, const void* a, const void* b, size_t n, F f) {
  auto* o = static_cast<T*>(out);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
}

template <class T>
ReduceFn reduce_function(ReduceOp op) {
  switch (op.op_) {
    case ReduceOp::SUM:
      return [](void* o, const void* a, const void* b, size_t n) {
        reduce_loop<T>(o, a, b, n, [](T x, T y) { return static_cast<T>(x + y); });
      };
    case ReduceOp::PRODUCT:
      return [](void* o, const void* a, const void* b, size_t n) {
        reduce_loop<T>(o, a, b, n, [](T x, T y) { return static_cast<T>(x * y); });
      };
    case ReduceOp::MIN:
      return [](void* o, const void* a, const void* b, size_t n) {
        reduce_loop<T>(o, a, b, n, [](T x, T y) { return std::min(x, y); });
      };
    case ReduceOp::MAX:
      return [](void* o, const void* a, const void* b, size_t n) {
        reduce_loop<T>(o, a, b, n, [](T x, T y) { return std::max(x, y); });
      };
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op.op_) {
      case ReduceOp::BAND:
        return [](void* o, const void* a, const void* b, size_t n) {
          reduce_loop<T>(o, a, b, n, [](T x, T y) { return static_cast<T>(x & y); });
        };
      case ReduceOp::BOR:
        return [](void* o, const void* a, const void* b, size_t n) {
          reduce_loop<T>(o, a, b, n, [](T x, T y) { return static_cast<T>(x | y); });
        };
      case ReduceOp::BXOR:
        return [](void* o, const void* a, const void* b, size_t n) {
          reduce_loop<T>(o, a, b, n, [](T x, T y) { return static_cast<T>(x ^ y); });
        };
      default:
        break;
    }
  }
  throw Error(str("reduce: ReduceOp ", to_string(op), " does not apply to this dtype"));
}

// Calls f(T{}) with T the C++ type of a wire dtype.
template <class F>
decltype(auto) dispatch_wire(ScalarType dtype, F&& f) {
  switch (dtype) {
    case kFloat:
      return f(float{});
    case kDouble:
      return f(double{});
    case kByte:
      return f(uint8_t{});
    case kInt:
      return f(int32_t{});
    case kLong:
      return f(int64_t{});
    default:
      throw Error(str("collective: ", toString(dtype), " is not a wire dtype"));
  }
}

}  // namespace nabla::distributed::detail
