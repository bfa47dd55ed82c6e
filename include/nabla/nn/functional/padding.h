#pragma once
// F::pad with PadFuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/padding.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
