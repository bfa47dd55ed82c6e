#pragma once
// F::dropout/dropout2d with DropoutFuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/dropout.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
