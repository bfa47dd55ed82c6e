#pragma once
// Recording history: the API through which ops (and programs that write their own ops)
// put backward nodes into the graph. Autograd includes no ops header; ops include this.
//
// An op declares its node once, beside its forward: a struct of exactly what the
// backward reads (saved tensors are SavedVariable members, listed by `saved()` so they
// can be freed after backward), a formula written with differentiable ops (so
// create_graph gives higher derivatives), and LibTorch's name for the node:
//
//   struct TanhState {
//     SavedVariable result;
//     auto saved() { return std::tie(result); }
//   };
//   variable_list tanh_backward(OpNode<TanhState>& n, const variable_list& grads) {
//     return {grads[0] * (1 - n.get(n.state.result).square())};
//   }
//   constexpr NodeType<TanhState> kTanhBackward{"TanhBackward0", tanh_backward};
//
// After computing its output, the op records:
//
//   if (auto node = autograd::record_node(kTanhBackward, {&x})) {  // null without grad
//     autograd::set_history(out, node);                 // out.grad_fn() == node
//     node->state.result = autograd::save_output(out);  // after set_history
//   }
#include <initializer_list>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/node.h"
#include "nabla/autograd/saved_variable.h"
#include "nabla/core/autograd_meta.h"
#include "nabla/core/object_pool.h"

namespace nabla::autograd {

template <class State>
class OpNode;

/// A kind of backward node: LibTorch's name for it and its formula. The formula returns
/// one gradient per forward input (undefined where not needed); `grads` holds one
/// defined gradient per forward output (zeros stand in for outputs that got none).
template <class State>
struct NodeType {
  const char* name;
  variable_list (*backward)(OpNode<State>& node, const variable_list& grads);
};

namespace detail {
// The parts of OpNode that do not depend on its state (record.cpp).
void fill_missing_grads(const Node& node, variable_list& grads);
void finish_grads(const Node& node, variable_list& grads);
void connect(Node& node, std::initializer_list<const Tensor*> inputs);
void connect(Node& node, TensorList inputs);

inline void release(SavedVariable& v) { v.reset_data(); }
inline void release(std::vector<SavedVariable>& vs) {
  for (auto& v : vs) v.reset_data();
}
template <class S>
concept HasSaved = requires(S& s) {
  s.saved();
};
}  // namespace detail

/// The backward node of one forward call: its type and the state it saved.
template <class State>
class OpNode final : public Node {
 public:
  explicit OpNode(const NodeType<State>& type) : type_(&type) {}
  variable_list apply(variable_list&& grads) override {
    detail::fill_missing_grads(*this, grads);
    variable_list out = type_->backward(*this, grads);
    detail::finish_grads(*this, out);
    return out;
  }
  std::string name() const override { return type_->name; }
  void release_variables() override {
    if constexpr (detail::HasSaved<State>)
      std::apply([](auto&... v) { (detail::release(v), ...); }, state.saved());
  }
  /// A saved tensor, checked against in-place writes and release.
  Tensor get(const SavedVariable& v) { return v.unpack(this); }
  /// Whether forward input i wants a gradient.
  bool needs_input_grad(size_t i) const { return should_compute_output(i); }

  State state{};

 private:
  const NodeType<State>* type_;
};

/// A formula's result from its gradients, moved in (a braced list would copy each one).
template <class... T>
variable_list gradients(T&&... grads) {
  variable_list out;
  out.reserve(sizeof...(T));
  (out.push_back(std::forward<T>(grads)), ...);
  return out;
}

/// For formulas written once for several states (an op family's generated nodes): the
/// saved tensor `field` of n's state unpacked, or an undefined tensor when the state has
/// no such field.
#define NABLA_SAVED_OR_UNDEFINED(n, field) \
  ::nabla::autograd::saved_or_undefined(n, [](auto& s) -> decltype((s.field)) { return s.field; })
template <class State, class Field>
Tensor saved_or_undefined(OpNode<State>& n, Field field) {
  if constexpr (std::is_invocable_v<Field, State&>)
    return n.get(field(n.state));
  else
    return Tensor();
}

namespace detail {
/// The node whose backward runs on this thread now, in anomaly mode (else null).
Node* anomaly_running_node();

/// What Tensor::requires_grad() reports: the leaf flag, a history, or, for a view made
/// with grad mode off of a base requiring grad, the base's (as in LibTorch; such a view
/// is a leaf without an accumulator: a gradient reaching it is dropped, Note [Views and
/// in-place], src/ops/shape/views_backward.h).
inline bool reports_requires_grad(const AutogradMeta& m) {
  if (m.requires_grad || m.grad_fn) return true;
  if (!m.view_base.defined() || (m.view_creation != ViewCreation::kNoGradMode &&
                                 m.view_creation != ViewCreation::kInferenceMode))
    return false;
  auto* b = m.view_base.unsafeGetTensorImpl()->autograd_meta();
  return b && (b->requires_grad || b->grad_fn);
}
}  // namespace detail

/// Whether ops record t's history: it requires grad and is not an inference tensor (one
/// made in InferenceMode takes no part in autograd, as in LibTorch, even when its
/// requires_grad flag was set there).
inline bool requires_grad(const Tensor& t) {
  auto* m = t.defined() ? t.unsafeGetTensorImpl()->autograd_meta() : nullptr;
  return m && detail::reports_requires_grad(*m) && !t.unsafeGetTensorImpl()->is_inference();
}

/// True when grad mode is on and some argument requires grad.
template <class... T>
bool any_requires_grad(const T&... ts) {
  return GradMode::is_enabled() && (requires_grad(ts) || ...);
}
bool any_requires_grad_list(TensorList ts);

/// A node of `type` with one next edge per input (invalid for inputs without grad), or
/// null when grad mode is off or no input requires grad.
template <class State>
std::shared_ptr<OpNode<State>> record_node(const NodeType<State>& type,
                                           std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return nullptr;
  bool any = false;
  for (const Tensor* t : inputs) any = any || (t && requires_grad(*t));
  if (!any) return nullptr;
  auto node = ::nabla::detail::make_pooled<OpNode<State>>(type);
  detail::connect(*node, inputs);
  return node;
}
template <class State>
std::shared_ptr<OpNode<State>> record_node(const NodeType<State>& type, TensorList inputs) {
  if (!any_requires_grad_list(inputs)) return nullptr;
  auto node = ::nabla::detail::make_pooled<OpNode<State>>(type);
  detail::connect(*node, inputs);
  return node;
}

/// Makes `out` the next output of `node` (out.grad_fn() == node, output_nr assigned in
/// call order).
void set_history(const Tensor& out, const std::shared_ptr<Node>& node);

/// A forward input kept for backward.
inline SavedVariable save(const Tensor& t) { return SavedVariable(t, false); }
/// An output of the node kept for backward (saved after set_history; kept without its
/// grad_fn, so the node does not own itself).
inline SavedVariable save_output(const Tensor& t) { return SavedVariable(t, true); }

}  // namespace nabla::autograd
