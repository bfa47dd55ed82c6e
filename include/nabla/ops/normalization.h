#pragma once
// batch_norm, layer_norm, group_norm, instance_norm (at:: signatures). Statistics come
// from one backend kernel (KernelBackend::moments, two passes in double), the normalization
// from one affine pass; the backward formulas are written with differentiable ops, so
// double backward works (they recompute the statistics from the input under
// create_graph, where those depend on it).
#include "nabla/core/tensor.h"

namespace nabla {

/// input [N, C, *] (at least 2 dims); weight, bias, running_mean, running_var [C] or
/// undefined. training: normalizes with the batch statistics over (N, *), and updates
/// the running stats in place when given: r = (1 - momentum) r + momentum s, with the
/// unbiased variance for running_var. Otherwise normalizes with the running stats (then
/// required). grad_fn NativeBatchNormBackward0.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled = true);
/// Normalizes over the trailing dims `normalized_shape` (which must match input's last
/// dims); weight and bias have that shape. grad_fn NativeLayerNormBackward0.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-05, bool cudnn_enable = true);
/// input [N, C, *], C divisible by num_groups; statistics per (sample, group of C /
/// num_groups channels); weight and bias [C]. grad_fn NativeGroupNormBackward0.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-05, bool cudnn_enabled = true);
/// batch_norm of each (sample, channel) on its own (input [N, C, *]); running stats [C]
/// are updated with the mean over the batch of the per-instance statistics.
Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled = true);

}  // namespace nabla
