// Activation modules: printing, RReLU's mode, PReLU's parameter.
#include "nabla/nn/modules/activation.h"

#include <ostream>

#include "nabla/ops/factories.h"

namespace nabla::nn {

namespace {
// LibTorch prints inplace only when set.
const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=true" : ""; }
}  // namespace

void ReLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void ReLU6Impl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void LeakyReLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::LeakyReLU(negative_slope=" << options.negative_slope()
    << inplace_suffix(options.inplace()) << ")";
}
void ELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::ELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}
void SELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void CELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::CELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}
void GELUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::GELU(approximate=" << options.approximate() << ")";
}
void GLUImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::GLU(dim=" << options.dim() << ")";
}
void HardtanhImpl::pretty_print(std::ostream& s) const {
  s << "nabla::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
    << inplace_suffix(options.inplace()) << ")";
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
    << inplace_suffix(options.inplace()) << ")";
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
  s << "nabla::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper()
    << inplace_suffix(options.inplace()) << ")";
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

void Softmax2dImpl::pretty_print(std::ostream& s) const { s << "nabla::nn::Softmax2d()"; }

Tensor Softmax2dImpl::forward(const Tensor& input) {
  NABLA_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4),
              "Softmax2d requires a 3D or 4D tensor as input, got ",
              input.defined() ? input.dim() : 0, "D");
  return functional::softmax(input, functional::SoftmaxFuncOptions(-3));
}

}  // namespace nabla::nn
