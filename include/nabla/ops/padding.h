#pragma once
// Reflection, replication and circular padding of the last dims, as at::reflection_pad*d
// / replication_pad*d (constant padding is constant_pad_nd in functions.h). `pad` lists
// (left, right) for the last dim, then (top, bottom) for the one before. Built on
// index_select with computed indices, so gradients (and their gradients) follow.
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/padding.def"
#undef NABLA_OP

}  // namespace nabla
