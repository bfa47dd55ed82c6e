#include "nabla/autograd/record.h"

#include <cxxabi.h>
#include <execinfo.h>

#include <cstdlib>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/detail/grad_arithmetic.h"

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

void finish_node(Node& node) {
  if (!AnomalyMode::is_enabled()) return;
  node.set_creation_trace(capture_trace());
  if (Node* parent = detail::anomaly_running_node())
    node.set_anomaly_parent(parent->shared_from_this());
}

}  // namespace

namespace detail {

void fill_missing_grads(const Node& node, variable_list& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) continue;
    const InputMetadata& m = node.input_metadata(i);
    grads[i] = grad_arithmetic().zeros(IntArrayRef(m.shape), m.dtype, Device(kCPU));
  }
}

void finish_grads(const Node& node, variable_list& grads) {
  grads.resize(node.num_outputs());
  for (size_t i = 0; i < grads.size(); ++i)
    if (!node.should_compute_output(i)) grads[i] = Tensor();
}

void connect(Node& node, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs) node.add_next_edge(t && t->defined() ? gradient_edge(*t) : Edge());
  finish_node(node);
}

void connect(Node& node, TensorList inputs) {
  for (const Tensor& t : inputs) node.add_next_edge(t.defined() ? gradient_edge(t) : Edge());
  finish_node(node);
}

}  // namespace detail

bool any_requires_grad_list(TensorList ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : ts)
    if (requires_grad(t)) return true;
  return false;
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node) {
  auto& meta = out.unsafeGetTensorImpl()->ensure_autograd_meta();
  meta.output_nr = node->add_input_metadata(out);
  meta.grad_fn = node;
}

void set_history(const variable_list& outputs, const std::shared_ptr<Node>& node) {
  for (const Tensor& t : outputs)
    if (t.defined()) set_history(t, node);
}

void deleteNode(Node* function) { delete function; }  // ~Node releases its edges iteratively

}  // namespace nabla::autograd
