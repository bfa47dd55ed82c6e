#pragma once
// Convolutions with at::'s signatures, and the im2col / col2im window ops beneath them
// (also F::unfold / F::fold). Every convolution (1-d, 2-d, 3-d, transposed) records one
// ConvolutionBackward0 node, as LibTorch's (an unbatched input adds the squeeze of the
// batch dim); its backward is the backend's kernel or formulas written with convolutions
// and the window ops, so second derivatives work.
#include <string_view>

#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// conv1d, conv2d, conv3d (padding as ints or "same"/"valid") and conv_transpose1d/2d/3d.
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/convolution.def"
#undef NABLA_OP

}  // namespace nabla
