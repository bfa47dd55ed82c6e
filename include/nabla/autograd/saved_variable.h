#pragma once
// SavedVariable: a tensor kept by a node for its backward.
// It remembers the version counter it saw and refuses to unpack after an in-place write
// (docs/autograd.md). An output of the node itself is saved without its autograd meta,
// so the node does not keep its own output alive (no reference cycle, docs/autograd.md);
// unpacking such a tensor gives it the node back as grad_fn.
#include <any>
#include <functional>
#include <memory>

#include "nabla/autograd/node.h"

namespace nabla::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  /// The saved tensor; `saved_for` is the node that saved it (needed for outputs).
  /// A nabla::Error after release (backward twice) or after an in-place modification.
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const {
    return unpack(saved_for.get());
  }
  /// The same with the saving node by pointer: no reference is taken unless the output
  /// must get its node back (create_graph), which keeps the common unpack free of atomics.
  Tensor unpack(Node* saved_for) const;
  void reset_data();
  bool defined() const { return was_defined_; }

 private:
  // With saved-tensor hooks active at save time, what the hooks need (rare, out of line).
  struct Packed {
    std::any value;
    std::function<Tensor(const std::any&)> unpack_hook;
    std::weak_ptr<StorageImpl> storage_ref;  // to read the version counter
    DimVector shape;                         // for error messages
  };
  std::string describe_saved() const;
  Tensor data_;  // the tensor, or for outputs a plain alias without autograd meta
  std::unique_ptr<Packed> packed_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  ScalarType dtype_ = kFloat;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

/// Saved-tensor hooks (docs/autograd.md): while a guard lives, every tensor saved for
/// backward on this thread is passed to `pack`, and `unpack` restores it in backward.
class SavedTensorHooksGuard {
 public:
  SavedTensorHooksGuard(std::function<std::any(const Tensor&)> pack,
                        std::function<Tensor(const std::any&)> unpack);
  ~SavedTensorHooksGuard();
  SavedTensorHooksGuard(const SavedTensorHooksGuard&) = delete;
  SavedTensorHooksGuard& operator=(const SavedTensorHooksGuard&) = delete;

 private:
  void* prev_;
};

}  // namespace nabla::autograd
