#pragma once
// Loss modules (torch::nn::MSELoss, CrossEntropyLoss, ...): each holds its options (a
// class weight is also registered as a buffer, so it moves with to() and is saved) and
// calls the F:: function in forward.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/loss.h"

namespace nabla::nn {

namespace detail {
/// The options a loss module prints, as LibTorch's (most print none).
template <class Options>
void print_loss_options(std::ostream&, const Options&) {}
inline void print_loss_options(std::ostream& s, const HingeEmbeddingLossOptions& o) {
  s << "margin=" << o.margin();
}
inline void print_loss_options(std::ostream& s, const CosineEmbeddingLossOptions& o) {
  s << "margin=" << o.margin();
}
inline void print_loss_options(std::ostream& s, const TripletMarginLossOptions& o) {
  s << std::boolalpha << "margin=" << o.margin() << ", p=" << o.p() << ", eps=" << o.eps()
    << ", swap=" << o.swap();
}
}  // namespace detail

/// The common shape of a loss module: options in, forward(input, target) out.
template <class Derived, class Options>
class LossImplBase : public Cloneable<Derived> {
 public:
  explicit LossImplBase(Options options = {}) : options(std::move(options)) {}
  void reset() override { register_weights(); }
  void pretty_print(std::ostream& stream) const override {
    stream << "nabla::nn::" << Derived::kName << "(";
    detail::print_loss_options(stream, options);
    stream << ")";
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
NABLA_LOSS_MODULE(MultiLabelMarginLoss, MultiLabelMarginLossOptions, multilabel_margin_loss);
NABLA_LOSS_MODULE(MultiMarginLoss, MultiMarginLossOptions, multi_margin_loss);
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

class TripletMarginWithDistanceLossImpl
    : public LossImplBase<TripletMarginWithDistanceLossImpl, TripletMarginWithDistanceLossOptions> {
 public:
  static constexpr const char* kName = "TripletMarginWithDistanceLoss";
  explicit TripletMarginWithDistanceLossImpl(TripletMarginWithDistanceLossOptions options = {})
      : LossImplBase(std::move(options)) {}
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha
           << "nabla::nn::TripletMarginWithDistanceLoss(margin=" << options.margin()
           << ", swap=" << options.swap() << ")";
  }
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_with_distance_loss(anchor, positive, negative, options);
  }
};
NABLA_MODULE(TripletMarginWithDistanceLoss);

class CTCLossImpl : public LossImplBase<CTCLossImpl, CTCLossOptions> {
 public:
  static constexpr const char* kName = "CTCLoss";
  explicit CTCLossImpl(CTCLossOptions options = {}) : LossImplBase(std::move(options)) {}
  /// log_probs (T, N, C) (log_softmax'ed), targets (N, S) or concatenated, lengths (N).
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths) {
    return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
  }
};
NABLA_MODULE(CTCLoss);

}  // namespace nabla::nn
