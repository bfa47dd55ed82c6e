// Tensor methods of the autograd layer: flags, grad, graph inspection, backward, hooks.
#include <atomic>

#include "autograd/accumulate_grad.h"
#include "nabla/autograd/autograd.h"
#include "nabla/autograd/record.h"
#include "nabla/core/warning.h"

namespace nabla {

namespace {
// Note [Views and in-place]: a view made under no_grad or InferenceMode of a base that
// requires grad has no history of its own; once the base or another of its views is
// written in place, no history could be right for it.
void check_stale_view(const autograd::AutogradMeta& m) {
  const Tensor& base = m.view_base;
  if (!base.defined() || base.unsafeGetTensorImpl()->is_inference() ||
      m.view_version == base.unsafeGetTensorImpl()->version() || !base.requires_grad())
    return;
  const bool inference = m.view_creation == autograd::ViewCreation::kInferenceMode;
  NABLA_CHECK(false, "grad_fn: A view was created in ", inference ? "inference" : "no_grad",
              " mode and its base or another view of its base has been modified inplace",
              inference ? "" : " with grad mode enabled",
              ". Its history is lost: make the view and the in-place write both with grad "
              "off or both with grad on (or clone() the view when you make it).");
}

// A view whose view op has no derivative (AutogradMeta::view_func_error): once its
// storage changed, its history would have to be rebuilt through that op.
void check_view_without_derivative(const autograd::AutogradMeta& m) {
  const Tensor& base = m.view_base;
  if (!base.defined() || m.view_version == base.unsafeGetTensorImpl()->version() ||
      !base.requires_grad())
    return;
  NABLA_CHECK(false, "grad_fn: ", *m.view_func_error);
}
}  // namespace

bool Tensor::requires_grad() const {
  auto* m = checked().autograd_meta();
  return m && autograd::detail::reports_requires_grad(*m);
}

const Tensor& Tensor::requires_grad_(bool r) const {
  auto* m = checked().autograd_meta();
  NABLA_CHECK(!(m && m->grad_fn) || r,
              "requires_grad_: you can only change requires_grad flags of leaf variables. If you "
              "want to use a computed variable in a subgraph that doesn't require differentiation "
              "use var_no_grad = var.detach().");
  NABLA_CHECK(!r || is_floating_point(),
              "requires_grad_: Only Tensors of floating point and complex dtype can require "
              "gradients (nabla has no complex dtype), got ",
              scalar_type());
  NABLA_CHECK(!r || !impl_->is_inference() || InferenceMode::is_enabled(),
              "requires_grad_: Setting requires_grad=True on inference tensor outside "
              "InferenceMode is not allowed. (Make a normal tensor of it with t.clone() outside "
              "InferenceMode.)");
  if (!r && !m) return *this;
  impl_->ensure_autograd_meta().requires_grad = r;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  auto* m = checked().autograd_meta();
  if (m && m->grad_fn && !m->retains_grad && !m->grad.defined())
    NABLA_WARN(
        "The .grad of a tensor that is not a leaf Tensor is being accessed: it is not filled "
        "by backward (only leaves' are). Call .retain_grad() on it before backward to keep "
        "its gradient, or use the leaf it was computed from.");
  return m ? m->grad : undefined;
}

uint32_t Tensor::_version() const {
  NABLA_CHECK(!checked().is_inference(),
              "_version: Inference tensors do not track version counter. (The tensor was made "
              "inside InferenceMode.)");
  return impl_->version();
}

Tensor& Tensor::mutable_grad() const { return impl_->ensure_autograd_meta().grad; }

const Tensor& Tensor::detach_() const {
  if (auto* m = checked().autograd_meta()) {
    m->requires_grad = false;
    autograd::release_node(std::move(m->grad_fn));
    m->output_nr = 0;
  }
  return *this;
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<autograd::Node> none;
  auto* m = checked().autograd_meta();
  if (!m) return none;
  if (m->view_creation == autograd::ViewCreation::kNoGradMode ||
      m->view_creation == autograd::ViewCreation::kInferenceMode) [[unlikely]]
    check_stale_view(*m);
  if (m->view_func_error) [[unlikely]]
    check_view_without_derivative(*m);
  return m->grad_fn;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

bool Tensor::is_view() const {
  auto* m = checked().autograd_meta();
  return m && m->view_base.defined() && !impl_->is_inference();
}

const Tensor& Tensor::_base() const {
  NABLA_CHECK(is_view(),
              "_base: this tensor is not a view (is_view() is false), so it has no base");
  return impl_->autograd_meta()->view_base;
}

uint32_t Tensor::output_nr() const {
  auto* m = checked().autograd_meta();
  return m ? m->output_nr : 0;
}

const Tensor& Tensor::retain_grad() const {
  NABLA_CHECK(requires_grad(),
              "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return *this;  // leaves keep their gradient anyway
  auto& m = impl_->ensure_autograd_meta();
  if (m.retains_grad) return *this;
  m.grad_fn->set_retains_grad(m.output_nr, impl_);
  m.retains_grad = true;
  return *this;
}

bool Tensor::retains_grad() const {
  auto* m = checked().autograd_meta();
  return m && m->retains_grad;
}

namespace detail {
unsigned register_tensor_hook(const Tensor& t, std::function<Tensor(const Tensor&)> fn) {
  NABLA_CHECK(t.requires_grad(),
              "register_hook: cannot register a hook on a tensor that doesn't "
              "require gradient");
  if (t.is_leaf()) {
    static std::atomic<unsigned> next_id{1u << 30};  // apart from node hook ids
    unsigned id = next_id.fetch_add(1);
    t.unsafeGetTensorImpl()->ensure_autograd_meta().hooks.emplace_back(id, std::move(fn));
    return id;
  }
  return t.grad_fn()->add_tensor_pre_hook(t.output_nr(), std::move(fn));
}
}  // namespace detail

void Tensor::remove_hook(unsigned handle) const {
  bool removed = false;
  if (!is_leaf()) {
    removed = grad_fn()->remove_tensor_pre_hook(handle);
  } else if (auto* m = checked().autograd_meta()) {
    removed = autograd::erase_hook(m->hooks, handle);
  }
  NABLA_CHECK(removed, "remove_hook: Invalid index, no hook with handle ", handle,
              " on this tensor");
}

void Tensor::set_data(const Tensor& new_data) const {
  NABLA_CHECK(new_data.defined(), "set_data: expected a defined tensor");
  impl_->set_storage(new_data.impl()->storage(), new_data.scalar_type(), new_data.sizes(),
                     new_data.strides(), new_data.storage_offset());
}

}  // namespace nabla
