#pragma once
// Internal window ops for the convolution fast path: the columns of a whole batch as
// one [C * kh * kw, N * L] matrix (batch inner), so a convolution is a single gemm with
// the weight instead of N small ones. Differentiable, each the other's backward.
#include "nabla/core/tensor.h"

namespace nabla::ops {

Tensor im2col_batch_inner(const Tensor& x, IntArrayRef kernel_size, IntArrayRef dilation,
                          IntArrayRef padding, IntArrayRef stride);
/// cols [C * kh * kw, N * L] -> [N, C, output_size...].
Tensor col2im_batch_inner(const Tensor& cols, int64_t batch, IntArrayRef output_size,
                          IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                          IntArrayRef stride);

}  // namespace nabla::ops
