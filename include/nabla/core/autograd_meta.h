#pragma once
// AutogradMeta: the autograd state of one tensor (docs/tensors.md). A leaf has no grad_fn;
// a leaf that requires grad gets one AccumulateGrad node (cached weakly here). A non-leaf
// has grad_fn and output_nr: which output of its forward op it is.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nabla/core/object_pool.h"
#include "nabla/core/tensor.h"

namespace nabla::autograd {

class Node;

/// How a view may take part in in-place ops (Note [Views and in-place], shape/views_backward.h).
enum class ViewCreation : uint8_t {
  kDefault,        // in-place writes rewrite the base's history (CopySlices)
  kNoGradMode,     // made under no_grad from a base that requires grad: writes with grad refused
  kInferenceMode,  // the same, made in InferenceMode
  kMultiOutput,    // one of several views of one node (split, unbind): writes with grad refused
};

// Note [Releasing a tensor's history]
// A tensor's grad_fn may head a chain of a million nodes; autograd's release_node frees
// such a chain without recursion. Core destroys AutogradMeta (with its TensorImpl) but
// calls nothing of autograd's (the layers link in order, docs/architecture.md): the
// destructor hands grad_fn to the function in `node_releaser`, which Node's constructor
// installs (there is no grad_fn to release before a Node exists).
using NodeReleaser = void (*)(std::shared_ptr<Node>&&);
extern std::atomic<NodeReleaser> node_releaser;

struct AutogradMeta {
  AutogradMeta() = default;
  ~AutogradMeta();
  static void* operator new(size_t n) { return ::nabla::detail::pool_alloc(n); }
  static void operator delete(void* p, size_t n) { ::nabla::detail::pool_free(p, n); }
  bool requires_grad = false;  // for leaves; a non-leaf requires grad iff it has a grad_fn
  bool retains_grad = false;
  uint32_t output_nr = 0;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  // A leaf's tensor hooks live here, not on its AccumulateGrad node, which exists only
  // while some graph uses the leaf. AccumulateGrad runs them before accumulating.
  std::vector<std::pair<unsigned, std::function<Tensor(const Tensor&)>>> hooks;
  // Run by AccumulateGrad after it has added into .grad() (distributed's gradient buckets).
  std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  std::mutex mutex;  // guards grad_accumulator creation and `views`

  // Note [Views and in-place] (src/ops/shape/views_backward.h). On a view made while grad mode
  // was on: its root base. On a base: weak handles to its live views, whose histories
  // are rebuilt when an in-place op rewrites the base's.
  Tensor view_base;
  ViewCreation view_creation = ViewCreation::kDefault;
  // For a view made under no_grad or InferenceMode: the storage's version when it was
  // made. A later write (to the base or another view) leaves its history stale, which
  // grad_fn() then refuses when the base requires grad, as LibTorch does.
  uint32_t view_version = 0;
  // For a view made by a custom op without a derivative (nabla/ops/library.h): why its
  // history cannot be rebuilt. Writing the view with grad, or reading its grad_fn after
  // its storage changed while its base requires grad, raises this message. Such a view
  // is not registered with its base (LibTorch's base is not aware of it either).
  std::shared_ptr<const std::string> view_func_error;
  std::vector<std::weak_ptr<TensorImpl>> views;
};

/// Removes the hook with handle `id` from one of a leaf's hook lists; whether it was there.
template <class Hooks>
bool erase_hook(Hooks& hooks, unsigned id) {
  for (auto it = hooks.begin(); it != hooks.end(); ++it)
    if (it->first == id) {
      hooks.erase(it);
      return true;
    }
  return false;
}

}  // namespace nabla::autograd
