#pragma once
// SharedBatchDataset<D>: a handle to one D shared by everything that copies the handle
// (torch::data::datasets::SharedBatchDataset). A data loader copies its dataset into each
// worker; through this handle the workers use the same D instead, so D needs not be
// copyable, and its get_batch must be safe to call from several threads at once.
//   auto shared = datasets::make_shared_dataset<MyDataset>(constructor arguments...);
//   auto loader = data::make_data_loader(shared, data::DataLoaderOptions().workers(4));
//   shared->member_of_my_dataset();
#include <memory>
#include <utility>

#include "nabla/data/datasets/base.h"

namespace nabla::data::datasets {

template <class UnderlyingDataset>
class SharedBatchDataset : public BatchDataset<SharedBatchDataset<UnderlyingDataset>,
                                               typename UnderlyingDataset::BatchType,
                                               typename UnderlyingDataset::BatchRequestType> {
 public:
  using BatchType = typename UnderlyingDataset::BatchType;
  using BatchRequestType = typename UnderlyingDataset::BatchRequestType;

  SharedBatchDataset(std::shared_ptr<UnderlyingDataset> dataset)  // NOLINT: implicit
      : dataset_(std::move(dataset)) {}

  BatchType get_batch(BatchRequestType request) override {
    return dataset_->get_batch(std::move(request));
  }
  optional<size_t> size() const override { return dataset_->size(); }

  /// Resets the shared dataset (stateful datasets: a new epoch).
  void reset() requires requires(UnderlyingDataset& d) { d.reset(); }
  { dataset_->reset(); }

  UnderlyingDataset& operator*() { return *dataset_; }
  const UnderlyingDataset& operator*() const { return *dataset_; }
  UnderlyingDataset* operator->() { return dataset_.get(); }
  const UnderlyingDataset* operator->() const { return dataset_.get(); }

 private:
  std::shared_ptr<UnderlyingDataset> dataset_;
};

/// A SharedBatchDataset over a new UnderlyingDataset built from `args` (in place: the
/// dataset is never copied or moved).
template <class UnderlyingDataset, class... Args>
SharedBatchDataset<UnderlyingDataset> make_shared_dataset(Args&&... args) {
  return std::make_shared<UnderlyingDataset>(std::forward<Args>(args)...);
}

}  // namespace nabla::data::datasets
