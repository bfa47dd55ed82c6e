#pragma once
// Datasets over tensors held in memory.
#include <cstddef>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/data/datasets/base.h"

namespace nabla::data::datasets {

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
