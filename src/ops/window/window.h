#pragma once
// The window ops beneath convolution and pooling (window.cpp), over a WindowGeometry:
// im2col cuts an image into its windows' columns, col2im sums columns back into an image.
// They are adjoint linear maps, each recorded with the other as its backward
// (Im2ColBackward0 / Col2ImBackward0), so formulas built on them have every derivative.
#include <array>

#include "nabla/backend/backend.h"
#include "nabla/core/tensor.h"

namespace nabla::ops {

/// A window parameter (`what`: kernel_size, stride, padding, dilation, output_size) of a
/// `dims`-d op, given as one value or one per spatial dim, as a pair ({v, 0} when dims is
/// 1); a nabla::Error naming `op` when it has neither 1 nor `dims` values.
std::array<int64_t, 2> window_pair(const char* op, const char* what, IntArrayRef v,
                                   size_t dims = 2);

/// The geometry of windows of `kernel_size` over an h x w image (each list 1 or 2 values),
/// its positions (oh, ow) computed; a nabla::Error naming `op` when a value is out of range
/// or the (dilated) kernel does not fit the padded image.
WindowGeometry window_geometry(const char* op, int64_t h, int64_t w, IntArrayRef kernel_size,
                               IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);

/// image [B, C, g.h, g.w] -> cols [B, C * kh * kw, g.oh * g.ow] (zeros outside the image).
Tensor im2col(const Tensor& image, const WindowGeometry& g);
/// cols [B, C * kh * kw, g.oh * g.ow] -> image [B, C, g.h, g.w] (entries outside dropped).
Tensor col2im(const Tensor& cols, const WindowGeometry& g);

/// The columns of a whole batch as one matrix, batch inner: image [N, C, h, w] ->
/// [C * kh * kw, N * L], so a convolution is one gemm with the weight, not N small ones.
Tensor im2col_batch_inner(const Tensor& image, const WindowGeometry& g);
/// The adjoint: cols [C * kh * kw, N * L] -> [N, C, h, w].
Tensor col2im_batch_inner(const Tensor& cols, int64_t batch, const WindowGeometry& g);

}  // namespace nabla::ops
