#pragma once
// Pointwise (1x1, stride 1, no padding, one group) float32 convolutions on large images
// as matrix products per sample, in NCHW order with no reorder: y[n] = W [O, C] @ x[n]
// [C, H W]. oneDNN's blocked kernels pay a reorder of every activation at these layers
// (70 GFLOP/s against 110 for the products at 32x256x56x56 -> 64, bench/RESULTS.md); on
// small images they win, so those stay with them (Note [Convolution algorithm] chooses).
#include <cstdint>

namespace nabla::cpu::pointwise {

/// A pointwise convolution of n samples: input [n, c, hw], weight [o, c], output [n, o, hw].
struct Shape {
  int64_t n, c, o, hw;
};

/// y = conv(x, w) + b (b may be null); contiguous float32.
void forward(const Shape& s, const float* x, const float* w, const float* b, float* y);

/// The gradients for gy; a null destination is not computed (assigned, not accumulated).
/// The weight gradient sums per-part partial products in a fixed order, so it does not
/// depend on which thread took which samples.
void backward(const Shape& s, const float* x, const float* w, const float* gy, float* gx, float* gw,
              float* gb);

}  // namespace nabla::cpu::pointwise
