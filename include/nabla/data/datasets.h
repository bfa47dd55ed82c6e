#pragma once
// Datasets, as torch::data::datasets: a BatchDataset answers get_batch(indices); a
// Dataset answers get(index) and batches by collecting examples. `.map(transform)`
// wraps a dataset so every batch passes through the transform (Normalize, Stack, ...).
//
//   auto train = datasets::MNIST(root).map(transforms::Normalize<>(0.286, 0.353))
//                                      .map(transforms::Stack<>());
#include <cstddef>
#include <vector>

#include "nabla/core/array_ref.h"
#include "nabla/core/optional.h"
#include "nabla/data/example.h"

namespace nabla::data::datasets {

template <class Source, class AppliedTransform>
class MapDataset;

template <class Self, class Batch, class BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  /// A stateful dataset yields optional batches (and needs no sampler); nabla's are stateless.
  static constexpr bool is_stateful = false;
  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples (nullopt: unknown).
  virtual optional<size_t> size() const = 0;

  /// This dataset, moved into a MapDataset applying `transform` to each batch.
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
  /// From an lvalue, a copy of this dataset is mapped (as LibTorch).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) const& {
    return MapDataset<Self, Transform>(static_cast<const Self&>(*this), std::move(transform));
  }
};

template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;
  virtual SingleExample get(size_t index) = 0;
  std::vector<SingleExample> get_batch(ArrayRef<size_t> indices) override {
    std::vector<SingleExample> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

template <class Source, class AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<Source, AppliedTransform>,
                                       decltype(std::declval<AppliedTransform&>().apply_batch(
                                           std::declval<typename Source::BatchType>())),
                                       typename Source::BatchRequestType> {
 public:
  using BatchType = decltype(std::declval<AppliedTransform&>().apply_batch(
      std::declval<typename Source::BatchType>()));
  using BatchRequestType = typename Source::BatchRequestType;
  MapDataset(Source dataset, AppliedTransform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}
  BatchType get_batch(BatchRequestType request) override {
    return transform_.apply_batch(dataset_.get_batch(request));
  }
  optional<size_t> size() const override { return dataset_.size(); }
  const Source& dataset() const { return dataset_; }
  const AppliedTransform& transform() const { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

/// Examples from the rows of one tensor, without targets, as LibTorch's TensorDataset:
/// example i is tensor[i].
class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);
  TensorExample get(size_t index) override;
  optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }
  Tensor tensor;
};

/// Examples from two tensors of equal first dimension: example i is (data[i], target[i]).
/// (nabla's; LibTorch has no dataset of tensor pairs.)
class TensorPairDataset : public Dataset<TensorPairDataset, Example<>> {
 public:
  TensorPairDataset(Tensor data, Tensor target);
  Example<> get(size_t index) override;
  optional<size_t> size() const override { return static_cast<size_t>(data_.size(0)); }
  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 private:
  Tensor data_, target_;
};

}  // namespace nabla::data::datasets

namespace nabla::data {
// LibTorch exposes the two base classes one namespace up as well.
using datasets::BatchDataset;
using datasets::Dataset;
}  // namespace nabla::data
