#include "nabla/core/autograd_meta.h"

#include "nabla/autograd/node.h"

namespace nabla::autograd {

// Hands the graph to release_node so a long chain is freed without recursion.
AutogradMeta::~AutogradMeta() { release_node(std::move(grad_fn)); }

}  // namespace nabla::autograd
