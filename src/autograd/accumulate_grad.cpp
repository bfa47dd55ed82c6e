#include "autograd/accumulate_grad.h"

#include <atomic>
#include <limits>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/detail/grad_arithmetic.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/core/autograd_meta.h"

namespace nabla::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  // Leaves run as soon as they are ready: their gradient is final once it arrives.
  sequence_nr_ = std::numeric_limits<uint64_t>::max();
  add_input_metadata(variable_);
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (!grads.empty() && grads[0].defined()) {
    std::lock_guard<std::mutex> lock(mutex_);
    Tensor g = grads[0];
    auto* meta = variable_.unsafeGetTensorImpl()->autograd_meta();
    if (meta)
      for (auto& [id, fn] : meta->hooks) {
        Tensor r = fn(g);
        if (r.defined()) g = r;
      }
    accumulate_grad(variable_, g);
    if (meta)
      for (auto& [id, fn] : meta->post_accumulate_hooks) fn(variable_);
  }
  return {};
}

bool AccumulateGrad::can_add_into(const Tensor& grad) const {
  auto* meta = variable_.unsafeGetTensorImpl()->autograd_meta();
  if (meta && (!meta->hooks.empty() || !meta->post_accumulate_hooks.empty())) return false;
  return grad.defined() && !grad.requires_grad() && grad.is_contiguous() &&
         grad.device() == variable_.device();
}

bool AccumulateGrad::add_in_place(const std::function<bool(const Tensor& grad)>& add) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Tensor& g = variable_.mutable_grad();
  return can_add_into(g) && add(g);
}

void accumulate_grad(const Tensor& leaf, const Tensor& grad) {
  Tensor& g = leaf.mutable_grad();
  if (!g.defined()) {
    // Keep the incoming tensor when nobody else holds it; otherwise copy, so that a later
    // in-place accumulation cannot write into someone else's tensor.
    bool sole_owner = grad.use_count() == 1 && grad.is_contiguous() && grad.storage_offset() == 0 &&
                      grad.impl()->storage().use_count() == 1 && !grad.requires_grad();
    const auto& math = detail::grad_arithmetic();
    if (GradMode::is_enabled())
      g = grad.requires_grad() ? grad : math.clone(grad);
    else
      g = sole_owner ? grad : math.clone(math.detach(grad));
  } else if (GradMode::is_enabled()) {
    g = detail::grad_arithmetic().add(g, grad);  // create_graph: g stays differentiable
  } else {
    detail::grad_arithmetic().add_(g, grad);
  }
}

unsigned register_post_accumulate_grad_hook(const Tensor& leaf,
                                            std::function<void(const Tensor&)> hook) {
  NABLA_CHECK(leaf.defined() && leaf.requires_grad() && leaf.is_leaf(),
              "register_post_accumulate_grad_hook: expected a leaf tensor that requires grad");
  static std::atomic<unsigned> next_id{1};
  const unsigned id = next_id.fetch_add(1);
  leaf.unsafeGetTensorImpl()->ensure_autograd_meta().post_accumulate_hooks.emplace_back(
      id, std::move(hook));
  return id;
}

void remove_post_accumulate_grad_hook(const Tensor& leaf, unsigned handle) {
  auto* meta = leaf.defined() ? leaf.unsafeGetTensorImpl()->autograd_meta() : nullptr;
  NABLA_CHECK(meta && erase_hook(meta->post_accumulate_hooks, handle),
              "remove_post_accumulate_grad_hook: no hook with handle ", handle, " on this tensor");
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  auto& meta = leaf.unsafeGetTensorImpl()->ensure_autograd_meta();
  std::lock_guard<std::mutex> lock(meta.mutex);
  if (auto acc = meta.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  meta.grad_accumulator = acc;
  return acc;
}

void detail::zero_leaf_grad(const Tensor& leaf, bool set_to_none) {
  Tensor& g = leaf.mutable_grad();
  if (!g.defined()) return;
  if (set_to_none) {
    g = Tensor();
  } else {
    g = grad_arithmetic().detach(g);
    grad_arithmetic().zero_(g);
  }
}

}  // namespace nabla::autograd
