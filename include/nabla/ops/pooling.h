#pragma once
// Pooling with at::'s signatures and nodes (MaxPool2DWithIndicesBackward0,
// AvgPool2DBackward0, AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0; the 1-d
// forms are the 2-d ones over a height of 1, squeezed). Max pooling's gradient goes to
// each window's arg-max; avg pooling sums im2col windows over PyTorch's divisor; adaptive
// average pooling is two averaging matrices. Backward formulas are differentiable.
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
