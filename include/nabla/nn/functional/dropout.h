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

/// LibTorch's positional forms (F::detail::alpha_dropout(x, p, training, inplace)), which its
/// own code and tests call.
namespace detail {
inline Tensor dropout(Tensor input, double p, bool training, bool inplace) {
  return functional::dropout(std::move(input),
                             DropoutFuncOptions().p(p).training(training).inplace(inplace));
}
inline Tensor alpha_dropout(Tensor input, double p, bool training, bool inplace) {
  return functional::alpha_dropout(
      std::move(input), AlphaDropoutFuncOptions().p(p).training(training).inplace(inplace));
}
inline Tensor feature_alpha_dropout(Tensor input, double p, bool training, bool inplace) {
  return functional::feature_alpha_dropout(
      std::move(input), FeatureAlphaDropoutFuncOptions().p(p).training(training).inplace(inplace));
}
}  // namespace detail

}  // namespace nabla::nn::functional
