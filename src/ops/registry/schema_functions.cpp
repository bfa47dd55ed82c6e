// The public functions of the ops declared by schema rows (Note [Op schemas],
// nabla/ops/schema.h): each records its call while a tracer is active on the thread, and
// otherwise calls its implementation, ops::<name>_impl; the Tensor methods of the
// NABLA_METHOD_OP rows call their function; the rows' `_out` and in-place forms
// (Variants) call it too.
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/out_functions.h"
#include "nabla/ops/schema.h"
#include "nabla/ops/trace.h"
#include "ops/autocast/autocast_call.h"
#include "ops/op_utils.h"
#include "ops/registry/through_float32.h"

namespace nabla {

#define NABLA_OP(name, result, ...)          \
  NABLA_OP_DEFINE(name, result, __VA_ARGS__) \
  NABLA_VARIANTS_DEFINE(name, result, __VA_ARGS__)
#define NABLA_METHOD_OP(name, result, ...) \
  NABLA_OP(name, result, __VA_ARGS__)      \
  NABLA_METHOD_DEFINE(name, result, __VA_ARGS__)
// The families whose kernels compute 16-bit floats themselves or only move them (Note
// [16-bit compute]).
#include "nabla/core/op_list/binary.def"
#include "nabla/core/op_list/indexing.def"
#include "nabla/core/op_list/math.def"
#include "nabla/core/op_list/reduction.def"
#include "nabla/core/op_list/shape.def"
#include "nabla/core/op_list/views.def"
#include "nabla/ops/schema/activation.def"
#include "nabla/ops/schema/factories_like.def"
#undef NABLA_OP
// The families without 16-bit kernels: a Half or BFloat16 tensor is computed through
// float32 and the results rounded back once.
#define NABLA_OP(name, result, ...)              \
  NABLA_OP_DEFINE_F32(name, result, __VA_ARGS__) \
  NABLA_VARIANTS_DEFINE(name, result, __VA_ARGS__)
#include "nabla/core/op_list/linalg.def"
#include "nabla/ops/schema/convolution.def"
#include "nabla/ops/schema/dropout.def"
#include "nabla/ops/schema/embedding.def"
#include "nabla/ops/schema/loss.def"
#include "nabla/ops/schema/normalization.def"
#include "nabla/ops/schema/padding.def"
#include "nabla/ops/schema/pooling.def"
#include "nabla/ops/schema/sampling.def"
#include "nabla/ops/schema/upsample.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
#define NABLA_OP NABLA_FACTORY_DEFINE
#include "nabla/ops/schema/factories.def"
#undef NABLA_OP

}  // namespace nabla
