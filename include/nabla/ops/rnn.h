#pragma once
// Recurrent cells and multi-layer RNN/LSTM/GRU (at::lstm / at::lstm_cell signatures).
#include "nabla/core/tensor.h"

namespace nabla {

}  // namespace nabla
