#pragma once
// StatelessDataLoader: batches of a dataset for the requests of a sampler (index lists, or
// a stream's batch sizes). Each worker holds its own copy of the dataset (wrap it in
// SharedBatchDataset to share one); without workers the loop's thread uses the original.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "nabla/data/dataloader/base.h"

namespace nabla::data {

template <class Dataset, class Sampler>
class StatelessDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType,
                                                  typename Sampler::BatchRequestType> {
  using Base =
      DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;

 public:
  using super = Base;  // LibTorch's name for the base
  using typename Base::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : Base(std::move(options)), sampler_(std::move(sampler)) {
    if constexpr (std::is_copy_constructible_v<Dataset>) {
      for (size_t i = 0; i < this->options_.workers; ++i) {
        // One copy per worker, made here (a dataset's copy constructor runs once per worker).
        this->workers_.emplace_back(
            [this, copy = dataset]() mutable { this->worker_thread(copy); });
      }
    } else {
      NABLA_CHECK(this->options_.workers == 0, "DataLoader: workers(", this->options_.workers,
                  ") copy the dataset into each worker, and this dataset cannot be copied; wrap "
                  "it in datasets::SharedBatchDataset (make_shared_dataset) to share one");
    }
    if (this->options_.workers == 0)
      this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
  }
  ~StatelessDataLoader() override { this->join(); }

 private:
  // As LibTorch: the sampler keeps the size it was made with.
  void reset_source() override { sampler_.reset(nullopt); }

  // Requests from the sampler until it has none, or (drop_last) one is short.
  optional<BatchRequestType> get_batch_request() override {
    auto request = sampler_.next(this->options_.batch_size);
    if (!request || request->size() == 0) return nullopt;
    if (this->options_.drop_last && request->size() < this->options_.batch_size) return nullopt;
    return request;
  }

  Sampler sampler_;
};

}  // namespace nabla::data
