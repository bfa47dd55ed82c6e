// Activation modules: printing, RReLU's mode, PReLU's parameter.
#include "nabla/nn/modules/activation.h"

#include <ostream>

#include "nabla/ops/factories.h"

namespace nabla::nn {

void ReLUImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::ReLU()"; }
void ReLU6Impl::pretty_print(std::ostream& s) const { s << "nabla::nn::ReLU6()"; }
void LeakyReLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::LeakyReLU(negative_slope=" << options.negative_slope() << ")";
}
void ELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::ELU(alpha=" << options.alpha() << ")";
}
void SELUImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::SELU()"; }
void CELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::CELU(alpha=" << options.alpha() << ")";
}
void GELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::GELU(approximate=" << options.approximate() << ")";
}
void GLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::GLU(dim=" << options.dim() << ")";
}
void HardtanhImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
    << ")";
}
void HardshrinkImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Hardshrink(" << options.lambda() << ")";
}
void SoftshrinkImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Softshrink(" << options.lambda() << ")";
}
void SoftplusImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
    << ")";
}
void ThresholdImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value()
    << ")";
}
void SigmoidImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::Sigmoid()"; }
void TanhImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::Tanh()"; }
void SiLUImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::SiLU()"; }
void MishImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::Mish()"; }
void SoftsignImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::Softsign()"; }
void TanhshrinkImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::Tanhshrink()"; }
void LogSigmoidImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::LogSigmoid()"; }
void SoftmaxImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Softmax(dim=" << options.dim() << ")";
}
void SoftminImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Softmin(dim=" << options.dim() << ")";
}
void LogSoftmaxImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::LogSoftmax(dim=" << options.dim() << ")";
}
void RReLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper() << ")";
}

Tensor RReLUImpl::forward(Tensor input) {
  return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                 .lower(options.lower())
                                                 .upper(options.upper())
                                                 .inplace(options.inplace())
                                                 .training(is_training()));
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) { reset(); }

void PReLUImpl::reset() {
  NABLA_CHECK(options.num_parameters() > 0, "PReLU: num_parameters must be positive, got ",
              options.num_parameters());
  weight = register_parameter("weight", full({options.num_parameters()}, options.init()));
}

void PReLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

}  // namespace nabla::nn
