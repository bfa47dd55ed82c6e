#pragma once
// Loss modules (torch::nn::MSELoss, CrossEntropyLoss, ...): each holds its options (a
// class weight is also registered as a buffer, so it moves with to() and is saved) and
// calls the F:: function in forward.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/loss.h"

namespace nabla::nn {

/// The common shape of a loss module: options in, forward(input, target) out.
template <class Derived, class Options>
class LossImplBase : public Cloneable<Derived> {
 public:
  explicit LossImplBase(Options options = {}) : options(std::move(options)) {}
  void reset() override { register_weights(); }
  void pretty_print(std::ostream& stream) const override {
    stream << "nabla::nn::" << Derived::kName << "()";
  }
  Options options;

 protected:
  void register_weights() {
    if constexpr (requires(Options o) { o.weight(); }) {
      if (options.weight().defined())
        options.weight(this->register_buffer("weight", options.weight()));
    }
    if constexpr (requires(Options o) { o.pos_weight(); }) {
      if (options.pos_weight().defined())
        options.pos_weight(this->register_buffer("pos_weight", options.pos_weight()));
    }
  }
};

#define NABLA_LOSS_MODULE(Name, Options, call)                                                \
  class Name##Impl : public LossImplBase<Name##Impl, Options> {                               \
   public:                                                                                    \
    static constexpr const char* kName = #Name;                                               \
    explicit Name##Impl(Options options = {}) : LossImplBase(std::move(options)) { reset(); } \
    Tensor forward(const Tensor& input, const Tensor& target) {                               \
      return functional::call(input, target, options);                                        \
    }                                                                                         \
  };                                                                                          \
  NABLA_MODULE(Name)

NABLA_LOSS_MODULE(MSELoss, MSELossOptions, mse_loss);
NABLA_LOSS_MODULE(L1Loss, L1LossOptions, l1_loss);
NABLA_LOSS_MODULE(SmoothL1Loss, SmoothL1LossOptions, smooth_l1_loss);
NABLA_LOSS_MODULE(HuberLoss, HuberLossOptions, huber_loss);
NABLA_LOSS_MODULE(NLLLoss, NLLLossOptions, nll_loss);
NABLA_LOSS_MODULE(CrossEntropyLoss, CrossEntropyLossOptions, cross_entropy);
NABLA_LOSS_MODULE(BCELoss, BCELossOptions, binary_cross_entropy);
NABLA_LOSS_MODULE(BCEWithLogitsLoss, BCEWithLogitsLossOptions, binary_cross_entropy_with_logits);
NABLA_LOSS_MODULE(KLDivLoss, KLDivLossOptions, kl_div);
NABLA_LOSS_MODULE(SoftMarginLoss, SoftMarginLossOptions, soft_margin_loss);
NABLA_LOSS_MODULE(HingeEmbeddingLoss, HingeEmbeddingLossOptions, hinge_embedding_loss);
NABLA_LOSS_MODULE(PoissonNLLLoss, PoissonNLLLossOptions, poisson_nll_loss);
NABLA_LOSS_MODULE(MultiLabelSoftMarginLoss, MultiLabelSoftMarginLossOptions,
                  multilabel_soft_margin_loss);
#undef NABLA_LOSS_MODULE

class MarginRankingLossImpl : public LossImplBase<MarginRankingLossImpl, MarginRankingLossOptions> {
 public:
  static constexpr const char* kName = "MarginRankingLoss";
  explicit MarginRankingLossImpl(MarginRankingLossOptions options = {})
      : LossImplBase(std::move(options)) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::margin_ranking_loss(input1, input2, target, options);
  }
};
NABLA_MODULE(MarginRankingLoss);

class CosineEmbeddingLossImpl
    : public LossImplBase<CosineEmbeddingLossImpl, CosineEmbeddingLossOptions> {
 public:
  static constexpr const char* kName = "CosineEmbeddingLoss";
  explicit CosineEmbeddingLossImpl(CosineEmbeddingLossOptions options = {})
      : LossImplBase(std::move(options)) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::cosine_embedding_loss(input1, input2, target, options);
  }
};
NABLA_MODULE(CosineEmbeddingLoss);

class TripletMarginLossImpl : public LossImplBase<TripletMarginLossImpl, TripletMarginLossOptions> {
 public:
  static constexpr const char* kName = "TripletMarginLoss";
  explicit TripletMarginLossImpl(TripletMarginLossOptions options = {})
      : LossImplBase(std::move(options)) {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_loss(anchor, positive, negative, options);
  }
};
NABLA_MODULE(TripletMarginLoss);

}  // namespace nabla::nn
