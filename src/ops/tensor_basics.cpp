// Tensor methods for identity, conversion, copies and autograd flags; the backward nodes
// of clone, to, copy_, fill_ and zero_ (g is the output's gradient).
#include <iostream>

#include "nabla/autograd/record.h"
#include "nabla/core/detail/device_memory.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/trace.h"
#include "ops/op_utils.h"
#include "ops/registry/registry_impl.h"
#include "ops/shape/views_backward.h"

namespace nabla {

namespace {

struct BasicsState {};

// While tracing: refuses a memory format the registry's to and clone (which take none, so
// Preserve) cannot reproduce, i.e. one other than Preserve that `t` is not laid out in.
void refuse_untraceable_format(const Tensor& t, optional<MemoryFormat> format, const char* op) {
  if (format && *format != MemoryFormat::Preserve && ops::active_tracer() &&
      !t.is_contiguous(*format))
    ops::refuse_while_tracing(op,
                              "with a memory_format other than Preserve: the schema has no "
                              "such attribute");
}

variable_list clone_backward(OpNode<BasicsState>&, const variable_list& g) { return {g[0]}; }
constexpr NodeType<BasicsState> kCloneBackward{"CloneBackward0", clone_backward};

struct ToCopyState {
  ScalarType self_dtype = kFloat;
  Device self_device = Device(kCPU);
};
// The gradient goes back to the input's dtype and device (a CUDA tensor's gradient of a
// .cpu() copy is computed on the CPU and moved back, as LibTorch's).
variable_list to_copy_backward(OpNode<ToCopyState>& n, const variable_list& g) {
  return {g[0].to(n.state.self_device, n.state.self_dtype)};
}
constexpr NodeType<ToCopyState> kToCopyBackward{"ToCopyBackward0", to_copy_backward};

// copy_(self, src): the old value of self is overwritten, so it gets no gradient; src was
// broadcast and cast to self's dtype.
struct CopyState {
  DimVector src_sizes;
  ScalarType src_dtype = kFloat;
  Device src_device = Device(kCPU);
};
variable_list copy_backward(OpNode<CopyState>& n, const variable_list& g) {
  Tensor g_self, g_src;
  if (n.needs_input_grad(0)) g_self = zeros_like(g[0]);
  if (n.needs_input_grad(1))
    g_src = ops::sum_to(g[0], n.state.src_sizes).to(n.state.src_device, n.state.src_dtype);
  return {g_self, g_src};
}
constexpr NodeType<CopyState> kCopyBackwards{"torch::autograd::CopyBackwards", copy_backward};

// fill_(value) and zero_(): the written value does not depend on self.
variable_list fill_backward(OpNode<BasicsState>&, const variable_list& g) {
  return {zeros_like(g[0])};
}
constexpr NodeType<BasicsState> kFillBackward2{"FillBackward2", fill_backward};
constexpr NodeType<BasicsState> kZeroBackward{"ZeroBackward0", fill_backward};
// fill_(0-d tensor value): inputs self and value; value reaches every element.
variable_list fill_tensor_backward(OpNode<BasicsState>& n, const variable_list& g) {
  return {n.needs_input_grad(0) ? zeros_like(g[0]) : Tensor(),
          n.needs_input_grad(1) ? g[0].sum() : Tensor()};
}
constexpr NodeType<BasicsState> kFillBackward3{"FillBackward3", fill_tensor_backward};

}  // namespace

Scalar Tensor::item() const {
  NABLA_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar (sizes ", sizes(), ")");
  if (!is_cpu()) return ops::host_values(*this).item();  // waits for the device
  const void* p = data_ptr();
  return detail::visit_dtype(
      scalar_type(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        return Scalar(*static_cast<const T*>(p));
      },
      [&] { return Scalar(ops::reduced_to_double(*this).data_ptr<double>()[0]); });
}

Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy,
                  optional<MemoryFormat> memory_format) const {
  refuse_untraceable_format(*this, memory_format, "to");
  NABLA_TRACED("to", {*this}, {"dtype", dtype}, {"non_blocking", non_blocking}, {"copy", copy});
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  if (!copy && dtype == scalar_type() &&
      (format == MemoryFormat::Preserve || is_contiguous(format)))
    return *this;
  Tensor out = ops::empty_tensor(sizes(), dtype, device(), format, this);
  ops::copy_any(out, *this);
  // An integral result has no gradient (LibTorch: it does not require grad).
  if (isFloatingType(dtype)) {
    if (auto node = autograd::record_node(kToCopyBackward, {this})) {
      node->state.self_dtype = scalar_type();
      node->state.self_device = device();
      autograd::set_history(out, node);
    }
  }
  return out;
}
// Between devices: the bytes of a dense copy move as they are (cudaMemcpy, ordered on the
// current stream; Note [Current stream]), then the dtype converts on the target device.
// `non_blocking` lets a copy into pinned host memory return before it completes.
Tensor Tensor::to(Device device, ScalarType dtype, bool nb, bool copy,
                  optional<MemoryFormat> mf) const {
  const Device target = detail::resolve_device(device);
  if (target == this->device()) return to(dtype, nb, copy, mf);
  ops::refuse_while_tracing("to", "between devices: a static graph runs on one device");
  NABLA_CHECK(!mf || *mf == MemoryFormat::Preserve || *mf == MemoryFormat::Contiguous,
              "to: moving between devices supports the contiguous memory format only, got ", *mf);
  Tensor src = contiguous();
  Tensor moved = ops::empty_tensor(sizes(), scalar_type(), target);
  detail::copy_bytes(moved.data_ptr(), target, src.data_ptr(), src.device(),
                     static_cast<size_t>(numel()) * element_size(), nb);
  Tensor out = moved;
  if (dtype != scalar_type()) {
    out = ops::empty_tensor(sizes(), dtype, target);
    ops::copy_any(out, moved);
  }
  if (isFloatingType(dtype)) {
    if (auto node = autograd::record_node(kToCopyBackward, {this})) {
      node->state.self_dtype = scalar_type();
      node->state.self_device = this->device();
      autograd::set_history(out, node);
    }
  }
  return out;
}

Tensor Tensor::pin_memory() const {
  NABLA_CHECK(is_cpu(), "pin_memory: only dense CPU tensors can be pinned, got a tensor on ",
              device());
  NABLA_CHECK(cuda::is_available(),
              "pin_memory: page-locked memory needs a CUDA device (cuda::is_available() is false)");
  const size_t nbytes = static_cast<size_t>(numel()) * element_size();
  void* p = detail::cuda_host_alloc(nbytes);
  auto storage = std::make_shared<StorageImpl>(p, nbytes, Device(kCPU), detail::cuda_host_free);
  Tensor out(std::make_shared<TensorImpl>(storage, scalar_type(), sizes(),
                                          contiguous_strides(sizes()), 0));
  ops::copy_any(out, *this);
  return out;
}

bool Tensor::is_pinned() const { return is_cpu() && detail::cuda_is_pinned(data_ptr()); }
Tensor Tensor::to(const TensorOptions& o, bool nb, bool copy, optional<MemoryFormat> mf) const {
  NABLA_CHECK(!(mf && o.has_memory_format()),
              "to: cannot set memory_format both in TensorOptions and as an explicit argument; "
              "please delete the redundant setter");
  NABLA_CHECK(!o.requires_grad(),
              "to(options) expects unset requires_grad flag, but got options.requires_grad set "
              "as true: to() makes a copy that follows this tensor's autograd history; call "
              "requires_grad_() on the result of a leaf instead");
  return to(o.device(), o.has_dtype() ? o.dtype() : scalar_type(), nb, copy,
            mf ? mf : o.memory_format_opt());
}
Tensor Tensor::to(const Tensor& other, bool nb, bool copy, optional<MemoryFormat> mf) const {
  return to(other.device(), other.scalar_type(), nb, copy, mf);
}

Tensor Tensor::contiguous(MemoryFormat format) const {
  if (format != MemoryFormat::Contiguous)
    ops::refuse_while_tracing("contiguous",
                              "with a memory format other than Contiguous: the "
                              "schema has no such attribute");
  NABLA_TRACED("contiguous", {*this});
  NABLA_CHECK(format != MemoryFormat::Preserve,
              "contiguous: memory format Preserve is not supported by contiguous()");
  return is_contiguous(format) ? *this : clone(format);
}

// An op of the op table (defined here, not in autograd, so that a traced detach is a node
// whose output stops the graph's gradient as eager detach does).
Tensor Tensor::detach() const {
  NABLA_TRACED("detach", {*this});
  return detail::alias_storage(*this, sizes(), strides(), storage_offset());
}

Tensor Tensor::clone(optional<MemoryFormat> memory_format) const {
  refuse_untraceable_format(*this, memory_format, "clone");
  NABLA_TRACED("clone", {*this});
  Tensor out = ops::empty_tensor(sizes(), scalar_type(), device(),
                                 memory_format.value_or(MemoryFormat::Preserve), this);
  ops::copy_any(out, *this);
  if (auto node = autograd::record_node(kCloneBackward, {this})) autograd::set_history(out, node);
  return out;
}

namespace {

// After an in-place write with grad: `node` (whose inputs are self's old value and the
// written operands) becomes self's history (through CopySlices when self is a view).
template <class State>
void finish_inplace(const Tensor& self, const std::shared_ptr<OpNode<State>>& node) {
  Tensor result = ops::make_view(self, self.sizes(), self.strides(), self.storage_offset());
  autograd::set_history(result, node);
  ops::rebase_history(self, result);
}

}  // namespace

const Tensor& Tensor::copy_(const Tensor& src, bool) const {
  ops::check_defined(src, "copy_ (src)");
  for (int64_t d = 0; d < dim(); ++d)
    NABLA_CHECK(strides()[d] != 0 || sizes()[d] <= 1,
                "copy_: unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location (sizes ",
                sizes(), ", strides ", strides(),
                "). Please clone() the tensor before performing the operation.");
  // An integral destination holds no gradient.
  const bool grad = is_floating_point() && autograd::any_requires_grad(*this, src);
  if (grad) ops::check_inplace_autograd(*this, "copy_");
  // From another device the source moves here first (its values only: the gradient is
  // moved back by copy_'s own node).
  Tensor s = ops::expand_to(
      src.device() == device() ? src : src.detach().to(device(), src.scalar_type()), sizes());
  // A source that overlaps the destination is copied out first.
  if (s.impl()->storage() == impl()->storage()) s = s.detach().clone();
  ops::copy_any(*this, s);
  ops::bump_version(*this);
  if (grad) {
    auto node = autograd::record_node(kCopyBackwards, {this, &src});
    node->state = {DimVector(src.sizes().begin(), src.sizes().end()), src.scalar_type(),
                   src.device()};
    finish_inplace(*this, node);
  }
  return *this;
}

const Tensor& Tensor::resize_(IntArrayRef size, optional<MemoryFormat> memory_format) const {
  NABLA_CHECK(!requires_grad(),
              "cannot resize variables that require grad (resize_ of a tensor of sizes ", sizes(),
              " to ", size, ")");
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Contiguous);
  NABLA_CHECK(format != MemoryFormat::Preserve, "resize_: unsupported memory format Preserve");
  const int64_t n = checked_numel(size, "resize_");
  TensorImpl* impl = unsafeGetTensorImpl();
  const size_t needed = static_cast<size_t>(impl->storage_offset() + n) * element_size();
  if (n > 0) impl->storage()->grow(needed);
  impl->set_geometry(size, strides_for_memory_format(size, format), impl->storage_offset());
  return *this;
}

const Tensor& Tensor::resize_as_(const Tensor& other, optional<MemoryFormat> memory_format) const {
  ops::check_defined(other, "resize_as_ (the template)");
  return resize_(other.sizes(), memory_format);
}

namespace {
// A fill of any dtype: 16-bit floats through their own path (they have no backend kernels).
void fill_any(const Tensor& t, const Scalar& value) {
  if (isReducedFloatingType(t.scalar_type()))
    ops::fill_reduced(t, value);
  else
    backend_for(t).fill(t, value);
}
}  // namespace

const Tensor& Tensor::fill_(const Scalar& value) const {
  const bool grad = autograd::any_requires_grad(*this);
  if (grad) ops::check_inplace_autograd(*this, "fill_");
  fill_any(*this, value);
  ops::bump_version(*this);
  if (grad) finish_inplace(*this, autograd::record_node(kFillBackward2, {this}));
  return *this;
}

const Tensor& Tensor::fill_(const Tensor& value) const {
  ops::check_defined(value, "fill_ (value)");
  NABLA_CHECK(value.dim() == 0,
              "fill_: only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions");
  const bool grad = is_floating_point() && autograd::any_requires_grad(*this, value);
  if (grad) ops::check_inplace_autograd(*this, "fill_");
  fill_any(*this, value.item());
  ops::bump_version(*this);
  if (grad) finish_inplace(*this, autograd::record_node(kFillBackward3, {this, &value}));
  return *this;
}

const Tensor& Tensor::zero_() const {
  const bool grad = autograd::any_requires_grad(*this);
  if (grad) ops::check_inplace_autograd(*this, "zero_");
  fill_any(*this, 0);
  ops::bump_version(*this);
  if (grad) finish_inplace(*this, autograd::record_node(kZeroBackward, {this}));
  return *this;
}

void Tensor::print() const { std::cout << *this << std::endl; }

}  // namespace nabla

// ---- Registry entries ---------------------------------------------------------------------

namespace nabla::ops {

void registry::add_basic_ops(std::vector<OpSchema>& t) {
  t.push_back(
      op("clone", 1, 1, {}, [](const V& x, const AttrReader&) -> V { return {x[0].clone()}; }));
  t.push_back(
      op("detach", 1, 1, {}, [](const V& x, const AttrReader&) -> V { return {x[0].detach()}; }));
  t.push_back(op("contiguous", 1, 1, {},
                 [](const V& x, const AttrReader&) -> V { return {x[0].contiguous()}; }));
  t.push_back(op("to", 1, 1,
                 {required_attr("dtype", AttrType::Dtype),
                  attr("non_blocking", AttrType::Bool, false), attr("copy", AttrType::Bool, false)},
                 [](const V& x, const AttrReader& a) -> V {
                   return {x[0].to(a.dtype("dtype"), a.b("non_blocking"), a.b("copy"))};
                 }));
}

}  // namespace nabla::ops
