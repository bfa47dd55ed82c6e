#pragma once
// Reflection, replication and circular padding of the last dims, as at::reflection_pad*d
// / replication_pad*d (constant padding is constant_pad_nd in functions.h). `pad` lists
// (left, right) for the last dim, then (top, bottom) for the one before. Built on
// index_select with computed indices, so gradients (and their gradients) follow.
#include "nabla/core/tensor.h"

namespace nabla {

Tensor reflection_pad1d(const Tensor& input, IntArrayRef pad);
Tensor reflection_pad2d(const Tensor& input, IntArrayRef pad);
Tensor reflection_pad3d(const Tensor& input, IntArrayRef pad);
Tensor replication_pad1d(const Tensor& input, IntArrayRef pad);
Tensor replication_pad2d(const Tensor& input, IntArrayRef pad);
Tensor replication_pad3d(const Tensor& input, IntArrayRef pad);
/// Wraps around (the left pad takes the last elements).
Tensor circular_pad(const Tensor& input, IntArrayRef pad);

}  // namespace nabla
