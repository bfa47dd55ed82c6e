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

/// The target type of an example that has none (LibTorch's example::NoTarget).
namespace example {
using NoTarget = void;
}

/// An example with data only: Example<Tensor, example::NoTarget>, LibTorch's TensorExample.
template <class Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;
  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT: implicit, as LibTorch's
  operator Data&() { return data; }
  operator const Data&() const { return data; }
  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace nabla::data
