#pragma once
// float32 2-D convolutions through oneDNN's primitives (Debian's libdnnl-dev, optional at
// build time): forward, backward-data and backward-weights on the blocked layouts oneDNN
// picks for this CPU (it dispatches on cpuid features, as nabla's own kernels), with
// reorders from and to nabla's NCHW / OIHW tensors. Primitives are created once per
// shape and cached. Without oneDNN (or with NABLA_ISA=scalar) available() is false and
// convolutions take the im2col + nabla GEMM path (ops/window/convolution.cpp).
#include <cstdint>
#include <string>

namespace nabla::cpu::conv {

/// One convolution's geometry: input [n, c, h, w], weight [o, c / groups, kh, kw],
/// output [n, o, oh, ow]; padding is symmetric per dimension.
struct ConvShape {
  int64_t n, c, h, w, o, kh, kw, oh, ow;
  int64_t stride[2], padding[2], dilation[2];
  int64_t groups;
};

/// True when the oneDNN path is built in and enabled for this process.
bool available();

/// y = conv(x, w) + b (b may be null); all pointers to contiguous float32 data. False
/// (nothing written) when oneDNN has no kernel for the shape.
bool forward(const ConvShape& s, const float* x, const float* w, const float* b, float* y);

/// Gradients of forward for the output gradient gy; a null destination is not computed.
/// False when oneDNN has no kernel for the shape.
bool backward(const ConvShape& s, const float* x, const float* w, const float* gy, float* gx,
              float* gw, float* gb);

/// "oneDNN 2.6.3, avx512_core_bf16 kernels" or why it is not used, for show_config().
std::string describe();

}  // namespace nabla::cpu::conv
