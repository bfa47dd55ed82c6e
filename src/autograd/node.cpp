#include "nabla/autograd/node.h"

#include <typeinfo>

#include "nabla/autograd/function.h"

#include <algorithm>

#include "nabla/autograd/detail/grad_arithmetic.h"
#include "nabla/core/autograd_meta.h"

namespace nabla::autograd {
namespace {
// Sequence numbers only order nodes of one graph, which one thread builds, so a
// thread-local counter (as PyTorch's) suffices and costs no atomic.
thread_local uint64_t t_next_sequence_nr = 0;
std::atomic<unsigned> g_next_hook_id{1};
}  // namespace

Node::Node() : sequence_nr_(t_next_sequence_nr++) {
  // Note [Releasing a tensor's history] (nabla/core/autograd_meta.h).
  if (!node_releaser.load(std::memory_order_relaxed))
    node_releaser.store(&release_node, std::memory_order_release);
}

// Note [Iterative graph destruction]
// A node owns its next nodes through next_edges; saved tensors own theirs through their
// AutogradMeta. Destroying the last tensor of a long chain would recurse once per node.
// Instead, every owner hands its last reference to release_node(): the outermost call
// drains a thread-local queue, and nested calls only append to it.
namespace {
thread_local std::vector<std::shared_ptr<Node>>* t_pending = nullptr;
}

void release_node(std::shared_ptr<Node>&& node) {
  if (!node) return;
  if (node.use_count() > 1) {  // another owner keeps it alive: nothing is destroyed here
    node.reset();  // (if that owner let go meanwhile, this destroys it: one level deeper)
    return;
  }
  if (t_pending) {
    t_pending->push_back(std::move(node));
    return;
  }
  std::vector<std::shared_ptr<Node>> pending;
  t_pending = &pending;
  pending.push_back(std::move(node));
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // may append more nodes to `pending`
  }
  t_pending = nullptr;
}

Node::~Node() {
  for (auto& e : next_edges_) release_node(std::move(e.function));
}

std::string Node::name() const { return detail::demangle_type(typeid(*this).name()); }

void Node::add_next_edge(Edge e) {
  if (e.function) topological_nr_ = std::max(topological_nr_, e.function->topological_nr() + 1);
  next_edges_.push_back(std::move(e));
}

void Node::set_next_edges(edge_list edges) {
  next_edges_.clear();
  for (auto& e : edges) add_next_edge(std::move(e));
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  InputMetadata m;
  m.shape.assign(t.sizes().begin(), t.sizes().end());
  m.dtype = t.scalar_type();
  input_metadata_.push_back(std::move(m));
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

Node::Extras& Node::extras() {
  if (!extras_) extras_ = std::make_unique<Extras>();
  return *extras_;
}

const std::string& Node::creation_trace() const {
  static const std::string kNone;
  return extras_ ? extras_->creation_trace : kNone;
}

unsigned Node::add_tensor_pre_hook(uint32_t input_nr, TensorHook fn) {
  unsigned id = g_next_hook_id.fetch_add(1);
  extras().pre_hooks.push_back({id, input_nr, std::move(fn)});
  return id;
}

bool Node::remove_tensor_pre_hook(unsigned id) {
  if (!extras_) return false;
  auto& hooks = extras_->pre_hooks;
  auto it = std::find_if(hooks.begin(), hooks.end(), [&](const PreHook& h) { return h.id == id; });
  if (it == hooks.end()) return false;
  hooks.erase(it);
  return true;
}

void Node::set_retains_grad(uint32_t input_nr, std::weak_ptr<TensorImpl> tensor) {
  auto& retains = extras().retains;
  for (auto& r : retains)
    if (r.first == input_nr) return;
  retains.emplace_back(input_nr, std::move(tensor));
}

void Node::remove_retains_grad(uint32_t input_nr) {
  if (!extras_) return;
  auto& retains = extras_->retains;
  retains.erase(std::remove_if(retains.begin(), retains.end(),
                               [&](const auto& r) { return r.first == input_nr; }),
                retains.end());
}

void Node::run_pre_hooks(variable_list& grads) {
  if (!extras_) return;
  for (auto& h : extras_->pre_hooks) {
    if (h.input_nr >= grads.size() || !grads[h.input_nr].defined()) continue;
    Tensor r = h.fn(grads[h.input_nr]);
    if (r.defined()) grads[h.input_nr] = std::move(r);
  }
  for (auto& [nr, weak] : extras_->retains) {
    auto impl = weak.lock();
    if (!impl || nr >= grads.size() || !grads[nr].defined()) continue;
    // Like LibTorch, a retained non-leaf gradient accumulates across backward calls.
    Tensor& g = impl->ensure_autograd_meta().grad;
    if (!g.defined())
      g = detail::grad_arithmetic().clone(grads[nr]);
    else
      g = detail::grad_arithmetic().add(g, grads[nr]);
  }
}

}  // namespace nabla::autograd
