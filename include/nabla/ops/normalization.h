#pragma once
// batch_norm, layer_norm, group_norm (at:: signatures).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
