// Tensor factories (include/nabla/ops/factories.h).
#include "nabla/ops/factories.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <ostream>
#include <sstream>
#include <type_traits>

#include "nabla/core/detail/cpu_generator.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/trace.h"
#include "ops/factories/random_fill.h"
#include "ops/op_utils.h"

namespace nabla {
namespace {

Tensor finish(Tensor t, const TensorOptions& o) {
  t.unsafeGetTensorImpl()->mark_factory_made();
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

// A factory whose values are computed on the host (arange, linspace, randperm) makes them
// on the CPU and moves them to the requested device once.
Tensor placed(const Tensor& t, const TensorOptions& o) {
  return o.device().is_cpu() ? t : t.to(o.device(), t.scalar_type());
}

Tensor filled(IntArrayRef size, const Scalar& v, const TensorOptions& o, ScalarType dtype) {
  Tensor t = ops::empty_tensor(size, dtype, o.device());
  if (isReducedFloatingType(dtype))
    ops::fill_reduced(t, v);
  else
    backend_for(t).fill(t, v);
  return finish(t, o);
}

// Fills t from the distribution; 16-bit floats are drawn in float32 and rounded (Note
// [16-bit compute]).
void draw(KernelBackend::Distribution d, const Tensor& t, Generator& gen, const Scalar& a,
          const Scalar& b) {
  if (!isReducedFloatingType(t.scalar_type())) return backend_for(t).random(d, t, gen, a, b);
  Tensor wide = ops::empty_tensor(t.sizes(), kFloat, t.device());
  backend_for(wide).random(d, wide, gen, a, b);
  ops::copy_any(t, wide);
}

// empty(size, o) filled in place by the distribution, as LibTorch's random factories do.
Tensor random_tensor(KernelBackend::Distribution d, IntArrayRef size, optional<Generator> gen,
                     const TensorOptions& o, const Scalar& a, const Scalar& b, const char* op) {
  ops::refuse_while_tracing(op, ops::kRandomFactory);
  Tensor t = ops::empty_tensor(size, o.dtype(), o.device());
  if (d == KernelBackend::Distribution::Uniform || d == KernelBackend::Distribution::Normal)
    NABLA_CHECK(t.is_floating_point(), op, ": expected a floating dtype, got ", t.scalar_type());
  draw(d, t, ops::generator_for(gen, t.device(), op), a, b);
  return finish(t, o);
}

TensorOptions like(const Tensor& t, const TensorOptions& o) {
  ops::check_defined(t, "*_like");
  TensorOptions r = t.options().dtype(o.has_dtype() ? o.dtype() : t.scalar_type());
  return r.requires_grad(o.requires_grad());
}

}  // namespace

Tensor empty(IntArrayRef size, const TensorOptions& o, optional<MemoryFormat> mf) {
  NABLA_CHECK(!(mf && o.has_memory_format()),
              "empty: cannot set memory_format both in TensorOptions and as an explicit argument; "
              "please delete the redundant setter");
  const MemoryFormat format = mf ? *mf : o.memory_format_opt().value_or(MemoryFormat::Contiguous);
  NABLA_CHECK(format != MemoryFormat::Preserve,
              "empty: memory format Preserve needs a tensor to follow "
              "(use empty_like)");
  return finish(ops::empty_tensor(size, o.dtype(), o.device(), format), o);
}
Tensor ops::zeros_impl(IntArrayRef size, const TensorOptions& o) {
  return filled(size, 0, o, o.dtype());
}
Tensor ops::ones_impl(IntArrayRef size, const TensorOptions& o) {
  return filled(size, 1, o, o.dtype());
}
Tensor ops::full_impl(IntArrayRef size, const Scalar& v, const TensorOptions& o) {
  return filled(size, v, o, o.has_dtype() ? o.dtype() : ops::scalar_dtype(v));
}
Tensor ops::scalar_tensor_impl(const Scalar& s, const TensorOptions& o) {
  return filled({}, s, o, o.dtype());
}

Tensor ops::arange_impl(const Scalar& end, const TensorOptions& o) { return arange(0, end, 1, o); }
Tensor ops::arange_impl(const Scalar& start, const Scalar& end, const TensorOptions& o) {
  return arange(start, end, 1, o);
}
Tensor ops::arange_impl(const Scalar& start, const Scalar& end, const Scalar& step,
                        const TensorOptions& o) {
  bool all_int = !start.isFloatingPoint() && !end.isFloatingPoint() && !step.isFloatingPoint();
  ScalarType dt = o.has_dtype() ? o.dtype() : (all_int ? kLong : get_default_dtype());
  double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  NABLA_CHECK(st != 0, "arange: step must be nonzero");
  NABLA_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", s, " -> ", e);
  NABLA_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "arange: upper bound and larger bound inconsistent with step sign (start ", s,
              ", end ", e, ", step ", st, ")");
  int64_t n;
  if (all_int) {
    int64_t si = start.toLong(), ei = end.toLong(), sti = step.toLong();
    n = (ei - si + sti - (sti > 0 ? 1 : -1)) / sti;
  } else {
    n = static_cast<int64_t>(std::ceil((e - s) / st));
  }
  Tensor t = ops::empty_tensor({n}, dt, Device(kCPU));
  Tensor idx = ops::empty_tensor({n}, kDouble, Device(kCPU));
  double* p = ops::host_ptr<double>(idx);
  for (int64_t i = 0; i < n; ++i) p[i] = s + st * static_cast<double>(i);
  if (all_int && dt == kLong) {
    int64_t* q = ops::host_ptr<int64_t>(t);
    for (int64_t i = 0; i < n; ++i) q[i] = start.toLong() + step.toLong() * i;
  } else {
    ops::copy_any(t, idx);  // 16-bit floats too
  }
  return finish(placed(t, o), o);
}

Tensor ops::linspace_impl(const Scalar& start, const Scalar& end, int64_t steps,
                          const TensorOptions& o) {
  NABLA_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  double s = start.toDouble(), e = end.toDouble();
  Tensor idx = ops::empty_tensor({steps}, kDouble, Device(kCPU));
  double* p = ops::host_ptr<double>(idx);
  double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  if (steps == 1) e = s;  // a single step is `start`, as LibTorch
  // Like LibTorch, fill the second half from the end so `end` is exact.
  int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i)
    p[i] = i < half ? s + step * static_cast<double>(i)
                    : e - step * static_cast<double>(steps - 1 - i);
  Tensor t = ops::empty_tensor({steps}, o.dtype(), Device(kCPU));
  ops::copy_any(t, idx);  // 16-bit floats too
  return finish(placed(t, o), o);
}

Tensor ops::logspace_impl(const Scalar& start, const Scalar& end, int64_t steps, double base,
                          const TensorOptions& o) {
  ops::UntracedScope untraced;  // a constant when traced, not its steps
  Tensor lin = linspace(start, end, steps, TensorOptions().dtype(kDouble));
  double* p = ops::host_ptr<double>(lin);
  for (int64_t i = 0; i < steps; ++i) p[i] = std::pow(base, p[i]);
  return finish(lin.to(o.device(), o.dtype()), o);
}

Tensor ops::eye_impl(int64_t n, const TensorOptions& o) { return eye(n, n, o); }
Tensor ops::eye_impl(int64_t n, int64_t m, const TensorOptions& o) {
  NABLA_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative, got n=", n, ", m=", m);
  Tensor t = zeros({n, m}, o.requires_grad(false));
  Tensor one = ops::scalar_tensor(1, t.scalar_type(), t.device());
  Tensor diag = t.diagonal();
  ops::copy_any(diag, one.expand(diag.sizes()));  // 16-bit floats too
  return finish(t, o);
}

Tensor rand(IntArrayRef size, const TensorOptions& o) { return rand(size, nullopt, o); }
Tensor rand(IntArrayRef size, optional<Generator> g, const TensorOptions& o) {
  return random_tensor(KernelBackend::Distribution::Uniform, size, g, o, 0, 1, "rand");
}
Tensor randn(IntArrayRef size, const TensorOptions& o) { return randn(size, nullopt, o); }
Tensor randn(IntArrayRef size, optional<Generator> g, const TensorOptions& o) {
  return random_tensor(KernelBackend::Distribution::Normal, size, g, o, 0, 1, "randn");
}
Tensor normal(double mean, double std, IntArrayRef size, optional<Generator> g,
              const TensorOptions& o) {
  NABLA_CHECK(std >= 0, "normal: expects std >= 0.0, but found std ", std);
  return random_tensor(KernelBackend::Distribution::Normal, size, g, o, mean, std, "normal");
}
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& o) {
  return randint(0, high, size, nullopt, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& o) {
  return randint(low, high, size, nullopt, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, optional<Generator> g,
               const TensorOptions& o) {
  NABLA_CHECK(low < high, "randint: expects 'from' to be less than 'to', but got from=", low,
              " >= to=", high);
  TensorOptions opts = o.has_dtype() ? o : o.dtype(kLong);
  return random_tensor(KernelBackend::Distribution::RandInt, size, g, opts, low, high, "randint");
}

Tensor randperm(int64_t n, const TensorOptions& o) { return randperm(n, nullopt, o); }
Tensor randperm(int64_t n, optional<Generator> g, const TensorOptions& o) {
  NABLA_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  // LibTorch's CPU shuffle on the host, from the CPU generator whatever the device:
  // position i swaps with i + (a 32-bit draw mod (n - i)), for i from the front.
  Generator& gen = ops::generator_for(g, Device(kCPU), "randperm");
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    mt19937::Engine& engine = gen.cpu_state().engine;
    for (int64_t i = 0; i + 1 < n; ++i) {
      const auto z = static_cast<int64_t>(engine() % static_cast<uint64_t>(n - i));
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(i + z)]);
    }
  }
  Tensor t = ops::empty_tensor({n}, kLong, Device(kCPU));
  std::copy(perm.begin(), perm.end(), ops::host_ptr<int64_t>(t));
  TensorOptions opts = o.has_dtype() ? o : o.dtype(kLong);
  return finish(placed(ops::cast(t, opts.dtype()), opts), opts);
}

Tensor bernoulli(const Tensor& p, optional<Generator> g) {
  ops::check_defined(p, "bernoulli");
  NABLA_CHECK(p.is_floating_point(), "bernoulli: expected a floating probability tensor, got ",
              p.scalar_type());
  // As LibTorch's CPU kernel: one uniform per element in row-major order, a double one
  // for double probabilities, else a float one (24 bits), compared with p.
  const ScalarType u_dtype = p.scalar_type() == kDouble ? kDouble : kFloat;
  Tensor u = rand(p.sizes(), g, TensorOptions(u_dtype).device(p.device()));
  return u.lt(p.to(u_dtype)).to(p.scalar_type());
}

namespace {
// The layout of a *_like result: the explicit format, else the options', else Preserve.
MemoryFormat like_format(const TensorOptions& o, optional<MemoryFormat> mf) {
  NABLA_CHECK(!(mf && o.has_memory_format()),
              "*_like: cannot set memory_format both in TensorOptions and as an explicit argument");
  return mf ? *mf : o.memory_format_opt().value_or(MemoryFormat::Preserve);
}
Tensor filled_like(const Tensor& t, const Scalar& v, const TensorOptions& o,
                   optional<MemoryFormat> mf) {
  TensorOptions lo = like(t, o);
  Tensor r = ops::empty_tensor(t.sizes(), lo.dtype(), lo.device(), like_format(o, mf), &t);
  if (isReducedFloatingType(r.scalar_type()))
    ops::fill_reduced(r, v);
  else
    backend_for(r).fill(r, v);
  return finish(r, lo);
}
// empty_like(t) filled in place, as LibTorch's *_like random factories: the CPU draws in
// the memory order of the layout asked for (Note [Random streams]).
Tensor random_like(KernelBackend::Distribution d, const Tensor& t, const TensorOptions& o,
                   optional<MemoryFormat> mf, const Scalar& a, const Scalar& b, const char* op) {
  TensorOptions lo = like(t, o);
  ops::refuse_while_tracing(op, ops::kRandomFactory);
  Tensor r = ops::empty_tensor(t.sizes(), lo.dtype(), lo.device(), like_format(o, mf), &t);
  if (d == KernelBackend::Distribution::Uniform || d == KernelBackend::Distribution::Normal)
    NABLA_CHECK(r.is_floating_point(), op, ": expected a floating dtype, got ", r.scalar_type());
  optional<Generator> none;
  draw(d, r, ops::generator_for(none, r.device(), op), a, b);
  return finish(r, lo);
}
}  // namespace

Tensor empty_like(const Tensor& t, const TensorOptions& o, optional<MemoryFormat> mf) {
  TensorOptions lo = like(t, o);
  return finish(ops::empty_tensor(t.sizes(), lo.dtype(), lo.device(), like_format(o, mf), &t), lo);
}
Tensor ops::zeros_like_impl(const Tensor& t, const TensorOptions& o, optional<MemoryFormat> mf) {
  return filled_like(t, 0, o, mf);
}
Tensor ops::ones_like_impl(const Tensor& t, const TensorOptions& o, optional<MemoryFormat> mf) {
  return filled_like(t, 1, o, mf);
}
Tensor ops::full_like_impl(const Tensor& t, const Scalar& v, const TensorOptions& o,
                           optional<MemoryFormat> mf) {
  return filled_like(t, v, o, mf);
}
Tensor rand_like(const Tensor& t, const TensorOptions& o, optional<MemoryFormat> mf) {
  return random_like(KernelBackend::Distribution::Uniform, t, o, mf, 0, 1, "rand");
}
Tensor randn_like(const Tensor& t, const TensorOptions& o, optional<MemoryFormat> mf) {
  return random_like(KernelBackend::Distribution::Normal, t, o, mf, 0, 1, "randn");
}
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& o,
                    optional<MemoryFormat> mf) {
  return randint_like(t, 0, high, o, mf);
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& o,
                    optional<MemoryFormat> mf) {
  NABLA_CHECK(low < high, "randint: expects 'from' to be less than 'to', but got from=", low,
              " >= to=", high);
  return random_like(KernelBackend::Distribution::RandInt, t, o, mf, low, high, "randint");
}

namespace {
// new_*: this tensor's dtype and device unless the options name others.
TensorOptions new_options(const Tensor& self, const TensorOptions& o) {
  ops::check_defined(self, "new_*");
  TensorOptions r = self.options().dtype(o.has_dtype() ? o.dtype() : self.scalar_type());
  return r.requires_grad(o.requires_grad()).memory_format(o.memory_format_opt());
}
}  // namespace

Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& o) const {
  return empty(size, new_options(*this, o));
}
Tensor Tensor::new_empty_strided(IntArrayRef size, IntArrayRef stride,
                                 const TensorOptions& o) const {
  return empty_strided(size, stride, new_options(*this, o));
}
Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& o) const {
  return zeros(size, new_options(*this, o));
}
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& o) const {
  return ones(size, new_options(*this, o));
}
Tensor Tensor::new_full(IntArrayRef size, const Scalar& v, const TensorOptions& o) const {
  return full(size, v, new_options(*this, o));
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& o) {
  NABLA_CHECK(size.size() == stride.size(), "empty_strided: size ", size, " and stride ", stride,
              " must have the same length");
  checked_numel(size, "empty_strided");
  int64_t extent = 1;  // elements the geometry reaches
  for (size_t d = 0; d < size.size(); ++d) {
    NABLA_CHECK(stride[d] >= 0, "empty_strided: negative stride ", stride[d], " in ", stride);
    if (size[d] == 0) {
      extent = 0;
      break;
    }
    int64_t reach = 0;
    NABLA_CHECK(!__builtin_mul_overflow(size[d] - 1, stride[d], &reach) &&
                    !__builtin_add_overflow(extent, reach, &extent),
                "empty_strided: size ", size, " with stride ", stride,
                " reaches more elements than int64 holds (overflows int64)");
  }
  Tensor t = ops::empty_tensor({extent}, o.dtype(), o.device());
  t.unsafeGetTensorImpl()->set_geometry(size, stride, 0);
  return finish(t, o);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& o) {
  return from_blob(data, sizes, contiguous_strides(sizes), std::function<void(void*)>(), o);
}
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& o) {
  return from_blob(data, sizes, contiguous_strides(sizes), deleter, o);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  return from_blob(data, sizes, strides, std::function<void(void*)>(), o);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& o) {
  NABLA_CHECK(sizes.size() == strides.size(), "from_blob: sizes ", sizes, " and strides ", strides,
              " differ in length");
  int64_t n = checked_numel(sizes, "from_blob");
  NABLA_CHECK(data != nullptr || n == 0, "from_blob: data is null");
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    NABLA_CHECK(strides[i] >= 0, "from_blob: negative strides are not supported, got ", strides);
    if (n) extent += (sizes[i] - 1) * strides[i];
  }
  size_t nbytes = n ? static_cast<size_t>(extent) * elementSize(o.dtype()) : 0;
  auto storage = std::make_shared<StorageImpl>(data, nbytes, o.device(), deleter);
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), o.dtype(), sizes, strides, 0));
  return finish(t, o);
}

// ---- torch::tensor ---------------------------------------------------------------------

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> list)
    : kind_(Kind::List), dtype_(get_default_dtype()), literal_(get_default_dtype()) {
  children_.assign(list.begin(), list.end());
  sizes_ = {static_cast<int64_t>(children_.size())};
  if (children_.empty()) return;
  const TensorDataContainer& first = children_[0];
  IntArrayRef inner = first.sizes();
  // LibTorch's phrases: what a user of torch::tensor would search for.
  auto joined = [](IntArrayRef s) {
    std::ostringstream os;
    for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
    return os.str();
  };
  for (const auto& c : children_) {
    NABLA_CHECK(c.sizes() == inner, "tensor: Expected all sub-lists to have sizes: ", joined(inner),
                " (e.g. ", first, "), but got sub-list ", c, " with sizes: ", joined(c.sizes()));
    NABLA_CHECK(c.literal_ == first.literal_,
                "tensor: Expected all elements of the tensor to have the same scalar type: ",
                first.literal_, ", but got element of scalar type: ", c.literal_,
                " (write the literals alike, e.g. 1.0 rather than 1 beside 2.5)");
  }
  dtype_ = first.dtype_;
  literal_ = first.literal_;
  sizes_.insert(sizes_.end(), inner.begin(), inner.end());
}

const Scalar& TensorDataContainer::scalar() const {
  NABLA_CHECK(is_scalar(),
              "Can only call `scalar()` on a TensorDataContainer that has `is_scalar() == true`");
  return scalar_;
}

const std::vector<TensorDataContainer>& TensorDataContainer::init_list() const {
  NABLA_CHECK(is_init_list(),
              "Can only call `init_list()` on a TensorDataContainer that has "
              "`is_init_list() == true`");
  return children_;
}

Tensor TensorDataContainer::tensor() const {
  NABLA_CHECK(is_tensor(),
              "Can only call `tensor()` on a TensorDataContainer that has `is_tensor() == true`");
  return convert_to_tensor({});
}

void TensorDataContainer::pretty_print_recursive(std::ostream& stream) const {
  switch (kind_) {
    case Kind::Scalar:
      stream << scalar_;
      return;
    case Kind::List:
      stream << "{";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i) stream << ", ";
        children_[i].pretty_print_recursive(stream);
      }
      stream << "}";
      return;
    case Kind::Vector:
      stream << "{";
      for (size_t i = 0; i < values_.size(); ++i) {
        if (i) stream << ", ";
        stream << values_[i];
      }
      stream << "}";
      return;
  }
}

std::ostream& operator<<(std::ostream& stream, const TensorDataContainer& data) {
  data.pretty_print_recursive(stream);
  return stream;
}

void TensorDataContainer::flatten_into(std::vector<Scalar>& out) const {
  switch (kind_) {
    case Kind::Scalar:
      out.push_back(scalar_);
      break;
    case Kind::Vector:
      out.insert(out.end(), values_.begin(), values_.end());
      break;
    case Kind::List:
      for (const auto& c : children_) c.flatten_into(out);
      break;
  }
}

Tensor TensorDataContainer::convert_to_tensor(const TensorOptions& o) const {
  std::vector<Scalar> flat;
  flatten_into(flat);
  ScalarType dt = o.has_dtype() ? o.dtype() : dtype_;
  Tensor t = ops::empty_tensor(sizes_, dt, Device(kCPU));

  // Each element converted to the C++ type of the dtype; half and bfloat16 through double.
  auto fill = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    for (size_t i = 0; i < flat.size(); ++i) p[i] = flat[i].to<T>();
  };
  detail::visit_dtype(
      dt, [&](auto tag) { fill(t.data_ptr<typename decltype(tag)::type>()); },
      [&] {
        Tensor d = ops::empty_tensor(sizes_, kDouble, Device(kCPU));
        fill(ops::host_ptr<double>(d));
        ops::copy_with_reduced(t, d);
      });
  return finish(placed(t, o), o);
}

Tensor tensor(const TensorDataContainer& data, const TensorOptions& options) {
  return data.convert_to_tensor(options);
}

}  // namespace nabla
