#pragma once
// Convolutions with at::'s signatures, and the im2col / col2im window ops beneath them
// (also F::unfold / F::fold). Every convolution (1-d, 2-d, 3-d, transposed) records one
// ConvolutionBackward0 node, as LibTorch's (an unbatched input adds the squeeze of the
// batch dim); its backward is the backend's kernel or formulas written with convolutions
// and the window ops, so second derivatives work.
#include <string_view>

#include "nabla/core/tensor.h"

namespace nabla {

/// input [N, C, H, W] (or [C, H, W]) -> [N, C * kh * kw, L], L = window positions.
Tensor im2col(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride);
/// The adjoint: [N, C * kh * kw, L] (or 2-d) -> [N, C, output_size...], overlaps summed.
Tensor col2im(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);

/// input [N, C_in, L] (or unbatched [C_in, L]), weight [C_out, C_in / groups, k].
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);
/// padding "valid" (none) or "same" (output size = input size; stride 1 only).
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = 1, int64_t groups = 1);
/// input [N, C_in, H, W] (or [C_in, H, W]), weight [C_out, C_in / groups, kh, kw].
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = 1, int64_t groups = 1);
/// input [N, C_in, D, H, W] (or [C_in, D, H, W]), weight [C_out, C_in / groups, kd, kh, kw].
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = 1, int64_t groups = 1);
/// weight [C_in, C_out / groups, k...]; output size (in - 1) s - 2 p + d (k - 1) + output_padding
/// + 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);

}  // namespace nabla
