#pragma once
// F::embedding with EmbeddingFuncOptions.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/embedding.h"

namespace nabla::nn::functional {

}  // namespace nabla::nn::functional
