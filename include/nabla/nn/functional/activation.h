#pragma once
// F::relu/gelu/softmax/... with their FuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/activation.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
