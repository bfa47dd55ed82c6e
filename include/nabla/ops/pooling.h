#pragma once
// max_pool2d (with indices), avg_pool2d, adaptive_avg_pool2d (at:: signatures).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
