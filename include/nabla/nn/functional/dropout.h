#pragma once
// F::dropout, F::dropout2d, F::dropout3d, F::alpha_dropout, F::feature_alpha_dropout,
// as torch::nn::functional:
//   F::dropout(x, F::DropoutFuncOptions().p(0.3).training(true));
// dropout2d (3d) takes [N, C, H, W] ([N, C, D, H, W]) or an unbatched [C, H, W]
// ([C, D, H, W]) input and zeroes whole channels.
#include "nabla/nn/options/dropout.h"
#include "nabla/ops/dropout.h"

namespace nabla::nn::functional {

Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});

}  // namespace nabla::nn::functional
