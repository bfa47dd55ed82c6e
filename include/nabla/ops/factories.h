#pragma once
// Tensor factories with LibTorch's signatures: sizes first, TensorOptions last.
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <vector>

#include "nabla/core/generator.h"
#include "nabla/core/tensor.h"

namespace nabla {

/// Uninitialized; laid out in `memory_format` (or the options') when given.
Tensor empty(IntArrayRef size, const TensorOptions& options = {},
             optional<MemoryFormat> memory_format = nullopt);
/// Uninitialized with the given strides (storage for the elements they reach).
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {});
// zeros, ones, full, scalar_tensor, arange, linspace, logspace, eye (rows:
// nabla/ops/schema/factories.def). Without a dtype in `options`, full's dtype follows the
// fill value (bool, int64 or the default float), arange's is int64 when start, end and
// step are all integers, as in LibTorch.
#define NABLA_OP NABLA_FACTORY_DECLARE
#include "nabla/ops/schema/factories.def"
#undef NABLA_OP

Tensor rand(IntArrayRef size, const TensorOptions& options = {});
Tensor rand(IntArrayRef size, optional<Generator> generator, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, optional<Generator> generator, const TensorOptions& options = {});
/// Integers uniform in [low, high); int64 unless options say otherwise.
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, optional<Generator> generator,
               const TensorOptions& options = {});
Tensor randperm(int64_t n, const TensorOptions& options = {});
Tensor randperm(int64_t n, optional<Generator> generator, const TensorOptions& options = {});
Tensor normal(double mean, double std, IntArrayRef size, optional<Generator> generator = nullopt,
              const TensorOptions& options = {});
Tensor bernoulli(const Tensor& p, optional<Generator> generator = nullopt);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   optional<Generator> generator = nullopt);

// The *_like factories take t's sizes, dtype and device unless `options` say otherwise,
// and t's layout when it is dense (MemoryFormat::Preserve, the default), as LibTorch.
Tensor empty_like(const Tensor& t, const TensorOptions& options = {},
                  optional<MemoryFormat> memory_format = nullopt);
// zeros_like, ones_like, full_like (rows: nabla/ops/schema/factories_like.def).
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/factories_like.def"
#undef NABLA_OP
Tensor rand_like(const Tensor& t, const TensorOptions& options = {},
                 optional<MemoryFormat> memory_format = nullopt);
Tensor randn_like(const Tensor& t, const TensorOptions& options = {},
                  optional<MemoryFormat> memory_format = nullopt);
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options = {},
                    optional<MemoryFormat> memory_format = nullopt);
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {},
                    optional<MemoryFormat> memory_format = nullopt);

/// Wraps user memory without copying. The deleter (if any) runs when the last tensor
/// over it is gone; without one the caller keeps the memory alive.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options = {});

/// The data of torch::tensor(...): a scalar, a (nested) braced list or a vector.
class TensorDataContainer {
 public:
  TensorDataContainer(bool v) : scalar_(v), dtype_(kBool), literal_(kBool) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorDataContainer(T v)
      : scalar_(v), dtype_(desired_dtype(literal_type<T>())), literal_(literal_type<T>()) {}
  TensorDataContainer(Half v) : scalar_(v), dtype_(kHalf), literal_(kHalf) {}
  TensorDataContainer(BFloat16 v) : scalar_(v), dtype_(kBFloat16), literal_(kBFloat16) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  TensorDataContainer(T v)
      : scalar_(v), dtype_(get_default_dtype()), literal_(sizeof(T) == 4 ? kFloat : kDouble) {}
  TensorDataContainer(std::initializer_list<TensorDataContainer> list);
  template <class T>
  TensorDataContainer(const std::vector<T>& v) : TensorDataContainer(ArrayRef<T>(v)) {}
  template <class T>
  TensorDataContainer(ArrayRef<T> v)
      // As LibTorch: int and int64 data give int64, float and double the default dtype;
      // other element types (uint8, bool, ...) keep theirs.
      : kind_(Kind::Vector),
        dtype_(desired_dtype(CppTypeToScalarType<T>::value)),
        literal_(CppTypeToScalarType<T>::value) {
    sizes_ = {static_cast<int64_t>(v.size())};
    for (const T& x : v) values_.push_back(Scalar(x));
  }

  IntArrayRef sizes() const { return sizes_; }
  /// What it holds: one value, a braced list, or a vector/ArrayRef of values (LibTorch's
  /// "tensor" kind). Each accessor refuses the other kinds.
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_init_list() const { return kind_ == Kind::List; }
  bool is_tensor() const { return kind_ == Kind::Vector; }
  const Scalar& scalar() const;
  const std::vector<TensorDataContainer>& init_list() const;
  Tensor tensor() const;
  /// As LibTorch prints it: 1.1, {1.1, 2.2}, {{1, 2}, {3, 4}}.
  void pretty_print_recursive(std::ostream& stream) const;
  static ScalarType desired_dtype(ScalarType t) {
    if (t == kInt || t == kLong) return kLong;
    if (t == kFloat || t == kDouble) return get_default_dtype();
    return t;
  }
  ScalarType scalar_type() const { return dtype_; }
  /// The C++ type of the literals, as a ScalarType (`1` is Int, `1.5` Double, `1.5f`
  /// Float): a braced list must not mix them, as in LibTorch.
  ScalarType literal_type() const { return literal_; }
  /// Builds the tensor; a dtype in `options` overrides the inferred one.
  Tensor convert_to_tensor(const TensorOptions& options) const;

 private:
  enum class Kind { Scalar, List, Vector };
  template <class T>
  static constexpr ScalarType literal_type() {
    if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? kChar : kByte;
    if constexpr (sizeof(T) == 2) return kShort;
    if constexpr (sizeof(T) == 4) return kInt;
    return kLong;
  }
  void flatten_into(std::vector<Scalar>& out) const;
  Kind kind_ = Kind::Scalar;
  Scalar scalar_;
  ScalarType dtype_;
  ScalarType literal_;
  std::vector<int64_t> sizes_;
  std::vector<TensorDataContainer> children_;
  std::vector<Scalar> values_;
};

std::ostream& operator<<(std::ostream& stream, const TensorDataContainer& data);

namespace detail {
using ::nabla::TensorDataContainer;  // LibTorch's spelling: torch::detail::TensorDataContainer
}  // namespace detail

/// torch::tensor: `tensor({1, 2, 3})` is int64, `tensor({1.5, 2.})` float32,
/// `tensor({{1, 2}, {3, 4}})` 2-d, `tensor(2.5)` 0-d.
Tensor tensor(const TensorDataContainer& data, const TensorOptions& options = {});

}  // namespace nabla
