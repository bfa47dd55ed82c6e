#include "autograd/formula.h"

#include <cxxabi.h>
#include <execinfo.h>

#include <cstdlib>

#include "nabla/autograd/autograd.h"
#include "nabla/core/object_pool.h"
#include "nabla/ops/factories.h"

namespace nabla::autograd {
namespace {

// The caller's stack, demangled where symbols are available (anomaly mode only).
std::string capture_trace() {
  void* frames[32];
  int n = ::backtrace(frames, 32);
  char** symbols = ::backtrace_symbols(frames, n);
  std::string out;
  for (int i = 2; i < n && symbols; ++i) {
    std::string line = symbols[i];
    auto open = line.find('('), plus = line.find('+', open);
    if (open != std::string::npos && plus != std::string::npos && plus > open + 1) {
      std::string mangled = line.substr(open + 1, plus - open - 1);
      int status = 0;
      char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
      if (status == 0 && demangled) line = line.substr(0, open + 1) + demangled + line.substr(plus);
      std::free(demangled);
    }
    out += "  " + line + "\n";
  }
  std::free(symbols);
  return out;
}

}  // namespace

variable_list FormulaNode::apply(variable_list&& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) {
      const InputMetadata& m = input_metadata(i);
      grads[i] = zeros(IntArrayRef(m.shape), TensorOptions(m.dtype));
    }
  }
  variable_list out = formula_->backward(*this, grads);
  out.resize(num_outputs());
  for (size_t i = 0; i < out.size(); ++i)
    if (!should_compute_output(i)) out[i] = Tensor();
  return out;
}

void FormulaNode::release_variables() {
  for (auto& s : saved_) s.reset_data();
}

bool any_requires_grad_list(TensorList ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : ts)
    if (requires_grad(t)) return true;
  return false;
}

static void finish_node(FormulaNode& node) {
  if (AnomalyMode::is_enabled()) node.set_creation_trace(capture_trace());
}

std::shared_ptr<FormulaNode> make_node(const Formula& f,
                                       std::initializer_list<const Tensor*> inputs) {
  auto node = detail::make_pooled<FormulaNode>(f);
  for (const Tensor* t : inputs)
    node->add_next_edge(t && t->defined() ? gradient_edge(*t) : Edge());
  finish_node(*node);
  return node;
}

std::shared_ptr<FormulaNode> make_node(const Formula& f, TensorList inputs) {
  auto node = detail::make_pooled<FormulaNode>(f);
  for (const Tensor& t : inputs) node->add_next_edge(t.defined() ? gradient_edge(t) : Edge());
  finish_node(*node);
  return node;
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node) {
  auto& meta = out.unsafeGetTensorImpl()->ensure_autograd_meta();
  meta.output_nr = node->add_input_metadata(out);
  meta.grad_fn = node;
}

}  // namespace nabla::autograd

namespace nabla::autograd {

void set_history(const variable_list& outputs, const std::shared_ptr<Node>& node) {
  for (const Tensor& t : outputs)
    if (t.defined()) set_history(t, node);
}

void deleteNode(Node* function) { delete function; }  // ~Node releases its edges iteratively

}  // namespace nabla::autograd
