#pragma once
// batch_norm, layer_norm, group_norm, instance_norm (at:: signatures). Statistics come
// from one backend kernel (KernelBackend::moments, two passes in double), the normalization
// from one affine pass; the backward formulas are written with differentiable ops, so
// double backward works (they recompute the statistics from the input under
// create_graph, where those depend on it).
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// The rows, with their documentation: nabla/ops/schema/normalization.def.
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/normalization.def"
#undef NABLA_OP

}  // namespace nabla
