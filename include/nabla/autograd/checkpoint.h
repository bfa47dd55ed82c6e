#pragma once
// Activation checkpointing (docs/autograd.md): run `fn` without recording its
// intermediate activations and recompute them during backward. Same gradients, less
// peak memory. The default generator's position is restored for the recomputation, so
// random ops inside fn (dropout) draw the same numbers twice.
#include <functional>

#include "nabla/autograd/node.h"

namespace nabla::utils {

using autograd::variable_list;

variable_list checkpoint(const std::function<variable_list(const variable_list&)>& fn,
                         const variable_list& inputs);
Tensor checkpoint(const std::function<Tensor(const variable_list&)>& fn,
                  const variable_list& inputs);

}  // namespace nabla::utils
