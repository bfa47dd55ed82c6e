#include "nabla/core/scalar_type.h"

#include <atomic>
#include <iterator>
#include <ostream>

#include "nabla/core/error.h"

namespace nabla {

namespace {
// One row per ScalarType, in enum order: element size, LibTorch's name (toString) and the
// dtype name of the file formats (dtype_name).
struct ScalarTypeInfo {
  size_t size;
  std::string_view name, dtype;
};
constexpr ScalarTypeInfo kScalarTypes[] = {
    {1, "Bool", "bool"},    {1, "Byte", "uint8"},        {4, "Int", "int32"},
    {8, "Long", "int64"},   {4, "Float", "float32"},     {8, "Double", "float64"},
    {2, "Half", "float16"}, {2, "BFloat16", "bfloat16"}, {1, "Char", "int8"},
    {2, "Short", "int16"},
};
static_assert(std::size(kScalarTypes) == static_cast<size_t>(ScalarType::Short) + 1,
              "one row per ScalarType");

const ScalarTypeInfo* info(ScalarType t) {
  const auto i = static_cast<size_t>(t);
  return i < std::size(kScalarTypes) ? &kScalarTypes[i] : nullptr;
}
}  // namespace

size_t elementSize(ScalarType t) {
  const ScalarTypeInfo* row = info(t);
  NABLA_ASSERT(row, "unknown ScalarType ", static_cast<int>(t));
  return row->size;
}

std::string_view toString(ScalarType t) {
  const ScalarTypeInfo* row = info(t);
  return row ? row->name : "Unknown";
}

std::string_view dtype_name(ScalarType t) {
  const ScalarTypeInfo* row = info(t);
  return row ? row->dtype : "unknown";
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
