#pragma once
// Losses with at::'s signatures; `reduction` is Reduction::None / Mean / Sum.
// nn::functional (nabla/nn/functional/loss.h) spells them with options, as F:: does.
// Inputs broadcast against targets where LibTorch's do; shapes that do not broadcast,
// class targets out of range and wrong target dtypes raise nabla::Error.
#include <cstdint>

#include "nabla/core/scalar.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/schema.h"

namespace nabla {

namespace Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

// mse, l1, smooth_l1, huber, nll (1-d, 2-d, n-d), cross_entropy, binary_cross_entropy
// (with_logits), kl_div, soft_margin, margin_ranking, hinge_embedding, cosine_embedding,
// poisson_nll and triplet_margin losses (their rows: nabla/ops/schema/loss.def).
#define NABLA_OP NABLA_OP_DECLARE
#include "nabla/ops/schema/loss.def"
#undef NABLA_OP

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
