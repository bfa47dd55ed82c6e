#pragma once
// F::mse_loss/cross_entropy/... with their FuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/loss.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
