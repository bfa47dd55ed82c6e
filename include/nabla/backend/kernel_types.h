#pragma once
// The plain types of the backend contract (kernel_methods.def): the kernel enums generated
// from the op lists, their parameters and the sliding-window geometry. Free of Tensor, so
// device code (the CUDA kernels, compiled by nvcc) can include it.
#include <cstdint>
#include <string>

namespace nabla {

/// The unary kernels, one per op of core/op_list/unary.def (parameters in UnaryParams).
enum class UnaryOp : uint8_t {
#define NABLA_UNARY_OP(name, Kernel, ...) Kernel,
#define NABLA_UNARY_PREDICATE(name, Kernel) Kernel,
#define NABLA_UNARY_OP_ATTRS(name, Kernel, ...) Kernel,
#include "nabla/core/op_list/unary.def"
};

struct UnaryParams {
  double a = 0;
  double b = 0;
};

/// The binary kernels, one per op of core/op_list/binary.def. Add and Sub compute
/// a + alpha * b and a - alpha * b; the *Backward kernels are fused first-order backwards.
enum class BinaryOp : uint8_t {
#define NABLA_BINARY_OP(name, Kernel, ...) Kernel,
#define NABLA_BINARY_KERNEL(name, Kernel, dtype) Kernel,
#include "nabla/core/op_list/binary.def"
};

enum class ReduceOp : uint8_t { Sum, Prod, Max, Min, All, Any };

/// What a failed index range check (the check_index_range entry) says:
/// "<op>: <noun> <value> is out of bounds for <context>".
struct IndexCheck {
  std::string op;       // "gather()", "embedding", "nll_loss"
  std::string noun;     // "index", "target"
  std::string context;  // "dimension 0 with size 5"
};

/// The sliding-window geometry of im2col / col2im (convolution and pooling): a kernel
/// kh x kw with stride, zero padding and dilation over an h x w image, giving oh x ow
/// window positions.
struct WindowGeometry {
  int64_t h, w;    // image
  int64_t kh, kw;  // kernel
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t oh, ow;  // positions: (h + 2 ph - dh (kh - 1) - 1) / sh + 1, likewise ow
};

/// How the attention entries (kernel_methods.def; Note [Fused attention],
/// src/ops/nn/attention.cpp) treat the scores s = scale * q k^T: `causal` masks key j for
/// query i when j > i (top-left aligned, as LibTorch's is_causal), and dropout zeroes each
/// attention weight with probability dropout_p, keeping the weight of (batch b, query i,
/// key j) when the Philox draw at counter offset + (b * L + i) * S + j under `seed` is at
/// least dropout_p (Note [Counter-based random numbers]); the kept ones are scaled by
/// 1 / (1 - dropout_p). A draw is a pure function of its position, so the backward
/// regenerates the forward's mask without storing it.
struct AttentionParams {
  double scale = 1;
  bool causal = false;
  double dropout_p = 0;
  uint64_t seed = 0, offset = 0;
};

}  // namespace nabla
