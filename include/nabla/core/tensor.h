#pragma once
// Tensor: a value-semantic handle to a TensorImpl (one shared pointer). Copies alias;
// ops return new tensors; methods ending in `_` work in place and bump the version
// counter (Note [Version counter], storage.h). Names, argument order and defaults are
// LibTorch's (SPEC.md §2).
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "nabla/core/accessor.h"
#include "nabla/core/array_ref.h"
#include "nabla/core/device.h"
#include "nabla/core/error.h"
#include "nabla/core/optional.h"
#include "nabla/core/scalar.h"
#include "nabla/core/scalar_type.h"
#include "nabla/core/tensor_impl.h"
#include "nabla/core/tensor_options.h"

namespace nabla {

class Tensor;
class TensorIndex;
namespace autograd {
class Node;
}
using TensorList = ArrayRef<Tensor>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- Identity and geometry -------------------------------------------------------
  /// False for a default-constructed (undefined) tensor; every other method requires true.
  bool defined() const { return impl_ != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  long use_count() const { return impl_.use_count(); }

  IntArrayRef sizes() const { return checked().sizes(); }
  IntArrayRef strides() const { return checked().strides(); }
  /// Size of dimension `dim` (negative counts from the end).
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return checked().dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked().numel(); }
  int64_t storage_offset() const { return checked().storage_offset(); }
  size_t element_size() const { return elementSize(scalar_type()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  ScalarType scalar_type() const { return checked().dtype(); }
  ScalarType dtype() const { return scalar_type(); }
  Device device() const { return checked().device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  Layout layout() const { return kStrided; }
  TensorOptions options() const;
  bool is_contiguous() const { return checked().is_contiguous(); }
  bool is_floating_point() const { return isFloatingType(scalar_type()); }
  bool is_complex() const { return false; }
  bool is_signed() const { return scalar_type() != kBool && scalar_type() != kByte; }

  // ---- Element access ---------------------------------------------------------------
  void* data_ptr() const { return checked().data(); }
  /// Typed pointer to element 0; T must match the dtype exactly.
  template <class T>
  T* data_ptr() const;
  template <class T>
  const T* const_data_ptr() const { return data_ptr<T>(); }
  /// The value of a one-element tensor, converted to T.
  template <class T>
  T item() const { return item().to<T>(); }
  Scalar item() const;
  /// Unchecked element access for a tensor of N dims and dtype T.
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const&;
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // ---- Printing -----------------------------------------------------------------------
  std::string toString() const;
  void print() const;

  // ---- Conversion and copies ------------------------------------------------------------
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const { return to(TensorOptions(kCPU)); }
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor type_as(const Tensor& other) const { return to(other.scalar_type()); }
  Tensor contiguous() const;
  Tensor clone() const;
  /// Copies `src` (broadcast to this shape, converted to this dtype) into this tensor.
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& fill_(const Tensor& value) const;
  const Tensor& zero_() const;

  // ---- Autograd (SPEC.md §5) -----------------------------------------------------------
  /// True for leaves created with requires_grad and for results of ops on them.
  bool requires_grad() const;
  const Tensor& requires_grad_(bool requires_grad = true) const;
  void set_requires_grad(bool requires_grad) { requires_grad_(requires_grad); }
  /// The accumulated gradient, or an undefined tensor.
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  Tensor detach() const;
  const Tensor& detach_() const;
  uint32_t _version() const { return checked().version(); }
  /// The node that created this tensor (null for leaves).
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  /// A leaf has no grad_fn: created by the user or by an op that did not record.
  bool is_leaf() const;
  uint32_t output_nr() const;
  /// Keeps the gradient of a non-leaf in grad() after backward.
  const Tensor& retain_grad() const;
  bool retains_grad() const;
  /// Computes gradients of this tensor w.r.t. graph leaves (autograd::backward).
  void backward(const Tensor& gradient = {}, optional<bool> retain_graph = nullopt,
                bool create_graph = false, optional<TensorList> inputs = nullopt) const;
  /// Registers fn(grad) to run when this tensor's gradient is computed, before it is
  /// accumulated; returning a Tensor replaces the gradient. Returns a handle.
  template <class F>
  unsigned register_hook(F&& hook) const;
  void remove_hook(unsigned handle) const;
  /// Replaces this tensor's data (keeping autograd identity), as Tensor::set_data.
  void set_data(const Tensor& new_data) const;
  /// A tensor sharing data, not requiring grad, as Tensor::data().
  Tensor data() const { return detach(); }

  // ---- Views (no copy; share storage and version counter) --------------------------
  Tensor view(IntArrayRef size) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  /// A view when the strides allow one, else a contiguous copy.
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, optional<int64_t> start = nullopt,
               optional<int64_t> end = nullopt, int64_t step = 1) const;
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor broadcast_to(IntArrayRef size) const { return expand(size); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  const Tensor& squeeze_() const;
  const Tensor& squeeze_(int64_t dim) const;
  const Tensor& unsqueeze_(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    optional<int64_t> storage_offset = nullopt) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;

  // ---- Indexing -------------------------------------------------------------------------
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor operator[](const Tensor& index) const;
  Tensor index(ArrayRef<TensorIndex> indices) const;
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  const Tensor& index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) const;
  const Tensor& index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) const;
  const Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const;
  const Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const;
  /// Advanced indexing with a list of index tensors (undefined = take the whole dim).
  Tensor index(const std::vector<optional<Tensor>>& indices) const;
  const Tensor& index_put_(const std::vector<optional<Tensor>>& indices, const Tensor& values,
                           bool accumulate = false) const;
  Tensor index_put(const std::vector<optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad = false) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor nonzero() const;

  // ---- Elementwise math ---------------------------------------------------------------
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor atan2(const Tensor& other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  const Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  const Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  const Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  const Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  const Tensor& mul_(const Tensor& other) const;
  const Tensor& mul_(const Scalar& other) const;
  const Tensor& div_(const Tensor& other) const;
  const Tensor& div_(const Scalar& other) const;
  const Tensor& pow_(const Tensor& exponent) const;
  const Tensor& pow_(const Scalar& exponent) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  const Tensor& lerp_(const Tensor& end, const Scalar& weight) const;

#define NABLA_DECLARE_UNARY(name) \
  Tensor name() const;            \
  const Tensor& name##_() const;
  NABLA_DECLARE_UNARY(neg)
  NABLA_DECLARE_UNARY(abs)
  NABLA_DECLARE_UNARY(sqrt)
  NABLA_DECLARE_UNARY(rsqrt)
  NABLA_DECLARE_UNARY(exp)
  NABLA_DECLARE_UNARY(exp2)
  NABLA_DECLARE_UNARY(log)
  NABLA_DECLARE_UNARY(log2)
  NABLA_DECLARE_UNARY(log10)
  NABLA_DECLARE_UNARY(log1p)
  NABLA_DECLARE_UNARY(expm1)
  NABLA_DECLARE_UNARY(sin)
  NABLA_DECLARE_UNARY(cos)
  NABLA_DECLARE_UNARY(tan)
  NABLA_DECLARE_UNARY(asin)
  NABLA_DECLARE_UNARY(acos)
  NABLA_DECLARE_UNARY(atan)
  NABLA_DECLARE_UNARY(sinh)
  NABLA_DECLARE_UNARY(cosh)
  NABLA_DECLARE_UNARY(tanh)
  NABLA_DECLARE_UNARY(sigmoid)
  NABLA_DECLARE_UNARY(relu)
  NABLA_DECLARE_UNARY(erf)
  NABLA_DECLARE_UNARY(floor)
  NABLA_DECLARE_UNARY(ceil)
  NABLA_DECLARE_UNARY(round)
  NABLA_DECLARE_UNARY(trunc)
  NABLA_DECLARE_UNARY(frac)
  NABLA_DECLARE_UNARY(sign)
  NABLA_DECLARE_UNARY(reciprocal)
  NABLA_DECLARE_UNARY(square)
  NABLA_DECLARE_UNARY(logical_not)
#undef NABLA_DECLARE_UNARY
  Tensor bitwise_not() const;
  Tensor negative() const { return neg(); }
  Tensor absolute() const { return abs(); }
  Tensor clamp(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const;
  const Tensor& clamp_(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const;
  Tensor clamp(const optional<Tensor>& min, const optional<Tensor>& max = {}) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  const Tensor& clamp_min_(const Scalar& min) const;
  const Tensor& clamp_max_(const Scalar& max) const;
  Tensor clip(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const {
    return clamp(min, max);
  }

  // Comparisons and logic (results are bool tensors).
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor where(const Tensor& condition, const Tensor& other) const;
  /// True when both tensors have the same sizes and exactly the same elements.
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;

  // ---- Reductions ------------------------------------------------------------------------
  Tensor sum(optional<ScalarType> dtype = nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false, optional<ScalarType> dtype = nullopt) const;
  Tensor mean(optional<ScalarType> dtype = nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false, optional<ScalarType> dtype = nullopt) const;
  Tensor prod(optional<ScalarType> dtype = nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, optional<ScalarType> dtype = nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor argmax(optional<int64_t> dim = nullopt, bool keepdim = false) const;
  Tensor argmin(optional<int64_t> dim = nullopt, bool keepdim = false) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  // A braced list ({1}) would otherwise bind var(bool) / std(bool); LibTorch reduces dims.
  Tensor var(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntArrayRef(dim), unbiased, keepdim);
  }
  Tensor std(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntArrayRef(dim), unbiased, keepdim);
  }
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(optional<Scalar> p, IntArrayRef dim, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  /// Stable softmax / log_softmax along dim (src/ops/nn/softmax.cpp); dtype converts first.
  Tensor softmax(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  Tensor log_softmax(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor cumsum(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;

  // ---- Linear algebra ----------------------------------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  const Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                       const Scalar& alpha = 1) const;

  // ---- Random fills (use the default generator) ----------------------------------------
  const Tensor& uniform_(double from = 0, double to = 1) const;
  const Tensor& normal_(double mean = 0, double std = 1) const;
  const Tensor& bernoulli_(double p = 0.5) const;
  const Tensor& random_(int64_t from, int64_t to) const;

 private:
  const TensorImpl& checked() const {
    if (!impl_) [[unlikely]]
      throw_undefined();
    return *impl_;
  }
  [[noreturn]] static void throw_undefined();
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- Operators ------------------------------------------------------------------------
Tensor operator-(const Tensor& a);
Tensor operator!(const Tensor& a);
Tensor operator~(const Tensor& a);
#define NABLA_DECLARE_BINARY_OPERATOR(op)              \
  Tensor operator op(const Tensor& a, const Tensor& b); \
  Tensor operator op(const Tensor& a, const Scalar& b); \
  Tensor operator op(const Scalar& a, const Tensor& b);
NABLA_DECLARE_BINARY_OPERATOR(+)
NABLA_DECLARE_BINARY_OPERATOR(-)
NABLA_DECLARE_BINARY_OPERATOR(*)
NABLA_DECLARE_BINARY_OPERATOR(/)
NABLA_DECLARE_BINARY_OPERATOR(%)
NABLA_DECLARE_BINARY_OPERATOR(==)
NABLA_DECLARE_BINARY_OPERATOR(!=)
NABLA_DECLARE_BINARY_OPERATOR(<)
NABLA_DECLARE_BINARY_OPERATOR(<=)
NABLA_DECLARE_BINARY_OPERATOR(>)
NABLA_DECLARE_BINARY_OPERATOR(>=)
NABLA_DECLARE_BINARY_OPERATOR(&)
NABLA_DECLARE_BINARY_OPERATOR(|)
NABLA_DECLARE_BINARY_OPERATOR(^)
#undef NABLA_DECLARE_BINARY_OPERATOR
const Tensor& operator+=(const Tensor& a, const Tensor& b);
const Tensor& operator+=(const Tensor& a, const Scalar& b);
const Tensor& operator-=(const Tensor& a, const Tensor& b);
const Tensor& operator-=(const Tensor& a, const Scalar& b);
const Tensor& operator*=(const Tensor& a, const Tensor& b);
const Tensor& operator*=(const Tensor& a, const Scalar& b);
const Tensor& operator/=(const Tensor& a, const Tensor& b);
const Tensor& operator/=(const Tensor& a, const Scalar& b);

// ---- Template definitions ------------------------------------------------------------
namespace detail {
unsigned register_tensor_hook(const Tensor& t, std::function<Tensor(const Tensor&)> fn);
}

template <class F>
unsigned Tensor::register_hook(F&& hook) const {
  if constexpr (std::is_void_v<std::invoke_result_t<F, Tensor>>) {
    return detail::register_tensor_hook(*this, [fn = std::forward<F>(hook)](const Tensor& g) {
      fn(g);
      return Tensor();
    });
  } else {
    return detail::register_tensor_hook(*this, std::function<Tensor(const Tensor&)>(std::forward<F>(hook)));
  }
}

namespace detail {
[[noreturn]] void throw_dtype_mismatch(const char* op, ScalarType got, ScalarType want);
}

template <class T>
T* Tensor::data_ptr() const {
  constexpr ScalarType want = CppTypeToScalarType<std::remove_const_t<T>>::value;
  if (scalar_type() != want) detail::throw_dtype_mismatch("data_ptr", scalar_type(), want);
  return static_cast<T*>(checked().data());
}

template <class T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
  NABLA_CHECK(dim() == static_cast<int64_t>(N), "accessor: expected a ", N,
              "-dimensional tensor, got ", dim(), " dims (sizes ", sizes(), ")");
  return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
}

}  // namespace nabla

#include "nabla/core/indexing.h"
