#pragma once
// softmax, log_softmax and the activations not in functions.h (hardtanh, relu6, ...).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
