#pragma once
// F:: losses with their options, as torch::nn::functional:
//   F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().label_smoothing(0.1));
//   F::mse_loss(x, y, F::MSELossFuncOptions(nabla::kSum));
#include "nabla/nn/options/loss.h"
#include "nabla/ops/loss.h"

namespace nabla::nn::functional {

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
/// beta: options.beta() when set, else the `beta` argument (LibTorch 1.13's signature;
/// 1.13 itself ignores options.beta() here, a bug fixed later — docs/compat.md).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {}, double beta = 1.);
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {});
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {});
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
/// kBatchMean divides the summed loss by input.size(0) (the mathematically right KL).
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options = {});
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options = {});
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});
Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options = {});
/// max(0, margin + d(anchor, positive) - d(anchor, negative)) per row, d the options'
/// distance_function (pairwise_distance when unset); swap takes min(d(a, n), d(p, n)).
Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    const TripletMarginWithDistanceLossFuncOptions& options = {});
/// log_probs (T, N, C), targets, and the lengths as integer tensors (N).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

/// The at:: reduction code of an option value.
int64_t reduction_code(const reduction_t& reduction);

}  // namespace nabla::nn::functional
