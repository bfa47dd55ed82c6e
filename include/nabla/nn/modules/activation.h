#pragma once
// Activation modules (torch::nn::ReLU, LeakyReLU, GELU, Softmax, PReLU, ...): each holds
// its options (nabla/nn/options/activation.h) and calls the F:: function; PReLU owns a
// learnable weight. Softmax/Softmin/LogSoftmax take the dim, RReLU samples only in
// training mode.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/activation.h"

namespace nabla::nn {

namespace detail {
/// What an activation's options must satisfy, checked by reset() (so at construction, and
/// again when options changed since, as LibTorch's reset).
template <class Options>
void check_activation_options(const Options&) {}
inline void check_activation_options(const HardtanhOptions& o) {
  NABLA_CHECK(o.max_val() > o.min_val(), "Hardtanh: max_val must be greater than min_val, got ",
              "min_val=", o.min_val(), " and max_val=", o.max_val());
}
}  // namespace detail

/// An activation configured by options (`Name(NameOptions().x(...))`).
#define NABLA_ACTIVATION(Name, Options, call)                                            \
  class Name##Impl : public Cloneable<Name##Impl> {                                      \
   public:                                                                               \
    explicit Name##Impl(const Options& options = {}) : options(options) { reset(); }     \
    void reset() override { detail::check_activation_options(options); }                 \
    void pretty_print(std::ostream& stream) const override;                              \
    Tensor forward(Tensor input) { return functional::call(std::move(input), options); } \
    Options options;                                                                     \
  };                                                                                     \
  NABLA_MODULE(Name)

/// An activation without options.
#define NABLA_PLAIN_ACTIVATION(Name, expr)                  \
  class Name##Impl : public Cloneable<Name##Impl> {         \
   public:                                                  \
    void reset() override {}                                \
    void pretty_print(std::ostream& stream) const override; \
    Tensor forward(const Tensor& input) { return expr; }    \
  };                                                        \
  NABLA_MODULE(Name)

NABLA_ACTIVATION(ReLU, ReLUOptions, relu);
NABLA_ACTIVATION(ReLU6, ReLU6Options, relu6);
NABLA_ACTIVATION(LeakyReLU, LeakyReLUOptions, leaky_relu);
NABLA_ACTIVATION(ELU, ELUOptions, elu);
NABLA_ACTIVATION(SELU, SELUOptions, selu);
NABLA_ACTIVATION(CELU, CELUOptions, celu);
NABLA_ACTIVATION(GELU, GELUOptions, gelu);
NABLA_ACTIVATION(GLU, GLUOptions, glu);
NABLA_ACTIVATION(Hardtanh, HardtanhOptions, hardtanh);
NABLA_ACTIVATION(Hardshrink, HardshrinkOptions, hardshrink);
NABLA_ACTIVATION(Softshrink, SoftshrinkOptions, softshrink);
NABLA_ACTIVATION(Softplus, SoftplusOptions, softplus);
NABLA_PLAIN_ACTIVATION(Sigmoid, input.sigmoid());
NABLA_PLAIN_ACTIVATION(Tanh, input.tanh());
NABLA_PLAIN_ACTIVATION(SiLU, functional::silu(input));
NABLA_PLAIN_ACTIVATION(Mish, functional::mish(input));
NABLA_PLAIN_ACTIVATION(Softsign, functional::softsign(input));
NABLA_PLAIN_ACTIVATION(Tanhshrink, functional::tanhshrink(input));
NABLA_PLAIN_ACTIVATION(LogSigmoid, functional::logsigmoid(input));
#undef NABLA_ACTIVATION
#undef NABLA_PLAIN_ACTIVATION

class ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value) : options(threshold, value) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input) { return functional::threshold(std::move(input), options); }
  ThresholdOptions options;
};
NABLA_MODULE(Threshold);

class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input.softmax(options.dim()); }
  SoftmaxOptions options;
};
NABLA_MODULE(Softmax);

class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return (-input).softmax(options.dim()); }
  SoftminOptions options;
};
NABLA_MODULE(Softmin);

class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : options(dim) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input.log_softmax(options.dim()); }
  LogSoftmaxOptions options;
};
NABLA_MODULE(LogSoftmax);

class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  RReLUOptions options;
};
NABLA_MODULE(RReLU);

/// max(0, x) + weight * min(0, x); weight [num_parameters] initialised to `init`.
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::prelu(input, weight); }
  PReLUOptions options;
  Tensor weight;
};
NABLA_MODULE(PReLU);

/// Softmax over the channels of each position: dim -3 of a 3-d [C, H, W] or 4-d
/// [N, C, H, W] input.
class Softmax2dImpl : public Cloneable<Softmax2dImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
NABLA_MODULE(Softmax2d);

}  // namespace nabla::nn
