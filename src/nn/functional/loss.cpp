// F:: losses: options unpacked onto the at::-style free functions.
#include "nabla/nn/functional/loss.h"

#include "nabla/nn/functional/distance.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::functional {

int64_t reduction_code(const reduction_t& reduction) {
  if (std::holds_alternative<enumtype::kNone>(reduction)) return Reduction::None;
  if (std::holds_alternative<enumtype::kSum>(reduction)) return Reduction::Sum;
  return Reduction::Mean;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& o) {
  return nabla::mse_loss(input, target, reduction_code(o.reduction()));
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& o) {
  return nabla::l1_loss(input, target, reduction_code(o.reduction()));
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& o,
                      double beta) {
  return nabla::smooth_l1_loss(input, target, reduction_code(o.reduction()),
                               o.beta().value_or(beta));
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& o) {
  return nabla::huber_loss(input, target, reduction_code(o.reduction()), o.delta());
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& o) {
  return nabla::nll_loss_nd(input, target, o.weight(), reduction_code(o.reduction()),
                            o.ignore_index());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& o) {
  return nabla::cross_entropy_loss(input, target, o.weight(), reduction_code(o.reduction()),
                                   o.ignore_index(), o.label_smoothing());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& o) {
  NABLA_CHECK(!input.defined() || !target.defined() || input.sizes() == target.sizes(),
              "binary_cross_entropy: Using a target size (", target.sizes(),
              ") that is different to the input size (", input.sizes(),
              ") is deprecated. Please ensure they have the same size.");
  return nabla::binary_cross_entropy(input, target, o.weight(), reduction_code(o.reduction()));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& o) {
  return nabla::binary_cross_entropy_with_logits(input, target, o.weight(), o.pos_weight(),
                                                 reduction_code(o.reduction()));
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& o) {
  if (std::holds_alternative<enumtype::kBatchMean>(o.reduction())) {
    Tensor sum = nabla::kl_div(input, target, Reduction::Sum, o.log_target());
    return input.dim() == 0 ? sum : sum / input.size(0);
  }
  int64_t code = std::holds_alternative<enumtype::kNone>(o.reduction())  ? Reduction::None
                 : std::holds_alternative<enumtype::kSum>(o.reduction()) ? Reduction::Sum
                                                                         : Reduction::Mean;
  return nabla::kl_div(input, target, code, o.log_target());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& o) {
  return nabla::soft_margin_loss(input, target, reduction_code(o.reduction()));
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& o) {
  return nabla::margin_ranking_loss(input1, input2, target, o.margin(),
                                    reduction_code(o.reduction()));
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& o) {
  return nabla::hinge_embedding_loss(input, target, o.margin(), reduction_code(o.reduction()));
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& o) {
  return nabla::cosine_embedding_loss(input1, input2, target, o.margin(),
                                      reduction_code(o.reduction()));
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& o) {
  return nabla::poisson_nll_loss(input, target, o.log_input(), o.full(), o.eps(),
                                 reduction_code(o.reduction()));
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& o) {
  return nabla::triplet_margin_loss(anchor, positive, negative, o.margin(), o.p(), o.eps(),
                                    o.swap(), reduction_code(o.reduction()));
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& o) {
  NABLA_CHECK(input.defined() && target.defined() && input.sizes() == target.sizes(),
              "multilabel_soft_margin_loss: target must have input's shape");
  // log(sigmoid(x)) = -softplus(-x), computed stably as in binary_cross_entropy_with_logits.
  auto log_sigmoid = [](const Tensor& x) {
    return -((-x.abs()).exp().log1p() + (-x).clamp_min(0));
  };
  Tensor loss = -(target * log_sigmoid(input) + (1 - target) * log_sigmoid(-input));
  if (o.weight().defined()) loss = loss * o.weight();
  loss = loss.sum(input.dim() - 1) / input.size(input.dim() - 1);
  switch (reduction_code(o.reduction())) {
    case Reduction::None:
      return loss;
    case Reduction::Sum:
      return loss.sum();
    default:
      return loss.mean();
  }
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& o) {
  return nabla::multilabel_margin_loss(input, target, reduction_code(o.reduction()));
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& o) {
  NABLA_CHECK(o.p() == 1 || o.p() == 2, "multi_margin_loss: only p == 1 and p == 2 supported, got ",
              o.p());
  NABLA_CHECK(!o.weight().defined() || o.weight().dim() == 1,
              "multi_margin_loss: weight must be one-dimensional, got ", o.weight().dim(), " dims");
  return nabla::multi_margin_loss(input, target, o.p(), o.margin(), o.weight(),
                                  reduction_code(o.reduction()));
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive,
                                         const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& o) {
  auto distance = [&](const Tensor& a, const Tensor& b) {
    return o.distance_function() ? (*o.distance_function())(a, b)
                                 : nabla::pairwise_distance(a, b, 2.0, 1e-6, false);
  };
  const Tensor positive_distance = distance(anchor, positive);
  Tensor negative_distance = distance(anchor, negative);
  if (o.swap()) negative_distance = nabla::minimum(negative_distance, distance(positive, negative));
  Tensor loss = (positive_distance - negative_distance + o.margin()).clamp_min(0);
  if (std::holds_alternative<enumtype::kMean>(o.reduction())) return loss.mean();
  if (std::holds_alternative<enumtype::kSum>(o.reduction())) return loss.sum();
  return loss;
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& o) {
  return nabla::ctc_loss(log_probs, targets, input_lengths, target_lengths, o.blank(),
                         reduction_code(o.reduction()), o.zero_infinity());
}

}  // namespace nabla::nn::functional
