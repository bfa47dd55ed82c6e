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
#include "ops/op_utils.h"

namespace nabla {

#define NABLA_OP(name, result, ...)          \
  NABLA_OP_DEFINE(name, result, __VA_ARGS__) \
  NABLA_VARIANTS_DEFINE(name, result, __VA_ARGS__)
#define NABLA_METHOD_OP(name, result, ...) \
  NABLA_OP(name, result, __VA_ARGS__)      \
  NABLA_METHOD_DEFINE(name, result, __VA_ARGS__)
#include "nabla/ops/schema/all.def"
#undef NABLA_OP
#undef NABLA_METHOD_OP
#define NABLA_OP NABLA_FACTORY_DEFINE
#include "nabla/ops/schema/factories.def"
#undef NABLA_OP

}  // namespace nabla
