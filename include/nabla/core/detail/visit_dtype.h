#pragma once
// The one switch from a ScalarType to the C++ type that stores it, shared by the ops
// (item(), tensor(), scalar_tensor()) and the CPU kernels' dispatch (backend/cpu/loops.h).
// In core so that every layer can use it.
#include <cstdint>

#include "nabla/core/error.h"
#include "nabla/core/scalar_type.h"

namespace nabla::detail {

template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) with the C++ type T that stores `dtype`; the 16-bit floats (no
/// C++ type here) call reduced() instead. Both return the same type.
template <class F, class R>
decltype(auto) visit_dtype(ScalarType dtype, F&& f, R&& reduced) {
  switch (dtype) {
    case kBool:
      return f(TypeTag<bool>{});
    case kByte:
      return f(TypeTag<uint8_t>{});
    case kChar:
      return f(TypeTag<int8_t>{});
    case kShort:
      return f(TypeTag<int16_t>{});
    case kInt:
      return f(TypeTag<int32_t>{});
    case kLong:
      return f(TypeTag<int64_t>{});
    case kFloat:
      return f(TypeTag<float>{});
    case kDouble:
      return f(TypeTag<double>{});
    case kHalf:
    case kBFloat16:
      return reduced();
  }
  NABLA_ASSERT(false, "unknown dtype ", static_cast<int>(dtype));
}

}  // namespace nabla::detail
