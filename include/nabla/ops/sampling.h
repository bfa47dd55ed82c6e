#pragma once
// Distances between rows and sampling at coordinates, with at::'s signatures:
// pdist, affine_grid_generator, grid_sampler. The nn spellings are F::pdist,
// F::affine_grid and F::grid_sample (nabla/nn/functional/{distance,vision}.h).
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

// The rows, with their documentation: nabla/ops/schema/sampling.def.
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/sampling.def"
#undef NABLA_OP

}  // namespace nabla
