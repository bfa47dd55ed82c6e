#pragma once
// Pooling with at::'s signatures and nodes (MaxPool2DWithIndicesBackward0,
// AvgPool2DBackward0, AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0 and their 3-d
// counterparts; the 1-d forms are the 2-d ones over a height of 1, squeezed). Max pooling's
// gradient goes to each window's arg-max; avg pooling sums im2col windows over PyTorch's divisor;
// adaptive average pooling is two averaging matrices. Backward formulas are differentiable.
#include <tuple>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// Max, average and adaptive pooling in 1, 2 and 3 dims; unpooling and fractional max
// pooling (the rows, with their arguments: nabla/ops/schema/pooling.def). input [N, C, H, W]
// or [C, H, W] for 2-d; stride defaults to kernel_size (an empty list).
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/pooling.def"
#undef NABLA_OP

}  // namespace nabla
