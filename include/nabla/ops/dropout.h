#pragma once
// dropout, dropout2d (feature_dropout) with the global generator.
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
