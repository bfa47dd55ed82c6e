#pragma once
// Launchers of the sliding-window kernels (window.cu): im2col, col2im, max pooling and its
// backward. Images are contiguous [planes = B * C, h, w]; `dtype` is the element type of
// every data pointer.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// cols[b, (c, i, j), (y, x)] at cols + b * s0 + (c kh kw + i kw + j) * s1 + y ow + x (strides
/// in elements) from image [batch, channels, h, w]; zeros for positions in the padding.
/// Float or double.
cudaError_t launch_im2col(ScalarType dtype, void* cols, int64_t s0, int64_t s1, const void* image,
                          int64_t batch, int64_t channels, const WindowGeometry& g, Stream stream);

/// The adjoint of launch_im2col: each image element assigned the sum of its cols entries.
cudaError_t launch_col2im(ScalarType dtype, void* image, const void* cols, int64_t s0, int64_t s1,
                          int64_t batch, int64_t channels, const WindowGeometry& g, Stream stream);

/// values and indices [planes, oh, ow] (contiguous) of max pooling over image [planes, h, w].
/// Float, double, int64 or uint8.
cudaError_t launch_max_pool2d(ScalarType dtype, void* values, int64_t* indices, const void* image,
                              int64_t planes, const WindowGeometry& g, Stream stream);

/// grad_image [image_numel / plane, plane] = zeros plus grad_out[p, j] added at
/// indices[p, j] for grad_out and indices [out_numel / out, out] (all contiguous). Float or
/// double.
cudaError_t launch_max_pool2d_backward(ScalarType dtype, void* grad_image, int64_t image_numel,
                                       int64_t plane, const void* grad_out, const int64_t* indices,
                                       int64_t out_numel, int64_t out, Stream stream);

}  // namespace nabla::cuda_kernels
