#include "nabla/autograd/saved_variable.h"

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/autograd_meta.h"

namespace nabla::autograd {
namespace {

struct HookPair {
  std::function<std::any(const Tensor&)> pack;
  std::function<Tensor(const std::any&)> unpack;
  HookPair* prev;
};
thread_local HookPair* t_hooks = nullptr;

// The same bytes and geometry as `t`, without autograd meta.
Tensor plain_alias(const Tensor& t) {
  return ::nabla::detail::alias_storage(t, t.sizes(), t.strides(), t.storage_offset());
}

}  // namespace

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  NABLA_CHECK(!t.is_inference(),
              "Inference tensors cannot be saved for backward. A tensor made inside "
              "InferenceMode takes no part in autograd; to use it here, make a normal tensor "
              "of it with t.clone() outside InferenceMode.");
  was_defined_ = true;
  is_output_ = is_output;
  requires_grad_ = t.requires_grad();
  saved_version_ = t._version();
  dtype_ = t.scalar_type();
  if (auto* m = t.unsafeGetTensorImpl()->autograd_meta()) output_nr_ = m->output_nr;
  // Outputs are kept without their grad_fn, which is the saving node (no cycle).
  Tensor keep = is_output ? plain_alias(t) : t;
  if (t_hooks) {
    packed_ = std::make_unique<Packed>();
    packed_->value = t_hooks->pack(keep);
    packed_->unpack_hook = t_hooks->unpack;
    packed_->storage_ref = t.impl()->storage();
    packed_->shape.assign(t.sizes().begin(), t.sizes().end());
  } else {
    data_ = std::move(keep);
  }
}

void SavedVariable::reset_data() {
  data_ = Tensor();
  packed_.reset();
  released_ = true;
}

std::string SavedVariable::describe_saved() const {
  IntArrayRef shape = data_.defined() ? data_.sizes()
                      : packed_       ? IntArrayRef(packed_->shape)
                                      : IntArrayRef();
  return str("[", toString(dtype_), "Tensor ", shape, "]");
}

Tensor SavedVariable::unpack(Node* saved_for) const {
  if (!was_defined_) return Tensor();
  NABLA_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd::grad(). Specify "
              "retain_graph=true if you need to backward through the graph a second time or if "
              "you need to access saved tensors after calling backward.");
  uint32_t version = saved_version_;
  if (data_.defined())
    version = data_._version();
  else if (auto st = packed_ ? packed_->storage_ref.lock() : nullptr)
    version = st->version();
  if (version != saved_version_) {
    std::string who = saved_for
                          ? str(", which is ", is_output_ ? "output " : "an input of ",
                                is_output_ ? std::to_string(output_nr_) + " of " : std::string(),
                                saved_for->name(), ",")
                          : std::string(",");
    NABLA_CHECK(false,
                "one of the variables needed for gradient computation has been modified by an "
                "inplace operation: ",
                describe_saved(), who, " is at version ", version, "; expected version ",
                saved_version_,
                " instead. Hint: the backtrace further above (DetectAnomalyGuard) shows the "
                "operation that failed to compute its gradient.");
  }
  Tensor t = packed_ ? packed_->unpack_hook(packed_->value) : data_;
  if (!(is_output_ && requires_grad_ && saved_for && GradMode::is_enabled())) return t;
  // Re-attach the node so that create_graph can differentiate through the output
  // (with grad mode off nothing would record it: the plain value does).
  Tensor out = plain_alias(t);
  auto& meta = out.unsafeGetTensorImpl()->ensure_autograd_meta();
  meta.grad_fn = saved_for->shared_from_this();
  meta.output_nr = output_nr_;
  return out;
}

SavedTensorHooksGuard::SavedTensorHooksGuard(std::function<std::any(const Tensor&)> pack,
                                             std::function<Tensor(const std::any&)> unpack) {
  NABLA_CHECK(pack && unpack, "SavedTensorHooksGuard: both pack and unpack hooks are required");
  prev_ = t_hooks;
  t_hooks = new HookPair{std::move(pack), std::move(unpack), t_hooks};
}

SavedTensorHooksGuard::~SavedTensorHooksGuard() {
  HookPair* h = t_hooks;
  t_hooks = static_cast<HookPair*>(prev_);
  delete h;
}

}  // namespace nabla::autograd
