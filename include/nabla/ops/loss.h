#pragma once
// Losses with at::'s signatures; `reduction` is Reduction::None / Mean / Sum.
// nn::functional (nabla/nn/functional/loss.h) spells them with options, as F:: does.
// Inputs broadcast against targets where LibTorch's do; shapes that do not broadcast,
// class targets out of range and wrong target dtypes raise nabla::Error.
#include <cstdint>

#include "nabla/core/scalar.h"
#include "nabla/core/tensor.h"

namespace nabla {

namespace Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, int64_t reduction = Reduction::Mean);
/// 0.5 d^2 / beta where |d| < beta, |d| - beta / 2 elsewhere (beta = 0: l1).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      int64_t reduction = Reduction::Mean, double beta = 1.0);
/// 0.5 d^2 where |d| <= delta, delta (|d| - delta / 2) elsewhere.
Tensor huber_loss(const Tensor& input, const Tensor& target, int64_t reduction = Reduction::Mean,
                  double delta = 1.0);
/// input (C), (N, C) or (N, C, d1, ...) log-probabilities; target (), (N) or (N, d1, ...)
/// int64 classes. Mean divides by the summed weights of the targets not ignored.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
Tensor nll_loss2d(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                  int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
Tensor nll_loss_nd(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                   int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
/// log_softmax over dim 1 (dim 0 for unbatched input) then nll_loss; or, when target is
/// floating with input's shape, class probabilities. label_smoothing as PyTorch. Class
/// indices over input [C] or [N, C] (float or double, on the CPU) run as one fused node,
/// NllLossBackward0, without the log-softmax matrix (Note [Fused cross-entropy],
/// src/ops/loss/classification.cpp).
Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
/// input probabilities in [0, 1]; logs clamped at -100 as PyTorch.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            int64_t reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = {}, const Tensor& pos_weight = {},
                                        int64_t reduction = Reduction::Mean);
/// input log-probabilities; target probabilities (log_target: log-probabilities).
Tensor kl_div(const Tensor& input, const Tensor& target, int64_t reduction = Reduction::Mean,
              bool log_target = false);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        int64_t reduction = Reduction::Mean);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, int64_t reduction = Reduction::Mean);
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            int64_t reduction = Reduction::Mean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, int64_t reduction = Reduction::Mean);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, int64_t reduction);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2, double eps = 1e-6, bool swap = false,
                           int64_t reduction = Reduction::Mean);
/// input (C) or (N, C); target the same shape, int64 classes listed up to the first -1.
/// Per sample: sum over listed j and unlisted i of max(0, 1 - (x[j] - x[i])), / C.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              int64_t reduction = Reduction::Mean);
/// input (C) or (N, C); target () or (N) int64 classes y; p 1 or 2. Per sample: sum over
/// i != y of weight[y] max(0, margin - x[y] + x[i])^p, / C.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const Scalar& p = 1,
                         const Scalar& margin = 1, const Tensor& weight = {},
                         int64_t reduction = Reduction::Mean);
/// Connectionist temporal classification: log_probs (T, N, C) or (T, C); targets (N, S)
/// padded or the batch's labels concatenated (1-d); -log p(target | input) per sample,
/// summed over alignments (blank: the blank class). Mean divides each loss by its target
/// length (at least 1), then averages; an impossible alignment gives inf (0 with
/// zero_infinity).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank = 0, int64_t reduction = Reduction::Mean,
                bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0,
                int64_t reduction = Reduction::Mean, bool zero_infinity = false);

}  // namespace nabla
