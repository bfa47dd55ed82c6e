#pragma once
// F::cosine_similarity, F::pairwise_distance and F::pdist; the first two with their options
// (also the options of nn::CosineSimilarity / nn::PairwiseDistance), as LibTorch's.
#include "nabla/core/tensor.h"
#include "nabla/nn/options/arg.h"
#include "nabla/ops/sampling.h"

namespace nabla {
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-6,
                         bool keepdim = false);
}  // namespace nabla

namespace nabla::nn {
struct CosineSimilarityOptions {
  NABLA_ARG(int64_t, dim) = 1;
  NABLA_ARG(double, eps) = 1e-8;
};
struct PairwiseDistanceOptions {
  NABLA_ARG(double, p) = 2.0;
  NABLA_ARG(double, eps) = 1e-6;
  NABLA_ARG(bool, keepdim) = false;
};
namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options = {});
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options = {});
/// The p-norm distances between all pairs of rows of a 2-d input (nabla::pdist).
inline Tensor pdist(const Tensor& input, double p = 2.0) { return nabla::pdist(input, p); }
}  // namespace functional
}  // namespace nabla::nn
