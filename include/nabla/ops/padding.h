#pragma once
// reflection_pad / replication_pad (constant_pad_nd is in functions.h).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
