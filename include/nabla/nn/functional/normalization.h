#pragma once
// F::batch_norm/layer_norm/group_norm/normalize with their FuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/normalization.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
