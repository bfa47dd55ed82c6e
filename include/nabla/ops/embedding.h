#pragma once
// embedding (padding_idx), embedding_bag-free.
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
