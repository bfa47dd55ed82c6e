#pragma once
// StatefulDataLoader: batches of a stateful dataset (StatefulDataset, ChunkDataset), which
// needs no sampler: every request is the batch size, and the epoch ends when the dataset
// answers nullopt. Workers share the one dataset, so its get_batch must be thread-safe.
#include <cstddef>
#include <memory>
#include <utility>

#include "nabla/data/dataloader/base.h"

namespace nabla::data {

template <class Dataset>
class StatefulDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                                                 typename Dataset::BatchRequestType> {
  using Base = DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                              typename Dataset::BatchRequestType>;

 public:
  using super = Base;  // LibTorch's name for the base
  using typename Base::BatchRequestType;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : Base(std::move(options), std::make_unique<Dataset>(std::move(dataset))) {
    for (size_t i = 0; i < this->options_.workers; ++i)
      this->workers_.emplace_back([this] { this->worker_thread(*this->main_thread_dataset_); });
  }
  ~StatefulDataLoader() override { this->join(); }

 private:
  void reset_source() override { this->main_thread_dataset_->reset(); }
  optional<BatchRequestType> get_batch_request() override { return this->options_.batch_size; }
};

}  // namespace nabla::data
