#pragma once
// Options of the losses (torch/nn/options/loss.h); F::XxxFuncOptions are the same types.
#include <functional>
#include <type_traits>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

/// An implicit constructor from a reduction: the variant or one of its values (kNone, ...),
/// so a module takes the value directly (SmoothL1Loss(kNone)), as LibTorch's.
#define NABLA_REDUCTION_CTOR(Name, Variant)                                          \
  template <class R, std::enable_if_t<std::is_constructible_v<Variant, R>, int> = 0> \
  Name(R reduction) : reduction_(Variant(reduction)) {} /* NOLINT: implicit */

/// Options holding only a reduction (MSELoss, L1Loss, SoftMarginLoss).
#define NABLA_REDUCTION_OPTIONS(Name)                      \
  struct Name {                                            \
    Name() = default;                                      \
    NABLA_REDUCTION_CTOR(Name, reduction_t)                \
    NABLA_ARG(reduction_t, reduction) = enumtype::kMean{}; \
  }
NABLA_REDUCTION_OPTIONS(MSELossOptions);
NABLA_REDUCTION_OPTIONS(L1LossOptions);
NABLA_REDUCTION_OPTIONS(SoftMarginLossOptions);
#undef NABLA_REDUCTION_OPTIONS

struct SmoothL1LossOptions {
  SmoothL1LossOptions() = default;
  NABLA_REDUCTION_CTOR(SmoothL1LossOptions, reduction_t)
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
  NABLA_ARG(optional<double>, beta) = nullopt;  // 1.0 when unset
};

struct HuberLossOptions {
  HuberLossOptions() = default;
  NABLA_REDUCTION_CTOR(HuberLossOptions, reduction_t)
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
  NABLA_ARG(double, delta) = 1.0;
};

struct NLLLossOptions {
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(int64_t, ignore_index) = -100;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct CrossEntropyLossOptions {
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(int64_t, ignore_index) = -100;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
  NABLA_ARG(double, label_smoothing) = 0.0;
};

struct BCELossOptions {
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct BCEWithLogitsLossOptions {
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
  NABLA_ARG(Tensor, pos_weight) = {};
};

struct KLDivLossOptions {
  KLDivLossOptions() = default;
  NABLA_REDUCTION_CTOR(KLDivLossOptions, kldiv_reduction_t)
  NABLA_ARG(kldiv_reduction_t, reduction) = enumtype::kMean{};
  NABLA_ARG(bool, log_target) = false;
};

struct MarginRankingLossOptions {
  NABLA_ARG(double, margin) = 0;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct HingeEmbeddingLossOptions {
  NABLA_ARG(double, margin) = 1.0;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct CosineEmbeddingLossOptions {
  NABLA_ARG(double, margin) = 0.0;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct PoissonNLLLossOptions {
  NABLA_ARG(bool, log_input) = true;
  NABLA_ARG(bool, full) = false;
  NABLA_ARG(double, eps) = 1e-8;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct TripletMarginLossOptions {
  NABLA_ARG(double, margin) = 1.0;
  NABLA_ARG(double, p) = 2.0;
  NABLA_ARG(double, eps) = 1e-6;
  NABLA_ARG(bool, swap) = false;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct MultiLabelSoftMarginLossOptions {
  NABLA_ARG(Tensor, weight) = {};
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct MultiLabelMarginLossOptions {
  using reduction_t = nn::reduction_t;
  MultiLabelMarginLossOptions() = default;
  NABLA_REDUCTION_CTOR(MultiLabelMarginLossOptions, reduction_t)
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct MultiMarginLossOptions {
  using reduction_t = nn::reduction_t;
  NABLA_ARG(int64_t, p) = 1;  // 1 or 2
  NABLA_ARG(double, margin) = 1.0;
  /// One weight per class (1-d), or undefined.
  NABLA_ARG(Tensor, weight) = Tensor();
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct TripletMarginWithDistanceLossOptions {
  using reduction_t = nn::reduction_t;
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  /// The distance of two batches of embeddings, one value per row (unset: pairwise_distance).
  NABLA_ARG(optional<distance_function_t>, distance_function) = nullopt;
  NABLA_ARG(double, margin) = 1.0;
  NABLA_ARG(bool, swap) = false;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
};

struct CTCLossOptions {
  using reduction_t = nn::reduction_t;
  NABLA_ARG(int64_t, blank) = 0;
  NABLA_ARG(reduction_t, reduction) = enumtype::kMean{};
  /// Infinite losses (impossible alignments) and their gradients become 0.
  NABLA_ARG(bool, zero_infinity) = false;
};

namespace functional {
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
using CTCLossFuncOptions = CTCLossOptions;
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
}  // namespace functional

#undef NABLA_REDUCTION_CTOR

}  // namespace nabla::nn
