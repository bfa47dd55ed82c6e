#pragma once
// The dataset kinds of torch::data::datasets:
//   BatchDataset<Self, Batch, Request>  get_batch(request) -> Batch. The request is what a
//                                       sampler gives: indices by default.
//   Dataset<Self, Example>              get(index) -> Example; batches are vectors of them.
//   StreamDataset<Self, Batch>          get_batch(batch_size): no indices (StreamSampler).
//   StatefulDataset<Self, Batch>        get_batch(batch_size) -> optional<Batch>, nullopt at
//                                       the end of an epoch; reset() starts the next. It
//                                       needs no sampler: the loader asks it until nullopt.
// `.map(transform)` wraps any of them so every batch passes through the transform:
//   auto train = datasets::MNIST(root).map(transforms::Normalize<>(0.286, 0.353))
//                                      .map(transforms::Stack<>());
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "nabla/core/array_ref.h"
#include "nabla/core/optional.h"
#include "nabla/data/example.h"
#include "nabla/serialize/archive.h"

namespace nabla::data::datasets {

template <class Source, class AppliedTransform>
class MapDataset;

namespace detail {
template <class T>
struct unwrap_optional {
  using type = T;
  static constexpr bool is_optional = false;
};
template <class T>
struct unwrap_optional<optional<T>> {
  using type = T;
  static constexpr bool is_optional = true;
};
}  // namespace detail

/// A dataset is stateful exactly when its batches are optional (see above).
template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  static constexpr bool is_stateful = detail::unwrap_optional<Batch>::is_optional;

  virtual ~BatchDataset() = default;
  /// The batch for `request` (for a stateful dataset, nullopt when the epoch is over).
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
  /// Example `index`; with loader workers, called from several threads at once.
  virtual SingleExample get(size_t index) = 0;
  /// get() of each index, in order.
  std::vector<SingleExample> get_batch(ArrayRef<size_t> indices) override {
    std::vector<SingleExample> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// A dataset read as a stream: get_batch(batch_size) returns the next batch_size examples.
template <class Self, class Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, size_t>;

template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, optional<Batch>, BatchRequest> {
 public:
  /// Starts a new epoch: get_batch answers again from the beginning.
  virtual void reset() = 0;
  /// Writes (and reads back) what a checkpoint needs to resume the epoch where it was.
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

/// `archive << dataset` and `archive >> dataset` for stateful datasets, as LibTorch's.
template <class... Args>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const StatefulDataset<Args...>& dataset) {
  dataset.save(archive);
  return archive;
}
template <class... Args>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    StatefulDataset<Args...>& dataset) {
  dataset.load(archive);
  return archive;
}

namespace detail {
/// What a MapDataset's get_batch returns: the transform's output, optional again when the
/// source is stateful.
template <class Source, class Transform>
struct MappedBatch {
  using Input = typename unwrap_optional<typename Source::BatchType>::type;
  using Output = decltype(std::declval<Transform&>().apply_batch(std::declval<Input>()));
  using type = std::conditional_t<Source::is_stateful, optional<Output>, Output>;
};
}  // namespace detail

/// `dataset` with `transform.apply_batch` applied to each of its batches (for a stateful
/// source, to each batch that is not nullopt). Holds both by value.
template <class Source, class AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<Source, AppliedTransform>,
                                       typename detail::MappedBatch<Source, AppliedTransform>::type,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = AppliedTransform;
  using BatchType = typename detail::MappedBatch<Source, AppliedTransform>::type;
  using OutputBatchType = BatchType;
  using BatchRequestType = typename Source::BatchRequestType;

  MapDataset(Source dataset, AppliedTransform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  BatchType get_batch(BatchRequestType request) override {
    if constexpr (Source::is_stateful) {
      auto batch = dataset_.get_batch(std::move(request));
      if (!batch) return nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }
  optional<size_t> size() const override { return dataset_.size(); }

  /// Resets the source (stateful sources: a new epoch).
  void reset() requires requires(Source& s) { s.reset(); }
  { dataset_.reset(); }

  const Source& dataset() const { return dataset_; }
  const AppliedTransform& transform() const { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

/// map(dataset, transform): the free spelling of dataset.map(transform).
template <class Source, class Transform>
MapDataset<Source, Transform> map(Source dataset, Transform transform) {
  return MapDataset<Source, Transform>(std::move(dataset), std::move(transform));
}

}  // namespace nabla::data::datasets

namespace nabla::data {
// LibTorch exposes the two base classes one namespace up as well.
using datasets::BatchDataset;
using datasets::Dataset;
}  // namespace nabla::data
