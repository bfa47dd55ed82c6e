#pragma once
// Launchers of the elementwise CUDA kernels (elementwise.cu): copy/convert, fill, where,
// scale, and the unary and binary kernels of the op lists.
#include <cuda_runtime_api.h>

#include "backend/cuda/device_args.h"

namespace nabla::cuda_kernels {

/// plan: {dst, src}; converts src's dtype to dst's (any of the eight dtypes).
cudaError_t launch_copy(const ElementwisePlan<2>& plan, ScalarType dst, ScalarType src, Stream s);
/// Every element of plan's operand 0 (element_size bytes each) = the bytes of `bits`.
cudaError_t launch_fill(const ElementwisePlan<1>& plan, int element_size, uint64_t bits, Stream s);
/// plan: {out, cond, a, b}; cond bool, the others element_size bytes.
cudaError_t launch_where(const ElementwisePlan<4>& plan, int element_size, Stream s);
/// plan: {out, in}; out = op(in) for in's dtype (out bool for the predicates and
/// logical_not, else in's dtype).
cudaError_t launch_unary(UnaryOp op, const ElementwisePlan<2>& plan, ScalarType in, UnaryParams p,
                         Stream s);
/// plan: {out, a, b}; out = op(a, b) for a's dtype; alpha as a double and as an integer
/// (the Add/Sub multiplier, LeakyReluBackward's slope).
cudaError_t launch_binary(BinaryOp op, const ElementwisePlan<3>& plan, ScalarType in, double alpha,
                          int64_t alpha_int, Stream s);

}  // namespace nabla::cuda_kernels
