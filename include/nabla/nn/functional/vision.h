#pragma once
// F::interpolate with InterpolateFuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/upsample.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
