#pragma once
// ScalarType: the element types a tensor can hold, with LibTorch's spellings.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string_view>

namespace nabla {

/// The values are nabla's own (tables in scalar_type.cpp are indexed by them); the order
/// means nothing: promoteTypes ranks dtypes by category and width. Half and BFloat16 are
/// storage dtypes (nabla/core/half.h); Char (int8) and Short (int16) are integer dtypes
/// like Int, added after the others so that no existing value moved.
enum class ScalarType : int8_t {
  Bool,
  Byte,
  Int,
  Long,
  Float,
  Double,
  Half,
  BFloat16,
  Char,
  Short
};
using Dtype = ScalarType;

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat64 = ScalarType::Double;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt16 = ScalarType::Short;
// torch/types.h's short names.
constexpr ScalarType kU8 = kUInt8;
constexpr ScalarType kI32 = kInt32;
constexpr ScalarType kI64 = kInt64;
constexpr ScalarType kF16 = kHalf;
constexpr ScalarType kF32 = kFloat32;
constexpr ScalarType kF64 = kFloat64;

size_t elementSize(ScalarType t);
/// LibTorch's name ("Float", "Long", ...), as printed by operator<<.
std::string_view toString(ScalarType t);
/// The name nabla prints in tensor trailers ("float32", "int64", ...).
std::string_view dtype_name(ScalarType t);
std::ostream& operator<<(std::ostream& os, ScalarType t);

constexpr bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}
/// The 16-bit floating dtypes nabla stores and converts but does not compute in.
constexpr bool isReducedFloatingType(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16;
}
constexpr bool isIntegralType(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) || t == ScalarType::Byte ||
         t == ScalarType::Char || t == ScalarType::Short || t == ScalarType::Int ||
         t == ScalarType::Long;
}
namespace detail {
/// An integer dtype's width in bits (bool counts as 1, below every integer).
constexpr int integer_bits(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return 1;
    case ScalarType::Byte:
    case ScalarType::Char:
      return 8;
    case ScalarType::Short:
      return 16;
    case ScalarType::Int:
      return 32;
    default:
      return 64;
  }
}
}  // namespace detail
/// PyTorch's promote_types: bool with anything gives the other; two integers give the
/// wider, except uint8 with int8, which needs int16 to hold both ranges; a floating dtype
/// wins over integers and float64 over float32; a 16-bit float loses to float32/float64,
/// and Half with BFloat16 gives float32.
constexpr ScalarType promoteTypes(ScalarType a, ScalarType b) {
  if (a == b || b == ScalarType::Bool) return a;
  if (a == ScalarType::Bool) return b;
  if (isReducedFloatingType(a) || isReducedFloatingType(b)) {
    const ScalarType r = isReducedFloatingType(a) ? a : b, o = isReducedFloatingType(a) ? b : a;
    if (isReducedFloatingType(o)) return ScalarType::Float;
    return isFloatingType(o) ? o : r;
  }
  if (isFloatingType(a) || isFloatingType(b)) {
    if (isFloatingType(a) && isFloatingType(b)) return ScalarType::Double;  // float with double
    return isFloatingType(a) ? a : b;
  }
  if ((a == ScalarType::Byte && b == ScalarType::Char) ||
      (a == ScalarType::Char && b == ScalarType::Byte))
    return ScalarType::Short;
  return detail::integer_bits(a) < detail::integer_bits(b) ? b : a;
}

/// The default floating dtype (float32 unless set_default_dtype says otherwise).
ScalarType get_default_dtype();
void set_default_dtype(ScalarType t);
/// LibTorch passes dtypes as caffe2::TypeMeta in a few places (get_default_dtype,
/// set_default_dtype, Tensor::dtype) and converts with these; nabla's dtype is the
/// ScalarType itself, so both are the identity.
constexpr ScalarType typeMetaToScalarType(ScalarType t) { return t; }
constexpr ScalarType scalarTypeToTypeMeta(ScalarType t) { return t; }

template <class T>
struct CppTypeToScalarType;
template <>
struct CppTypeToScalarType<bool> {
  static constexpr ScalarType value = kBool;
};
template <>
struct CppTypeToScalarType<uint8_t> {
  static constexpr ScalarType value = kByte;
};
template <>
struct CppTypeToScalarType<int8_t> {
  static constexpr ScalarType value = kChar;
};
template <>
struct CppTypeToScalarType<int16_t> {
  static constexpr ScalarType value = kShort;
};
template <>
struct CppTypeToScalarType<int32_t> {
  static constexpr ScalarType value = kInt;
};
template <>
struct CppTypeToScalarType<int64_t> {
  static constexpr ScalarType value = kLong;
};
template <>
struct CppTypeToScalarType<float> {
  static constexpr ScalarType value = kFloat;
};
template <>
struct CppTypeToScalarType<double> {
  static constexpr ScalarType value = kDouble;
};
struct Half;
struct BFloat16;
template <>
struct CppTypeToScalarType<Half> {
  static constexpr ScalarType value = kHalf;
};
template <>
struct CppTypeToScalarType<BFloat16> {
  static constexpr ScalarType value = kBFloat16;
};

}  // namespace nabla
