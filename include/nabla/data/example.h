#pragma once
// Example<Data, Target>: one training pair (or a batch of them), as torch::data::Example.
#include "nabla/core/tensor.h"

namespace nabla::data {

template <class Data = Tensor, class Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;
  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};

}  // namespace nabla::data
