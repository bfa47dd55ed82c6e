#pragma once
// F::relu/gelu/softmax/... with their FuncOptions, as torch::nn::functional:
//   F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2));
//   F::softmax(x, F::SoftmaxFuncOptions(1));
// `inplace(true)` options write into the input and return it.
#include "nabla/nn/enum.h"
#include "nabla/nn/options/activation.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/options/expanding_array.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::functional {

Tensor elu(Tensor input, const ELUFuncOptions& options = {});
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
Tensor logsigmoid(const Tensor& input);
/// Samples from the Gumbel-softmax distribution over `dim` (default generator).
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor silu(const Tensor& input);
Tensor mish(const Tensor& input);
Tensor prelu(const Tensor& input, const Tensor& weight);
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor softsign(const Tensor& input);
Tensor tanhshrink(const Tensor& input);
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);

}  // namespace nabla::nn::functional
