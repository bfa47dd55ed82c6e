// AdaptiveLogSoftmaxWithLoss.
#include "nabla/nn/modules/adaptive.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::nn {

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(
    AdaptiveLogSoftmaxWithLossOptions options_)
    : options(std::move(options_)) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const std::vector<int64_t>& c = options.cutoffs();
  NABLA_CHECK(!c.empty() && std::is_sorted(c.begin(), c.end()) && c.front() > 0 &&
                  c.back() <= options.n_classes() - 1 &&
                  std::set<int64_t>(c.begin(), c.end()).size() == c.size(),
              "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive "
              "integers sorted in an increasing order, where each value is between 1 and "
              "n_classes-1");
  NABLA_CHECK(options.div_value() != 0.0,
              "AdaptiveLogSoftmaxWithLoss: div_value should not be equal to 0");
  cutoffs = c;
  cutoffs.push_back(options.n_classes());
  shortlist_size = cutoffs[0];
  n_clusters = static_cast<int64_t>(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  head = register_module(
      "head", Linear(LinearOptions(options.in_features(), head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    const auto hidden =
        static_cast<int64_t>(std::floor(static_cast<double>(options.in_features()) /
                                        std::pow(options.div_value(), static_cast<double>(i + 1))));
    const int64_t out = cutoffs[static_cast<size_t>(i + 1)] - cutoffs[static_cast<size_t>(i)];
    tail->push_back(Sequential(Linear(LinearOptions(options.in_features(), hidden).bias(false)),
                               Linear(LinearOptions(hidden, out).bias(false))));
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (const auto& cluster : *tail)
    for (const auto& layer : cluster->children())
      if (auto* linear = layer->as<LinearImpl>()) linear->reset_parameters();
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  NABLA_CHECK(input_.defined() && target_.defined(),
              "AdaptiveLogSoftmaxWithLoss: input or target is undefined");
  const int64_t targ_dim = target_.dim();
  NABLA_CHECK(targ_dim == 1 || targ_dim == 0,
              "0D or 1D target tensor expected, multi-target not supported");
  if (targ_dim == 1) {
    NABLA_CHECK(input_.dim() == 2,
                "1D target tensor expects 2D input tensors, but found inputs with size ",
                input_.sizes());
  } else {
    NABLA_CHECK(input_.dim() == 1,
                "0D target tensor expects 1D input tensors, but found inputs with size ",
                input_.sizes());
  }
  const bool batched = targ_dim > 0;
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  const Tensor target = batched ? target_ : target_.unsqueeze(0);
  NABLA_CHECK(input.size(0) == target.size(0),
              "AdaptiveLogSoftmaxWithLoss: input and target should have the same size in the "
              "batch dimension, got ",
              input.size(0), " and ", target.size(0));
  const int64_t batch = target.size(0);

  // Each row's target gets its log-probability within its cluster (0 for the shortlist)
  // plus the head's log-probability of its cluster's entry (or of the class itself).
  Tensor output = zeros({batch}, input.options().requires_grad(false));
  Tensor head_index = target.clone();
  int64_t used_rows = 0;
  for (int64_t i = 0; i <= n_clusters; ++i) {
    const int64_t low = i == 0 ? 0 : cutoffs[static_cast<size_t>(i - 1)];
    const int64_t high = cutoffs[static_cast<size_t>(i)];
    const Tensor mask = target.ge(low).logical_and(target.lt(high));
    const Tensor rows = mask.nonzero().view({-1});
    if (rows.numel() == 0) continue;
    used_rows += rows.numel();
    if (i == 0) continue;
    const Tensor relative = target.index_select(0, rows) - low;
    const Tensor cluster_out = tail->ptr(static_cast<size_t>(i - 1))
                                   ->as<SequentialImpl>()
                                   ->forward(input.index_select(0, rows));
    head_index = head_index.index_fill(0, rows, shortlist_size + i - 1);
    const Tensor local = cluster_out.log_softmax(1).gather(1, relative.unsqueeze(1));
    output = output.index_copy(0, rows, local.squeeze(1));
  }
  NABLA_CHECK(used_rows == batch, "Target values should be in [0, ", options.n_classes() - 1,
              "], but values in range [", target.min().item<double>(), ", ",
              target.max().item<double>(), "] were found. ");
  const Tensor head_logprob = head(input).log_softmax(1);
  output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1);
  const double loss = (-output).mean().item<double>();
  if (!batched) output = output.squeeze(0);
  return ASMoutput(output, loss);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input,
                                                          const Tensor& head_output) {
  const Tensor head_logprob = head_output.log_softmax(1);
  std::vector<Tensor> parts{head_logprob.narrow(1, 0, shortlist_size)};
  for (int64_t i = 0; i < n_clusters; ++i) {
    const Tensor cluster_out =
        tail->ptr(static_cast<size_t>(i))->as<SequentialImpl>()->forward(input);
    parts.push_back(cluster_out.log_softmax(1) +
                    head_logprob.select(1, shortlist_size + i).unsqueeze(1));
  }
  return cat(parts, 1);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  return _get_full_log_prob(input, head(input));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  const Tensor head_output = head(input);
  Tensor output = head_output.argmax(1);
  // A row whose head prefers a shortlist class needs no tail: that class's log-probability
  // is at least its cluster entries', so at least every tail class's.
  const Tensor in_tail = output.ge(shortlist_size);
  if (!in_tail.any().item<bool>()) return output;
  const Tensor rows = in_tail.nonzero().view({-1});
  const Tensor best =
      _get_full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows)).argmax(1);
  return output.index_copy(0, rows, best);
}

void AdaptiveLogSoftmaxWithLossImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::AdaptiveLogSoftmaxWithLoss";
}

}  // namespace nabla::nn
