#include "nabla/core/scalar_type.h"

#include <atomic>
#include <ostream>

#include "nabla/core/error.h"

namespace nabla {

size_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return 1;
    case ScalarType::Byte:
      return 1;
    case ScalarType::Int:
      return 4;
    case ScalarType::Long:
      return 8;
    case ScalarType::Float:
      return 4;
    case ScalarType::Double:
      return 8;
    case ScalarType::Half:
      return 2;
    case ScalarType::BFloat16:
      return 2;
  }
  NABLA_ASSERT(false, "unknown ScalarType ", static_cast<int>(t));
}

std::string_view toString(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "Bool";
    case ScalarType::Byte:
      return "Byte";
    case ScalarType::Int:
      return "Int";
    case ScalarType::Long:
      return "Long";
    case ScalarType::Float:
      return "Float";
    case ScalarType::Double:
      return "Double";
    case ScalarType::Half:
      return "Half";
    case ScalarType::BFloat16:
      return "BFloat16";
  }
  return "Unknown";
}

std::string_view dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Float:
      return "float32";
    case ScalarType::Double:
      return "float64";
    case ScalarType::Half:
      return "float16";
    case ScalarType::BFloat16:
      return "bfloat16";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

namespace {
std::atomic<ScalarType> g_default_dtype{ScalarType::Float};
}

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  NABLA_CHECK(t == ScalarType::Float || t == ScalarType::Double,
              "set_default_dtype: only float32 and float64 can be the default, got ", t);
  g_default_dtype.store(t, std::memory_order_relaxed);
}

}  // namespace nabla
