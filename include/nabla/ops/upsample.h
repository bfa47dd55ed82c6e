#pragma once
// upsample_nearest2d / upsample_bilinear2d (the kernels under F::interpolate).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
