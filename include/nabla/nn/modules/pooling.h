#pragma once
// Pooling modules (torch::nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, ...): their
// options are the F:: ones (nabla/nn/functional/pooling.h).
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/pooling.h"

namespace nabla::nn {

// A pooling module: built from its options, or from their leading argument (the kernel
// size, or the output size of adaptive pooling) as LibTorch's: nn::MaxPool2d(2).
#define NABLA_POOL_MODULE(Name, D, Options, call)                                    \
  class Name##Impl : public Cloneable<Name##Impl> {                                  \
   public:                                                                           \
    Name##Impl(ExpandingArray<D> size) : options(size) {}                            \
    explicit Name##Impl(const Options& options) : options(options) {}                \
    void reset() override {}                                                         \
    void pretty_print(std::ostream& stream) const override;                          \
    Tensor forward(const Tensor& input) { return functional::call(input, options); } \
    Options options;                                                                 \
  };                                                                                 \
  NABLA_MODULE(Name)

NABLA_POOL_MODULE(MaxPool1d, 1, MaxPool1dOptions, max_pool1d);
NABLA_POOL_MODULE(MaxPool2d, 2, MaxPool2dOptions, max_pool2d);
NABLA_POOL_MODULE(AvgPool1d, 1, AvgPool1dOptions, avg_pool1d);
NABLA_POOL_MODULE(AvgPool2d, 2, AvgPool2dOptions, avg_pool2d);
NABLA_POOL_MODULE(AdaptiveAvgPool1d, 1, AdaptiveAvgPool1dOptions, adaptive_avg_pool1d);
NABLA_POOL_MODULE(AdaptiveAvgPool2d, 2, AdaptiveAvgPool2dOptions, adaptive_avg_pool2d);
NABLA_POOL_MODULE(AdaptiveMaxPool2d, 2, AdaptiveMaxPool2dOptions, adaptive_max_pool2d);
#undef NABLA_POOL_MODULE

}  // namespace nabla::nn
