#pragma once
// AutogradMeta: the autograd state of one tensor (SPEC.md §3.2). A leaf has no grad_fn;
// a leaf that requires grad gets one AccumulateGrad node (cached weakly here). A non-leaf
// has grad_fn and output_nr: which output of its forward op it is.
#include <memory>
#include <mutex>

#include "nabla/core/tensor.h"

namespace nabla::autograd {

class Node;

struct AutogradMeta {
  AutogradMeta() = default;
  ~AutogradMeta();
  bool requires_grad = false;  // for leaves; a non-leaf requires grad iff it has a grad_fn
  bool retains_grad = false;
  uint32_t output_nr = 0;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  std::mutex mutex;  // guards grad_accumulator creation
};

}  // namespace nabla::autograd
