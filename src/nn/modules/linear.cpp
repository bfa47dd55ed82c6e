// Linear, Identity, Flatten, Unflatten.
#include "nabla/nn/modules/linear.h"

#include <cmath>
#include <ostream>

#include "nabla/nn/functional/linear.h"
#include "nabla/nn/init.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  NABLA_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "Linear: in_features and out_features must be non-negative, got ",
              options.in_features(), " and ", options.out_features());
  reset();
}

void LinearImpl::reset() {
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  // LibTorch's draws with LibTorch's bounds, rounded alike (Note [Random streams]): the
  // weight by kaiming_uniform_(a = sqrt(5)), sqrt(3) * gain / sqrt(fan_in), which is
  // 1 / sqrt(fan_in) up to rounding; the bias by 1 / sqrt(fan_in).
  if (options.in_features() > 0) {
    init::kaiming_uniform_(weight, std::sqrt(5.0));
  } else {
    init::uniform_(weight, 0, 0);  // empty: nothing to draw
  }
  const double bound =
      options.in_features() > 0 ? 1.0 / std::sqrt(static_cast<double>(options.in_features())) : 0.0;
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor LinearImpl::forward(const Tensor& input) { return linear(input, weight, bias); }

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  NABLA_CHECK(
      options.in1_features() > 0 && options.in2_features() > 0 && options.out_features() > 0,
      "Bilinear: feature counts must be positive");
  reset();
}

void BilinearImpl::reset() {
  weight = register_parameter(
      "weight", empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  const double bound = 1.0 / std::sqrt(static_cast<double>(options.in1_features()));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return nabla::bilinear(input1, input2, weight, bias);
}

void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::PairwiseDistance(p=" << options.p()
         << ", eps=" << options.eps() << ", keepdim=" << options.keepdim() << ")";
}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "nabla::nn::Identity()"; }

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::Flatten(start_dim=" << options.start_dim()
         << ", end_dim=" << options.end_dim() << ")";
}

Tensor FlattenImpl::forward(const Tensor& input) {
  return input.flatten(options.start_dim(), options.end_dim());
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  if (!options.dimname().empty()) {
    stream << "nabla::nn::Unflatten(dim=\"" << options.dimname() << "\", unflattened_size={";
    for (size_t i = 0; i < options.namedshape().size(); ++i)
      stream << (i ? ", " : "") << "{\"" << options.namedshape()[i].first << "\", "
             << options.namedshape()[i].second << "}";
    stream << "})";
    return;
  }
  stream << "nabla::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i)
    stream << (i ? ", " : "") << options.sizes()[i];
  stream << "})";
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  NABLA_CHECK(options.dimname().empty(), "Unflatten: the dim is named (\"", options.dimname(),
              "\"), which needs named tensors; nabla has none, so unflatten by index: "
              "UnflattenOptions(dim, sizes)");
  return input.unflatten(options.dim(), options.sizes());
}

}  // namespace nabla::nn
