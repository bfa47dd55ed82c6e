// Custom autograd functions: AutogradContext, CustomNode, and the graph wiring
// of Function<T>::apply.
#include "nabla/autograd/function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/record.h"

namespace nabla::autograd {

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

variable_list AutogradContext::get_saved_variables() const {
  NABLA_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Specify retain_graph=true if you need "
              "to backward through the graph a second time.");
  variable_list out;
  auto node = node_.lock();
  if (saved_.empty()) return to_save_;  // no graph was built: plain tensors
  for (const auto& s : saved_) out.push_back(s.unpack(node));
  return out;
}

bool AutogradContext::needs_input_grad(size_t i) const {
  if (i >= needs_input_grad_.size() || !needs_input_grad_[i]) return false;
  auto node = std::static_pointer_cast<CustomNode>(node_.lock());
  if (!node) return true;  // forward, or no graph: what forward saw
  for (size_t e = 0; e < node->tensor_arg_index.size(); ++e)
    if (static_cast<size_t>(node->tensor_arg_index[e]) == i)
      return node->task_should_compute_output(e);
  return true;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

variable_list CustomNode::apply(variable_list&& grads) {
  if (ctx.materialize_grads_) detail::fill_missing_grads(*this, grads);
  variable_list result = backward_(&ctx, std::move(grads));
  // As LibTorch: extra trailing gradients are accepted when all are undefined (a forward
  // with a defaulted `Tensor bias = {}` argument called without it, whose backward still
  // returns {grad_input, grad_weight, grad_bias}).
  if (result.size() > num_args) {
    bool all_undefined = true;
    for (size_t i = num_args; i < result.size(); ++i)
      all_undefined = all_undefined && !result[i].defined();
    if (all_undefined) result.resize(num_args);
  }
  NABLA_CHECK(result.size() == num_args, "function ", name(),
              " returned an incorrect number of gradients (expected ", num_args, ", got ",
              result.size(), ")");
  variable_list out(num_outputs());
  for (size_t e = 0; e < num_outputs(); ++e) {
    Tensor& g = result[tensor_arg_index[e]];
    if (!should_compute_output(e) || !g.defined()) continue;
    const InputMetadata& m = next_edge(e).function->input_metadata(next_edge(e).input_nr);
    NABLA_CHECK(g.sizes() == IntArrayRef(m.shape), name(),
                ": function backward returned an invalid gradient at index ", tensor_arg_index[e],
                " - got ", g.sizes(), " but expected shape compatible with ", IntArrayRef(m.shape));
    out[e] = g;
  }
  return out;
}

void CustomNode::release_variables() {
  for (auto& s : ctx.saved_) s.reset_data();
  ctx.released_ = true;
}

namespace detail {

std::string demangle_type(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : mangled;
  std::free(d);
  return out;
}

// The trace's epoch is set while graph::trace runs (Note [Tracing], src/graph/trace.cpp); no
// op of the op table is a custom Function, so any apply during a trace is the traced code's.
void refuse_custom_function_while_tracing(const char* mangled) {
  NABLA_CHECK(t_trace_epoch == 0, "graph::trace: custom autograd Function ", demangle_type(mangled),
              " cannot be recorded in a static graph (it is not an op of the op table, "
              "ops::call); trace the ops it is made of instead");
}

}  // namespace detail

void detail_finish(const std::shared_ptr<CustomNode>& node, const variable_list& inputs,
                   variable_list& outputs, bool any_grad) {
  AutogradContext& ctx = node->ctx;
  std::unordered_set<TensorImpl*> input_impls;
  for (const Tensor& t : inputs)
    if (t.defined()) input_impls.insert(t.unsafeGetTensorImpl());
  // forward wrote the dirty inputs in place: their readers must see a new version.
  for (const Tensor& t : inputs)
    if (t.defined() && ctx.dirty_.count(t.unsafeGetTensorImpl()))
      t.unsafeGetTensorImpl()->bump_version();
  if (!any_grad) {
    // No graph: outputs that are inputs stay as they are; saved tensors kept plainly.
    return;
  }
  for (const Tensor& t : inputs) node->add_next_edge(t.defined() ? gradient_edge(t) : Edge());
  for (auto& out : outputs) {
    if (!out.defined()) continue;
    TensorImpl* impl = out.unsafeGetTensorImpl();
    if (ctx.non_differentiable_.count(impl)) {
      // It keeps its slot among the node's outputs (backward sees zeros there) but takes
      // no history.
      node->add_input_metadata(out);
      continue;
    }
    bool is_input = input_impls.count(impl) > 0;
    if (is_input && !ctx.dirty_.count(impl)) {
      // Returned an input unchanged: give the output its own identity (a view), as PyTorch.
      out = ::nabla::detail::alias_storage(out, out.sizes(), out.strides(), out.storage_offset());
    } else if (is_input) {
      NABLA_CHECK(!(out.is_leaf() && out.requires_grad()), node->name(),
                  ": a leaf Variable that requires grad has been used in an in-place operation "
                  "(mark_dirty).");
    }
    set_history(out, node);
  }
  // Save after the outputs know their node, so saved outputs are stored weakly.
  std::unordered_set<TensorImpl*> output_impls;
  for (const Tensor& o : outputs)
    if (o.defined()) output_impls.insert(o.unsafeGetTensorImpl());
  for (const Tensor& t : ctx.to_save_)
    ctx.saved_.emplace_back(t, t.defined() && output_impls.count(t.unsafeGetTensorImpl()) > 0);
  ctx.to_save_.clear();
  ctx.node_ = node;
}

}  // namespace nabla::autograd
