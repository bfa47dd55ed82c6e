#pragma once
// Custom autograd functions (docs/autograd.md), as torch::autograd::Function:
//
//   struct MulConstant : Function<MulConstant> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
//       return {grads[0] * ctx->saved_data["c"].toDouble(), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 2.0);
//
// forward runs with grad mode off; backward returns one entry per forward argument
// (undefined for non-tensors and for inputs that need no gradient).
#include <initializer_list>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/node.h"
#include "nabla/autograd/saved_variable.h"
#include "nabla/core/ivalue.h"

namespace nabla::autograd {

/// ctx->saved_data holds IValues (nabla/core/ivalue.h), as in LibTorch.
using nabla::IValue;

class AutogradContext {
 public:
  /// Saves tensors (inputs or outputs of forward) for backward, with version checks.
  void save_for_backward(variable_list to_save);
  /// The saved tensors, in save order; an error after release or in-place modification.
  variable_list get_saved_variables() const;
  /// Declares inputs that forward modified in place (they get this node as history).
  void mark_dirty(const variable_list& inputs);
  /// Declares outputs that are not differentiable (they will not require grad).
  void mark_non_differentiable(const variable_list& outputs);
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether forward argument i (counting every argument) wants a gradient: it required
  /// grad at forward, and (inside backward) the running pass needs it (autograd::grad
  /// with inputs may not).
  bool needs_input_grad(size_t i) const;
  /// Whether any argument in the half-open ranges [first, second) wants one.
  bool needs_input_grad(std::initializer_list<std::pair<size_t, size_t>> ranges) const {
    for (const auto& [begin, end] : ranges)
      for (size_t i = begin; i < end; ++i)
        if (needs_input_grad(i)) return true;
    return false;
  }

  std::unordered_map<std::string, IValue> saved_data;

 private:
  template <class T>
  friend struct Function;
  friend class CustomNode;
  friend void detail_finish(const std::shared_ptr<class CustomNode>&, const variable_list&,
                            variable_list&, bool);
  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  std::unordered_set<TensorImpl*> dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  bool released_ = false;
  std::weak_ptr<Node> node_;
};

/// Wires `node` to the tensor inputs and records the outputs (handling dirty and
/// non-differentiable outputs and saved tensors).
void detail_finish(const std::shared_ptr<CustomNode>& node, const variable_list& inputs,
                   variable_list& outputs, bool any_grad);

/// The graph node of one custom-function call.
class CustomNode final : public Node {
 public:
  using BackwardFn = variable_list (*)(AutogradContext*, variable_list);
  CustomNode(std::string name, BackwardFn fn) : name_(std::move(name)), backward_(fn) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return name_; }
  void release_variables() override;
  AutogradContext ctx;
  std::vector<int> tensor_arg_index;  // for each next edge: the forward argument index
  size_t num_args = 0;

 private:
  std::string name_;
  BackwardFn backward_;
};

namespace detail {
std::string demangle_type(const char* mangled);
/// Throws while graph::trace records on this thread: a custom Function is not an op of the
/// op table, so a static graph cannot hold it (nor its backward).
void refuse_custom_function_while_tracing(const char* mangled);
inline void finish_custom_function(const std::shared_ptr<CustomNode>& node,
                                   const variable_list& inputs, variable_list& outputs,
                                   bool any_grad) {
  detail_finish(node, inputs, outputs, any_grad);
}

// The tensor inputs of a call, each at its position among the inputs: a tensor is one
// input, each tensor of a list (TensorList, variable_list) one more, anything else one
// input that takes no gradient (backward returns one entry per position, as LibTorch's).
template <class A>
void collect_arg(const A& a, variable_list& tensors, std::vector<int>& index, int& pos) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, TensorList> || std::is_same_v<D, variable_list>) {
    for (const Tensor& t : a) {
      tensors.push_back(t);
      index.push_back(pos++);
    }
    return;
  } else if constexpr (std::is_same_v<D, Tensor>) {
    tensors.push_back(a);
    index.push_back(pos);
  }
  ++pos;
}
inline variable_list as_list(const Tensor& t) { return {t}; }
inline variable_list as_list(const variable_list& v) { return v; }
}  // namespace detail

template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    detail::refuse_custom_function_while_tracing(typeid(T).name());
    variable_list inputs;
    std::vector<int> index;
    int pos = 0;
    (detail::collect_arg(args, inputs, index, pos), ...);
    bool any_grad = false;
    if (GradMode::is_enabled())
      for (const Tensor& t : inputs) any_grad = any_grad || (t.defined() && t.requires_grad());
    auto node = std::make_shared<CustomNode>(detail::demangle_type(typeid(T).name()), &T::backward);
    node->num_args = static_cast<size_t>(pos);
    node->tensor_arg_index = index;
    node->ctx.needs_input_grad_.assign(static_cast<size_t>(pos), false);
    for (size_t k = 0; k < inputs.size(); ++k)
      node->ctx.needs_input_grad_[index[k]] =
          any_grad && inputs[k].defined() && inputs[k].requires_grad();
    using Out = decltype(T::forward(&node->ctx, std::forward<Args>(args)...));
    Out result;
    {
      AutoGradMode no_grad(false);
      result = T::forward(&node->ctx, std::forward<Args>(args)...);
    }
    variable_list outputs = detail::as_list(result);
    detail::finish_custom_function(node, inputs, outputs, any_grad);
    if constexpr (std::is_same_v<Out, Tensor>)
      return outputs[0];
    else
      return outputs;
  }
};

/// A range of forward arguments for needs_input_grad({...}): [first, second).
using IndexRange = std::pair<size_t, size_t>;

namespace detail {
struct UndefinedGradFunction : Function<UndefinedGradFunction> {
  static variable_list forward(AutogradContext*, variable_list inputs) { return inputs; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return variable_list(grads.size());
  }
};
}  // namespace detail

/// Passes its inputs through; their gradients come back undefined (LibTorch's
/// UndefinedGrad, for testing how code handles undefined gradients).
struct UndefinedGrad {
  variable_list apply(variable_list inputs) const {
    return detail::UndefinedGradFunction::apply(std::move(inputs));
  }
};

}  // namespace nabla::autograd
