#pragma once
// AdaptiveLogSoftmaxWithLoss, as LibTorch's (Grave et al., "Efficient softmax approximation
// for GPUs"): the `cutoffs` split the classes into a shortlist, scored by the `head` together
// with one entry per cluster, and clusters of rarer classes, each scored by a smaller
// two-layer projection in `tail` (its hidden size divided by div_value once more per
// cluster).
#include <vector>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/modules/container/modulelist.h"
#include "nabla/nn/modules/container/sequential.h"
#include "nabla/nn/modules/linear.h"

namespace nabla::nn {

struct AdaptiveLogSoftmaxWithLossOptions {
  AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes,
                                    std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  NABLA_ARG(int64_t, in_features);
  NABLA_ARG(int64_t, n_classes);
  /// Increasing, unique, each in [1, n_classes - 1].
  NABLA_ARG(std::vector<int64_t>, cutoffs);
  NABLA_ARG(double, div_value) = 4.;
  NABLA_ARG(bool, head_bias) = false;
};

/// forward's result: the log-probability of each target, and the mean negative of them.
struct ASMoutput {
  ASMoutput(Tensor output_, double loss_) : output(std::move(output_)), loss(loss_) {}
  Tensor output;  // [N] (or 0-d for an unbatched input)
  double loss;
};

class AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes,
                                 std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(
            AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options);

  /// input [N, in_features] and target [N] (or [in_features] and a 0-d target).
  ASMoutput forward(const Tensor& input, const Tensor& target);
  /// The log-probabilities of every class from the head's output: [N, n_classes].
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  /// [N, n_classes] log-probabilities.
  Tensor log_prob(const Tensor& input);
  /// The most likely class of each row, [N] (the tails run only for rows whose head
  /// prefers a cluster).
  Tensor predict(const Tensor& input);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  AdaptiveLogSoftmaxWithLossOptions options;
  std::vector<int64_t> cutoffs;  // the options' cutoffs followed by n_classes
  int64_t shortlist_size = 0;
  int64_t n_clusters = 0;
  int64_t head_size = 0;
  Linear head = nullptr;
  ModuleList tail;
};
NABLA_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace nabla::nn
