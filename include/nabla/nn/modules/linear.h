#pragma once
// Linear (y = x W^T + b), Identity, Flatten, Unflatten; as LibTorch's modules.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/distance.h"
#include "nabla/nn/options/linear.h"

namespace nabla::nn {

/// weight [out, in] and bias [out], both uniform in ±1/sqrt(in_features) as PyTorch's
/// reset_parameters (kaiming_uniform_ with a = sqrt(5) for the weight).
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input [..., in_features] -> [..., out_features].
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
NABLA_MODULE(Linear);

/// y = x1^T W x2 + b; W [out, in1, in2] and b uniform in ±1/sqrt(in1) as PyTorch's.
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1, int64_t in2, int64_t out)
      : BilinearImpl(BilinearOptions(in1, in2, out)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  BilinearOptions options;
  Tensor weight;
  Tensor bias;
};
NABLA_MODULE(Bilinear);

class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& x1, const Tensor& x2) {
    return functional::cosine_similarity(x1, x2, options);
  }
  CosineSimilarityOptions options;
};
NABLA_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& x1, const Tensor& x2) {
    return functional::pairwise_distance(x1, x2, options);
  }
  PairwiseDistanceOptions options;
};
NABLA_MODULE(PairwiseDistance);

class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input; }
};
NABLA_MODULE(Identity);

class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  FlattenOptions options;
};
NABLA_MODULE(Flatten);

class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : options(dim, std::move(sizes)) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UnflattenOptions options;
};
NABLA_MODULE(Unflatten);

}  // namespace nabla::nn
