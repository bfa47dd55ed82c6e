#pragma once
// F::linear and F::bilinear (torch::nn::functional), and the at::bilinear kernel:
//   y = x1^T W x2 + b with W [out, in1, in2], over any leading dims.
#include "nabla/core/tensor.h"

namespace nabla {
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {});
}  // namespace nabla

namespace nabla::nn::functional {
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {});
}  // namespace nabla::nn::functional
