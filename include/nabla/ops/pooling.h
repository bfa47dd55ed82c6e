#pragma once
// Pooling with at::'s signatures. max pooling picks its window maxima from im2col of the
// (-inf padded) input and gathers them, so gradients flow to the arg-max positions (and
// second derivatives through the gather); avg pooling sums im2col windows and divides by
// PyTorch's divisor; adaptive average pooling is two averaging matrices.
#include <tuple>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"

namespace nabla {

/// input [N, C, H, W] or [C, H, W]; stride defaults to kernel_size (empty list).
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
/// (values, int64 indices into each H*W plane), as at::max_pool2d_with_indices.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  optional<int64_t> divisor_override = nullopt);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
/// (values, indices) of the maximum of each adaptive window.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);

}  // namespace nabla
