#pragma once
// Pooling with at::'s signatures and nodes (MaxPool2DWithIndicesBackward0,
// AvgPool2DBackward0, AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0 and their 3-d
// counterparts; the 1-d forms are the 2-d ones over a height of 1, squeezed). Max pooling's
// gradient goes to each window's arg-max; avg pooling sums im2col windows over PyTorch's divisor;
// adaptive average pooling is two averaging matrices. Backward formulas are differentiable.
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
/// input [N, C, L] or [C, L]: (values, int64 positions along L).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);

// ---- 3-d pooling (src/ops/window/pooling_3d.cpp) ------------------------------------------------
// input [N, C, D, H, W] or [C, D, H, W]; a size is one value or one per dim (D, H, W).

/// Max pooling as at::max_pool3d; indices are flat positions in each D*H*W volume
/// (MaxPool3DWithIndicesBackward0: the gradient goes to each window's arg-max).
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
/// Average pooling with PyTorch's divisors (AvgPool3DBackward0).
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  optional<int64_t> divisor_override = nullopt);
/// Window i of n positions pooled to `out` covers [floor(i n / out), ceil((i + 1) n / out)).
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size);
/// (values, indices into each D*H*W volume).
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& input, IntArrayRef output_size);

// ---- Unpooling and fractional max pooling (src/ops/window/unpooling.cpp) ------------------------

/// Inverse of max pooling: out [..., oH, oW] (output_size {oH, oW}) is zero except at
/// indices (flat positions in each oH*oW plane, as max_pool2d_with_indices gives), which take
/// self's values. self and indices are [N, C, H, W] or [C, H, W] (MaxUnpool2DBackward0:
/// grad_self = the gradient gathered at indices). An index outside the plane is an error.
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
/// The 3-d form ([N, C, D, H, W] or [C, D, H, W]); stride and padding are only checked.
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                    IntArrayRef stride, IntArrayRef padding);
/// Fractional max pooling (Graham, 2014) as at::fractional_max_pool2d: input [N, C, H, W] or
/// [C, H, W]; random_samples [N, C, 2] (N = 1 unbatched) in [0, 1) place each plane's
/// windows of kernel_size ({W's sample, H's sample}); (values, indices into each H*W plane).
std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& input, IntArrayRef kernel_size,
                                                 IntArrayRef output_size,
                                                 const Tensor& random_samples);
/// The 3-d form: random_samples [N, C, 3] ({D's, H's, W's sample}).
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& input, IntArrayRef kernel_size,
                                                 IntArrayRef output_size,
                                                 const Tensor& random_samples);

}  // namespace nabla
