#pragma once
// Tensor: a value-semantic handle to a TensorImpl (one shared pointer). Copies alias;
// ops return new tensors; methods ending in `_` work in place and bump the version
// counter (Note [Version counter], storage.h). Names, argument order and defaults are
// LibTorch's (docs/compat.md).
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
#include "nabla/core/cuda.h"
#include "nabla/core/device.h"
#include "nabla/core/error.h"
#include "nabla/core/generator.h"
#include "nabla/core/half.h"
#include "nabla/core/op_list/schema_macros.h"
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
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  /// Assigning to a temporary writes into it, as LibTorch: `x[0] = 1;` fills the view,
  /// `x.index({0}) = y;` copies y into it.
  Tensor& operator=(const Scalar& value) && {
    fill_(value);
    return *this;
  }
  Tensor& operator=(const Tensor& rhs) && {
    copy_(rhs);
    return *this;
  }
  Tensor& operator=(Tensor&& rhs) && {
    copy_(rhs);
    return *this;
  }

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
  /// The memory this tensor (and its views) read: data() is element 0 of the storage,
  /// not of the tensor (that is data_ptr()).
  const Storage& storage() const { return checked().storage(); }
  size_t element_size() const { return elementSize(scalar_type()); }
  size_t itemsize() const { return element_size(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  ScalarType scalar_type() const { return checked().dtype(); }
  ScalarType dtype() const { return scalar_type(); }
  Device device() const { return checked().device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  Layout layout() const { return kStrided; }
  TensorOptions options() const;
  /// Dense in `format`'s order (row-major by default; ChannelsLast for N,C,H,W tensors
  /// whose channels are innermost).
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  bool is_non_overlapping_and_dense() const;
  /// ChannelsLast(3d) for a tensor laid out that way, else Contiguous.
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  bool is_floating_point() const { return isFloatingType(scalar_type()); }
  bool is_complex() const { return false; }
  bool is_signed() const { return scalar_type() != kBool && scalar_type() != kByte; }

  // ---- Element access ---------------------------------------------------------------
  void* data_ptr() const { return checked().data(); }
  /// Typed pointer to element 0; T must match the dtype exactly.
  template <class T>
  T* data_ptr() const;
  template <class T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }
  /// The value of a one-element tensor, converted to T.
  template <class T>
  T item() const {
    return item().to<T>();
  }
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
  // The result is `*this` when nothing changes and copy is false. Without a memory
  // format (Preserve) a copy keeps this tensor's strides when it is dense, as LibTorch.
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false,
            optional<MemoryFormat> memory_format = nullopt) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false,
            optional<MemoryFormat> memory_format = nullopt) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false,
            optional<MemoryFormat> memory_format = nullopt) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false,
            optional<MemoryFormat> memory_format = nullopt) const;
  Tensor cpu() const { return to(TensorOptions(kCPU)); }
  /// A copy on the current CUDA device (this tensor itself when already there).
  Tensor cuda() const { return to(TensorOptions(kCUDA)); }
  /// A copy in page-locked host memory, so copies to a GPU may run asynchronously
  /// (to(kCUDA, ..., non_blocking = true)); a nabla::Error without CUDA.
  Tensor pin_memory() const;
  /// Whether this is a CPU tensor in page-locked memory (false without CUDA).
  bool is_pinned() const;
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor type_as(const Tensor& other) const { return to(other.scalar_type()); }
  /// This tensor when already dense in `memory_format`, else a copy laid out that way.
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  /// A copy with its own storage; Preserve (the default) keeps dense strides.
  Tensor clone(optional<MemoryFormat> memory_format = nullopt) const;
  /// Copies `src` (broadcast to this shape, converted to this dtype) into this tensor.
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  /// Changes sizes in place (row-major strides); storage grows when needed and keeps its
  /// leading bytes. Refused for tensors that require grad, as LibTorch.
  const Tensor& resize_(IntArrayRef size, optional<MemoryFormat> memory_format = nullopt) const;
  const Tensor& resize_as_(const Tensor& other,
                           optional<MemoryFormat> memory_format = nullopt) const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& fill_(const Tensor& value) const;
  const Tensor& zero_() const;

  // ---- Autograd (docs/autograd.md) -----------------------------------------------------------
  /// True for leaves created with requires_grad and for results of ops on them.
  bool requires_grad() const;
  const Tensor& requires_grad_(bool requires_grad = true) const;
  const Tensor& set_requires_grad(bool requires_grad) const {
    return requires_grad_(requires_grad);
  }
  /// The accumulated gradient, or an undefined tensor.
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  Tensor detach() const;
  const Tensor& detach_() const;
  /// A tensor sharing this one's storage, without autograd history (LibTorch's
  /// tensor_data and variable_data; nabla keeps the version counter in the storage, so
  /// both share it, where LibTorch's variable_data starts a new one).
  Tensor tensor_data() const { return detach(); }
  Tensor variable_data() const { return detach(); }
  /// The in-place write count (an error for inference tensors, which keep none).
  uint32_t _version() const;
  /// Made inside InferenceMode (its storage was): no version counter, no autograd later.
  bool is_inference() const { return impl_ && impl_->is_inference(); }
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
  // view, reshape, expand, squeeze, transpose, select, slice, ..., the splits (split,
  // chunk, unbind): the methods of core/op_list/views.def.
#define NABLA_OP(...)
#define NABLA_METHOD_OP NABLA_METHOD_DECLARE
#include "nabla/core/op_list/views.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor broadcast_to(IntArrayRef size) const { return expand(size); }
  const Tensor& squeeze_() const;
  const Tensor& squeeze_(int64_t dim) const;
  const Tensor& unsqueeze_(int64_t dim) const;

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
  // index_select, gather, scatter, scatter_add, masked_select, masked_fill, nonzero: the
  // methods of core/op_list/indexing.def.
#define NABLA_OP(...)
#define NABLA_METHOD_OP NABLA_METHOD_DECLARE
#include "nabla/core/op_list/indexing.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;

  // ---- Elementwise math ---------------------------------------------------------------
  // The binary ops of core/op_list/binary.def (add, sub, mul, div, pow, remainder, fmod,
  // atan2, maximum, minimum, the comparisons, logical and bitwise ops), with their
  // in-place forms (add_, mul_, eq_, ...).
#define NABLA_OP(...)
#define NABLA_METHOD_OP NABLA_METHOD_DECLARE
#include "nabla/core/op_list/binary.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
  const Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& lerp_(const Tensor& end, const Scalar& weight) const;

  // The elementwise unary ops of core/op_list/unary.def: neg, abs, exp, tanh, ...
#define NABLA_UNARY_OP(name, ...) \
  Tensor name() const;            \
  const Tensor& name##_() const;
#define NABLA_UNARY_PREDICATE(name, Kernel) Tensor name() const;
#include "nabla/core/op_list/unary.def"
  Tensor negative() const { return neg(); }
  Tensor absolute() const { return abs(); }
  const Tensor& clamp_(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const;
  const Tensor& clamp_min_(const Scalar& min) const;
  const Tensor& clamp_max_(const Scalar& max) const;
  Tensor clip(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const {
    return clamp(min, max);
  }

  Tensor where(const Tensor& condition, const Tensor& other) const;
  /// True when both tensors have the same sizes and exactly the same elements.
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;

  // ---- Reductions: the methods of core/op_list/reduction.def (sum, mean, max, var, sort,
  // topk, ...) ------------------------------------------------------------------------------
#define NABLA_OP(...)
#define NABLA_METHOD_OP NABLA_METHOD_DECLARE
#include "nabla/core/op_list/reduction.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
  /// Elementwise maximum / minimum (as maximum(), minimum()).
  Tensor max(const Tensor& other) const { return maximum(other); }
  Tensor min(const Tensor& other) const { return minimum(other); }
  // x.var(0) / x.std(0) reduce dim 0, as LibTorch's C++-only int overloads (gh-40287):
  // without them int -> bool would win over int -> IntArrayRef.
  Tensor var(int dim) const { return var(IntArrayRef{static_cast<int64_t>(dim)}); }
  Tensor std(int dim) const { return std(IntArrayRef{static_cast<int64_t>(dim)}); }
  // A braced list ({1}) would otherwise bind var(bool) / std(bool); LibTorch reduces dims.
  Tensor var(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntArrayRef(dim), unbiased, keepdim);
  }
  Tensor std(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntArrayRef(dim), unbiased, keepdim);
  }
  /// Stable softmax / log_softmax along dim (src/ops/nn/softmax.cpp); dtype converts first.
  Tensor softmax(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  Tensor log_softmax(int64_t dim, optional<ScalarType> dtype = nullopt) const;

  // ---- Linear algebra: the methods of core/op_list/linalg.def (matmul, mm, bmm, mv, dot,
  // outer, addmm) ----------------------------------------------------------------------------
#define NABLA_OP(...)
#define NABLA_METHOD_OP NABLA_METHOD_DECLARE
#include "nabla/core/op_list/linalg.def"
  // The composite shape, index and product ops of core/op_list/shape.def (diag, tile,
  // take, flipud, inner, kron, cross, ...).
#include "nabla/core/op_list/shape.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
  const Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                       const Scalar& alpha = 1) const;

  // ---- Random fills (use the default generator) ----------------------------------------
  const Tensor& uniform_(double from = 0, double to = 1) const;
  const Tensor& normal_(double mean = 0, double std = 1) const;
  const Tensor& bernoulli_(double p = 0.5) const;
  const Tensor& random_(int64_t from, int64_t to) const;
  /// random_(0, to).
  const Tensor& random_(int64_t to) const;
  /// Integers in [0, 2^mantissa bits] for floating dtypes, [0, max] for integer ones and
  /// {false, true} for bool, as LibTorch's random_().
  const Tensor& random_() const;
  /// Indices drawn from the rows of this (non-negative weights) tensor.
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     optional<Generator> generator = nullopt) const;

  // ---- Factories from this tensor (dtype and device from it unless options say) -----
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_empty_strided(IntArrayRef size, IntArrayRef stride,
                           const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar& fill_value,
                  const TensorOptions& options = {}) const;

  // ---- More of LibTorch's methods: aliases and ops composed from the ones above -------
  // (src/ops/*/composed.cpp; gradients come from the pieces unless noted there.)
  // Aliases.
  const Tensor& absolute_() const { return abs_(); }
  const Tensor& negative_() const { return neg_(); }
  Tensor arccos() const { return acos(); }
  const Tensor& arccos_() const { return acos_(); }
  Tensor arcsin() const { return asin(); }
  const Tensor& arcsin_() const { return asin_(); }
  Tensor arctan() const { return atan(); }
  const Tensor& arctan_() const { return atan_(); }
  Tensor arctan2(const Tensor& other) const { return atan2(other); }
  const Tensor& arctan2_(const Tensor& other) const { return atan2_(other); }
  Tensor fix() const { return trunc(); }
  const Tensor& fix_() const { return trunc_(); }
  Tensor sgn() const { return sign(); }
  const Tensor& sgn_() const { return sign_(); }
  const Tensor& clip_(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const {
    return clamp_(min, max);
  }
  Tensor greater(const Tensor& other) const { return gt(other); }
  Tensor greater(const Scalar& other) const { return gt(other); }
  Tensor greater_equal(const Tensor& other) const { return ge(other); }
  Tensor greater_equal(const Scalar& other) const { return ge(other); }
  Tensor less(const Tensor& other) const { return lt(other); }
  Tensor less(const Scalar& other) const { return lt(other); }
  Tensor less_equal(const Tensor& other) const { return le(other); }
  Tensor less_equal(const Scalar& other) const { return le(other); }
  Tensor not_equal(const Tensor& other) const { return ne(other); }
  Tensor not_equal(const Scalar& other) const { return ne(other); }
  Tensor multiply(const Tensor& other) const { return mul(other); }
  Tensor multiply(const Scalar& other) const { return mul(other); }
  const Tensor& multiply_(const Tensor& other) const { return mul_(other); }
  const Tensor& multiply_(const Scalar& other) const { return mul_(other); }
  Tensor divide(const Tensor& other) const { return div(other); }
  Tensor divide(const Scalar& other) const { return div(other); }
  const Tensor& divide_(const Tensor& other) const { return div_(other); }
  const Tensor& divide_(const Scalar& other) const { return div_(other); }
  Tensor true_divide(const Tensor& other) const { return div(other); }
  Tensor true_divide(const Scalar& other) const { return div(other); }
  const Tensor& true_divide_(const Tensor& other) const { return div_(other); }
  const Tensor& true_divide_(const Scalar& other) const { return div_(other); }
  Tensor subtract(const Tensor& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  Tensor subtract(const Scalar& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  const Tensor& subtract_(const Tensor& other, const Scalar& alpha = 1) const {
    return sub_(other, alpha);
  }
  const Tensor& subtract_(const Scalar& other, const Scalar& alpha = 1) const {
    return sub_(other, alpha);
  }
  Tensor ger(const Tensor& vec2) const { return outer(vec2); }
  Tensor vdot(const Tensor& other) const { return dot(other); }
  Tensor swapaxes(int64_t axis0, int64_t axis1) const { return transpose(axis0, axis1); }
  Tensor swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
  const Tensor& swapaxes_(int64_t axis0, int64_t axis1) const { return transpose_(axis0, axis1); }
  const Tensor& swapdims_(int64_t dim0, int64_t dim1) const { return transpose_(dim0, dim1); }
  Tensor moveaxis(int64_t source, int64_t destination) const {
    return movedim(source, destination);
  }
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const {
    return movedim(source, destination);
  }
  Tensor argwhere() const { return nonzero(); }
  // The comparisons' in-place forms by their other names (greater_ is gt_, ...).
  const Tensor& greater_(const Tensor& other) const { return gt_(other); }
  const Tensor& greater_(const Scalar& other) const { return gt_(other); }
  const Tensor& greater_equal_(const Tensor& other) const { return ge_(other); }
  const Tensor& greater_equal_(const Scalar& other) const { return ge_(other); }
  const Tensor& less_(const Tensor& other) const { return lt_(other); }
  const Tensor& less_(const Scalar& other) const { return lt_(other); }
  const Tensor& less_equal_(const Tensor& other) const { return le_(other); }
  const Tensor& less_equal_(const Scalar& other) const { return le_(other); }
  const Tensor& not_equal_(const Tensor& other) const { return ne_(other); }
  const Tensor& not_equal_(const Scalar& other) const { return ne_(other); }
  const Tensor& cumsum_(int64_t dim, optional<ScalarType> dtype = nullopt) const;
  /// In-place transpose: this tensor's own sizes and strides change (a view op).
  const Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  const Tensor& t_() const;
  // Elementwise math: the methods of core/op_list/math.def (hypot, xlogy, sinc, logit,
  // floor_divide, nan_to_num, lgamma, asinh, ...) and their in-place forms.
#define NABLA_OP(...)
#define NABLA_METHOD_OP NABLA_METHOD_DECLARE
#include "nabla/core/op_list/math.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
  /// polygamma(n, *this) (the function takes n first).
  Tensor polygamma(int64_t n) const;
  Tensor arcsinh() const { return asinh(); }
  Tensor arccosh() const { return acosh(); }
  Tensor arctanh() const { return atanh(); }
  const Tensor& arcsinh_() const { return asinh_(); }
  const Tensor& arccosh_() const { return acosh_(); }
  const Tensor& arctanh_() const { return atanh_(); }
  const Tensor& polygamma_(int64_t n) const;
  // Shapes and indexing.
  Tensor mT() const;
  Tensor mH() const { return mT(); }
  Tensor adjoint() const { return mT(); }
  Tensor matrix_H() const;
  bool is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }
  /// The truth value of a one-element tensor.
  bool is_nonzero() const;
  // Products.
  // Random fills (the default generator unless one is given).
  const Tensor& exponential_(double lambd = 1, optional<Generator> generator = nullopt) const;
  const Tensor& geometric_(double p, optional<Generator> generator = nullopt) const;
  const Tensor& cauchy_(double median = 0, double sigma = 1,
                        optional<Generator> generator = nullopt) const;
  const Tensor& log_normal_(double mean = 1, double std = 2,
                            optional<Generator> generator = nullopt) const;
  /// 0/1 draws with this tensor's values as probabilities (or p for every element).
  Tensor bernoulli(optional<Generator> generator = nullopt) const;
  Tensor bernoulli(double p, optional<Generator> generator = nullopt) const;
  // Identity and conversions of LibTorch's older API.
  /// The CUDA device index, or -1 for the CPU.
  int64_t get_device() const { return is_cuda() ? device().index() : -1; }
  bool is_meta() const { return false; }
  bool is_sparse() const { return false; }
  bool is_mkldnn() const { return false; }
  bool is_quantized() const { return false; }
  bool has_names() const { return false; }
  bool is_alias_of(const Tensor& other) const {
    return impl()->storage() == other.impl()->storage();
  }
  /// Whether this tensor is a view that autograd tracks (Note [Views and in-place]): made
  /// by a view op while grad mode was on, or from a base that requires grad. Inference
  /// tensors never are (as in LibTorch); a view made under no_grad of a base that needs
  /// no gradient is not tracked either (LibTorch tracks it).
  bool is_view() const;
  /// The root base of a view (is_view()); an error for any other tensor.
  const Tensor& _base() const;
  /// This tensor seen whole through a new view (a view op: AliasBackward0).
  Tensor alias() const;
  /// Drops this handle: the tensor becomes undefined (LibTorch's TensorBase::reset).
  void reset() { impl_.reset(); }
  /// The name of a variable (always empty: nabla does not name tensors).
  const std::string& name() const;
  Tensor toBackend(Backend backend) const;
  Device toDevice() const { return device(); }

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
/// A list of tensors, separated by spaces (as LibTorch's Debian build prints one, through
/// glog's container printing; at most 100 elements, then "...").
std::ostream& operator<<(std::ostream& os, const std::vector<Tensor>& tensors);

// ---- Operators ------------------------------------------------------------------------
/// A fresh contiguous tensor of `sizes` (uninitialized memory from the pool allocator).
Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype, Device device = Device(kCPU));
namespace detail {
/// A tensor over `base`'s storage with the given geometry: no bounds check, no autograd
/// (ops::make_view checks; autograd uses this for plain aliases of saved outputs).
Tensor alias_storage(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
}  // namespace detail

Tensor operator-(const Tensor& a);
Tensor operator!(const Tensor& a);
Tensor operator~(const Tensor& a);
#define NABLA_DECLARE_BINARY_OPERATOR(op)               \
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
    return detail::register_tensor_hook(
        *this, std::function<Tensor(const Tensor&)>(std::forward<F>(hook)));
  }
}

namespace detail {
[[noreturn]] void throw_dtype_mismatch(const char* op, ScalarType got, ScalarType want);
/// `dim` of a tensor of `ndim` dims made non-negative; an error naming `op` when out of range
/// (a 0-d tensor takes dims -1 and 0, as LibTorch's).
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
}  // namespace detail

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
