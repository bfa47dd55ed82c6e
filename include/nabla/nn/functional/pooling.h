#pragma once
// F::max_pool2d/avg_pool2d/adaptive_avg_pool2d with their FuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/pooling.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
