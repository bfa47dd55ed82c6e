#pragma once
// Pooling modules (torch::nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, ...): their
// options are the F:: ones (nabla/nn/functional/pooling.h).
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/pooling.h"

namespace nabla::nn {

#define NABLA_POOL_MODULE(Name, Options, call, Printed)                                     \
  class Name##Impl : public Cloneable<Name##Impl> {                                         \
   public:                                                                                  \
    explicit Name##Impl(const Options& options) : options(options) {}                       \
    void reset() override {}                                                                \
    void pretty_print(std::ostream& stream) const override;                                \
    Tensor forward(const Tensor& input) { return functional::call(input, options); }        \
    Options options;                                                                        \
  };                                                                                        \
  NABLA_MODULE(Name)

NABLA_POOL_MODULE(MaxPool1d, MaxPool1dOptions, max_pool1d, "MaxPool1d");
NABLA_POOL_MODULE(MaxPool2d, MaxPool2dOptions, max_pool2d, "MaxPool2d");
NABLA_POOL_MODULE(AvgPool1d, AvgPool1dOptions, avg_pool1d, "AvgPool1d");
NABLA_POOL_MODULE(AvgPool2d, AvgPool2dOptions, avg_pool2d, "AvgPool2d");
NABLA_POOL_MODULE(AdaptiveAvgPool1d, AdaptiveAvgPool1dOptions, adaptive_avg_pool1d, "AdaptiveAvgPool1d");
NABLA_POOL_MODULE(AdaptiveAvgPool2d, AdaptiveAvgPool2dOptions, adaptive_avg_pool2d, "AdaptiveAvgPool2d");
NABLA_POOL_MODULE(AdaptiveMaxPool2d, AdaptiveMaxPool2dOptions, adaptive_max_pool2d, "AdaptiveMaxPool2d");
#undef NABLA_POOL_MODULE

}  // namespace nabla::nn
