#pragma once
// Transforms, as torch::data::transforms. A BatchTransform maps a whole batch; a
// Transform maps each example of a vector batch. Lambda and BatchLambda wrap a function;
// Collation / Collate reduce a batch to one value; TensorTransform / TensorLambda change
// each example's data tensor and keep its target; Normalize is (x - mean) / std per
// channel; Stack turns a vector of examples into one batched example.
#include <functional>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/data/example.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::data::transforms {

template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// A transform that reduces a batch of T to one value (LibTorch's Collation).
template <class T, class BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

/// Applies apply() to every example of a batch.
template <class Input, class Output = Input>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  virtual Output apply(Input input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> batch) override {
    std::vector<Output> out;
    out.reserve(batch.size());
    for (auto& e : batch) out.push_back(apply(std::move(e)));
    return out;
  }
};

template <class Input, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  explicit Lambda(std::function<Output(Input)> fn) : fn_(std::move(fn)) {}
  Output apply(Input input) override { return fn_(std::move(input)); }

 private:
  std::function<Output(Input)> fn_;
};

template <class InputBatch, class OutputBatch = InputBatch>
class BatchLambda : public BatchTransform<InputBatch, OutputBatch> {
 public:
  explicit BatchLambda(std::function<OutputBatch(InputBatch)> fn) : fn_(std::move(fn)) {}
  OutputBatch apply_batch(InputBatch batch) override { return fn_(std::move(batch)); }

 private:
  std::function<OutputBatch(InputBatch)> fn_;
};

/// A function that reduces a batch of T to one value (LibTorch's Collate).
template <class T, class BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

/// Transforms the data tensor of each example, keeping the target.
template <class Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  virtual Tensor operator()(Tensor input) = 0;
  Example<Tensor, Target> apply(Example<Tensor, Target> e) override {
    return {(*this)(std::move(e.data)), std::move(e.target)};
  }
};

/// A TensorTransform calling a function on each example's data.
template <class Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType fn) : fn_(std::move(fn)) {}
  Tensor operator()(Tensor input) override { return fn_(std::move(input)); }

 private:
  FunctionType fn_;
};

/// (x - mean) / stddev per channel (dim 0 of each example; one value for all channels).
/// The moments are float tensors of shape [channels, 1, 1], public as in LibTorch.
template <class Target = Tensor>
class Normalize : public TensorTransform<Target> {
 public:
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(moments(mean, "mean")), stddev(moments(stddev, "stddev")) {}
  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }
  Tensor mean, stddev;

 private:
  static Tensor moments(ArrayRef<double> values, const char* what) {
    NABLA_CHECK(!values.empty(), "Normalize: ", what, " needs at least one value, got none");
    return tensor(std::vector<double>(values.begin(), values.end()), kFloat).view({-1, 1, 1});
  }
};

template <class E = Example<>>
struct Stack;

/// Stacks data and targets along a new first dimension.
template <>
struct Stack<Example<>> : BatchTransform<std::vector<Example<>>, Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {stack(data), stack(targets)};
  }
};

/// Stacks the data of target-less examples along a new first dimension.
template <>
struct Stack<TensorExample> : BatchTransform<std::vector<TensorExample>, TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& e : examples) data.push_back(std::move(e.data));
    return stack(data);
  }
};

}  // namespace nabla::data::transforms
