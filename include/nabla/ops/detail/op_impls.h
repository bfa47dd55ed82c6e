#pragma once
// The hand-written implementations of the ops declared by schema rows (Note [Op schemas],
// nabla/ops/schema.h): for a row NABLA_OP(conv2d, Tensor, IN(input), ...), the function
// `Tensor ops::conv2d_impl(const Tensor& input, ...)` that the public conv2d calls when
// it is not being traced. An op's file defines its _impl; a signature that drifts from
// the row does not compile.
#include <string_view>
#include <tuple>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla::ops {

#define NABLA_OP NABLA_OP_DECLARE_IMPL
#define NABLA_METHOD_OP NABLA_OP_DECLARE_IMPL
#include "nabla/ops/schema/all.def"
#include "nabla/ops/schema/factories.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP

}  // namespace nabla::ops
