#pragma once
// conv1d, conv2d, conv_transpose2d (at::conv2d's signatures).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
