// F:: activations: unpack the options and call the at::-style ops (nabla/ops).
#include "nabla/nn/functional/activation.h"

#include "nabla/ops/factories.h"

namespace nabla::nn::functional {

Tensor elu(Tensor input, const ELUFuncOptions& o) {
  return o.inplace() ? nabla::elu_(input, o.alpha()) : nabla::elu(input, o.alpha());
}
Tensor selu(Tensor input, const SELUFuncOptions& o) {
  return o.inplace() ? nabla::selu_(input) : nabla::selu(input);
}
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& o) {
  return nabla::hardshrink(input, o.lambda());
}
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& o) {
  return o.inplace() ? nabla::hardtanh_(input, o.min_val(), o.max_val())
                     : nabla::hardtanh(input, o.min_val(), o.max_val());
}
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& o) {
  return o.inplace() ? nabla::leaky_relu_(input, o.negative_slope())
                     : nabla::leaky_relu(input, o.negative_slope());
}
Tensor logsigmoid(const Tensor& input) { return nabla::log_sigmoid(input); }

Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& o) {
  NABLA_CHECK(o.tau() > 0, "gumbel_softmax: tau must be positive, got ", o.tau());
  // Gumbel(0, 1) noise -log(-log(u)); u is kept away from 0 and 1 so both logs are finite.
  Tensor u = rand_like(logits, TensorOptions(logits.scalar_type())).clamp(1e-10, 1.0 - 1e-7);
  Tensor gumbels = -(-u.log()).log();
  Tensor y_soft = nabla::softmax((logits + gumbels) / o.tau(), o.dim());
  if (!o.hard()) return y_soft;
  // Straight-through: the forward value is one-hot, the gradient is y_soft's.
  Tensor index = std::get<1>(y_soft.max(o.dim(), true));
  Tensor y_hard =
      zeros_like(logits, TensorOptions(y_soft.scalar_type())).scatter(o.dim(), index, 1.0);
  return y_hard - y_soft.detach() + y_soft;
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& o) {
  return nabla::softmax(input, o.dim(), o.dtype());
}
Tensor softmin(const Tensor& input, const SoftminFuncOptions& o) {
  return nabla::softmin(input, o.dim(), o.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& o) {
  return nabla::log_softmax(input, o.dim(), o.dtype());
}
Tensor glu(const Tensor& input, const GLUFuncOptions& o) { return nabla::glu(input, o.dim()); }
Tensor gelu(const Tensor& input, const GELUFuncOptions& o) {
  return nabla::gelu(input, o.approximate());
}
Tensor silu(const Tensor& input) { return nabla::silu(input); }
Tensor mish(const Tensor& input) { return nabla::mish(input); }
Tensor prelu(const Tensor& input, const Tensor& weight) { return nabla::prelu(input, weight); }
Tensor relu(Tensor input, const ReLUFuncOptions& o) {
  return o.inplace() ? nabla::relu_(input) : nabla::relu(input);
}
Tensor relu6(Tensor input, const ReLU6FuncOptions& o) {
  return o.inplace() ? nabla::relu6_(input) : nabla::relu6(input);
}
Tensor rrelu(Tensor input, const RReLUFuncOptions& o) {
  return o.inplace() ? nabla::rrelu_(input, o.lower(), o.upper(), o.training())
                     : nabla::rrelu(input, o.lower(), o.upper(), o.training());
}
Tensor celu(Tensor input, const CELUFuncOptions& o) {
  return o.inplace() ? nabla::celu_(input, o.alpha()) : nabla::celu(input, o.alpha());
}
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& o) {
  return nabla::softplus(input, o.beta(), o.threshold());
}
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& o) {
  return nabla::softshrink(input, o.lambda());
}
Tensor softsign(const Tensor& input) { return nabla::softsign(input); }
Tensor tanhshrink(const Tensor& input) { return nabla::tanhshrink(input); }
Tensor threshold(Tensor input, const ThresholdFuncOptions& o) {
  return o.inplace() ? nabla::threshold_(input, o.threshold(), o.value())
                     : nabla::threshold(input, o.threshold(), o.value());
}

}  // namespace nabla::nn::functional
