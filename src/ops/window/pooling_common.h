#pragma once
// What the pooling files share (window/pooling.cpp: the 1-d and 2-d ops; window/pooling_3d.cpp: the
// 3-d ops; window/unpooling.cpp: max unpooling and fractional max pooling): PyTorch's output length
// of a window, the expansion of a size argument, and max pooling's backward.
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::ops {

/// PyTorch's pooling_output_shape: windows of k (dilated by d) at stride s over in + 2 pad
/// positions; with ceil_mode a last partial window that starts inside the input (or its
/// left padding) counts.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode);

/// A size argument (`what`) of a `dims`-d op given as one value or `dims` values, as
/// `dims` values; an empty list is `fallback` (stride's default: the kernel size). A
/// nabla::Error naming `op` for any other length.
std::vector<int64_t> expand_size(const char* op, const char* what, IntArrayRef v, size_t dims,
                                 IntArrayRef fallback = {});

/// Adaptive average pooling of n positions to `out` as a matrix [out, n]: row i averages
/// positions [floor(i n / out), ceil((i + 1) n / out)); in like's dtype, on its device.
Tensor averaging_matrix(int64_t out, int64_t n, const Tensor& like);

/// The max pooling ops whose backward sends each output's gradient to its arg-max, with
/// LibTorch's node names.
enum class MaxPoolNode {
  MaxPool2d,            // MaxPool2DWithIndicesBackward0
  AdaptiveMaxPool2d,    // AdaptiveMaxPool2DBackward0
  MaxPool3d,            // MaxPool3DWithIndicesBackward0
  AdaptiveMaxPool3d,    // AdaptiveMaxPool3DBackward0
  FractionalMaxPool2d,  // FractionalMaxPool2DBackward0
  FractionalMaxPool3d,  // FractionalMaxPool3DBackward0
};

/// Records `kind`'s node when input requires grad: out [..., o_1..o_k] takes its values
/// from input [..., i_1..i_k] at `indices` (int64, out's shape), flat positions in each
/// plane of input's last `spatial` (k) dims. The gradient is assigned to a new tensor:
/// zeros, plus each output's gradient at its index (indices that repeat add up).
void record_max_pool(MaxPoolNode kind, const Tensor& input, const Tensor& out,
                     const Tensor& indices, int64_t spatial);

}  // namespace nabla::ops
