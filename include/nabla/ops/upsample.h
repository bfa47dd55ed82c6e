#pragma once
// Upsampling kernels under F::interpolate, with at::'s signatures. `scales` are the
// scale factors (output / input) when the caller has them; otherwise the ratio of the
// sizes is used, as PyTorch does. Separable: one pass per spatial dim (index_select, or a
// product with a weight matrix for the cubic and antialiased modes), so gradients and
// second derivatives follow.
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// The rows, with their documentation: nabla/ops/schema/upsample.def.
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/upsample.def"
#undef NABLA_OP

/// The at::native spellings of these kernels, which LibTorch's tests call.
namespace native {
using nabla::_upsample_bicubic2d_aa;
using nabla::_upsample_bilinear2d_aa;
using nabla::_upsample_nearest_exact1d;
using nabla::_upsample_nearest_exact2d;
using nabla::upsample_bicubic2d;
}  // namespace native

}  // namespace nabla
