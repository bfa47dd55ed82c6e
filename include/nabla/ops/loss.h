#pragma once
// Losses with at::Reduction: mse, l1, smooth_l1, huber, nll, cross_entropy, bce, kl_div...
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
