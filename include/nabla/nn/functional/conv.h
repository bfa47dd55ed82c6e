#pragma once
// F::conv1d/conv2d/conv_transpose2d with ConvFuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/convolution.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
