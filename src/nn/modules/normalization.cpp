// Normalization modules.
#include "nabla/nn/modules/normalization.h"

#include <ostream>

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"

namespace nabla::nn {

namespace {
// Every norm's weight (ones) and bias (zeros) of `shape`, undefined without `affine`.
template <class Norm>
void register_affine(Norm& m, IntArrayRef shape, bool affine) {
  m.weight = m.register_parameter("weight", affine ? ones(shape) : Tensor(), affine);
  m.bias = m.register_parameter("bias", affine ? zeros(shape) : Tensor(), affine);
}

// Their initial values again, where defined.
void reset_affine(const Tensor& weight, const Tensor& bias) {
  NoGradGuard no_grad;
  if (weight.defined()) weight.fill_(1);
  if (bias.defined()) bias.zero_();
}

// The batch and instance norms' weight and bias [C], and their running mean and
// variance [C] when they track running statistics.
template <class Norm>
void register_norm_state(Norm& m) {
  const int64_t c = m.options.num_features();
  register_affine(m, {c}, m.options.affine());
  if (m.options.track_running_stats()) {
    m.running_mean = m.register_buffer("running_mean", zeros({c}));
    m.running_var = m.register_buffer("running_var", ones({c}));
  }
}
}  // namespace

template <int D>
BatchNormImpl<D>::BatchNormImpl(const BatchNormOptions& options_) : options(options_) {
  NABLA_CHECK(options.num_features() > 0, "BatchNorm", D, "d: num_features must be positive, got ",
              options.num_features());
  reset();
}

template <int D>
void BatchNormImpl<D>::reset() {
  register_norm_state(*this);
  if (options.track_running_stats())
    num_batches_tracked =
        this->register_buffer("num_batches_tracked", zeros({}, TensorOptions(kLong)));
}

template <int D>
void BatchNormImpl<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard guard;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <int D>
void BatchNormImpl<D>::reset_parameters() {
  reset_running_stats();
  reset_affine(weight, bias);
}

template <int D>
void BatchNormImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::BatchNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=";
  if (options.momentum())
    stream << *options.momentum();
  else
    stream << "None";
  stream << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template <int D>
Tensor BatchNormImpl<D>::forward(const Tensor& input) {
  const int64_t want = D == 1 ? -1 : D + 2;
  if (D == 1)
    NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
                "BatchNorm1d: expected 2-d or 3-d input, got ", input.defined() ? input.dim() : 0,
                "-d input");
  else
    NABLA_CHECK(input.defined() && input.dim() == want, "BatchNorm", D, "d: expected ", want,
                "-d input, got ", input.defined() ? input.dim() : 0, "-d input");
  double factor = options.momentum().value_or(0.0);
  if (this->is_training() && options.track_running_stats()) {
    NoGradGuard guard;
    num_batches_tracked.add_(1);
    if (!options.momentum()) factor = 1.0 / num_batches_tracked.template item<double>();
  }
  return functional::batch_norm(input, running_mean, running_var,
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(this->is_training() || !options.track_running_stats())
                                    .momentum(factor)
                                    .eps(options.eps()));
}

template class BatchNormImpl<1>;
template class BatchNormImpl<2>;
template class BatchNormImpl<3>;

template <int D>
InstanceNormImpl<D>::InstanceNormImpl(const InstanceNormOptions& options_) : options(options_) {
  reset();
}

template <int D>
void InstanceNormImpl<D>::reset() {
  register_norm_state(*this);
  if (options.track_running_stats())
    num_batches_tracked =
        this->register_buffer("num_batches_tracked", zeros({}, TensorOptions(kLong)));
}

template <int D>
void InstanceNormImpl<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard guard;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <int D>
void InstanceNormImpl<D>::reset_parameters() {
  reset_running_stats();
  reset_affine(weight, bias);
}

template <int D>
void InstanceNormImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::InstanceNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=" << options.momentum()
         << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template <int D>
Tensor InstanceNormImpl<D>::forward(const Tensor& input) {
  const int64_t rank = input.defined() ? input.dim() : 0;
  NABLA_CHECK(rank == D + 1 || rank == D + 2, "InstanceNorm", D, "d: expected ", D + 1, "D or ",
              D + 2, "D input (got ", rank, "D input)");
  if (rank == D + 1) return forward(input.unsqueeze(0)).squeeze(0);  // unbatched
  return functional::instance_norm(
      input, functional::InstanceNormFuncOptions()
                 .running_mean(running_mean)
                 .running_var(running_var)
                 .weight(weight)
                 .bias(bias)
                 .use_input_stats(this->is_training() || !options.track_running_stats())
                 .momentum(options.momentum())
                 .eps(options.eps()));
}

template class InstanceNormImpl<1>;
template class InstanceNormImpl<2>;
template class InstanceNormImpl<3>;

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) { reset(); }

void LayerNormImpl::reset() {
  register_affine(*this, options.normalized_shape(), options.elementwise_affine());
}

void LayerNormImpl::reset_parameters() { reset_affine(weight, bias); }

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::LayerNorm(" << IntArrayRef(options.normalized_shape())
         << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine()
         << ")";
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, functional::LayerNormFuncOptions(options.normalized_shape())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  NABLA_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
              "GroupNorm: num_channels (", options.num_channels(),
              ") must be divisible by num_groups (", options.num_groups(), ")");
  reset();
}

void GroupNormImpl::reset() { register_affine(*this, {options.num_channels()}, options.affine()); }

void GroupNormImpl::reset_parameters() { reset_affine(weight, bias); }

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps() << ", affine=" << options.affine()
         << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(input, functional::GroupNormFuncOptions(options.num_groups())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

}  // namespace nabla::nn
