#pragma once
// Pooling modules (torch::nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, MaxUnpool2d,
// FractionalMaxPool2d, LPPool2d, ...): their options are the F:: ones
// (nabla/nn/functional/pooling.h). Max pooling modules also give the arg-max positions
// (forward_with_indices), which MaxUnpool modules take back.
#include <optional>
#include <tuple>
#include <vector>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/pooling.h"
#include "nabla/nn/modules/container/any.h"

namespace nabla::nn {

// A pooling module: built from its options, or from their leading argument (the kernel
// size, or the output size of adaptive pooling) as LibTorch's: nn::MaxPool2d(2).
#define NABLA_POOL_MODULE(Name, Size, Options, call)                                 \
  class Name##Impl : public Cloneable<Name##Impl> {                                  \
   public:                                                                           \
    Name##Impl(Size size) : options(size) {}                                         \
    explicit Name##Impl(const Options& options) : options(options) {}                \
    void reset() override {}                                                         \
    void pretty_print(std::ostream& stream) const override;                          \
    Tensor forward(const Tensor& input) { return functional::call(input, options); } \
    Options options;                                                                 \
  };                                                                                 \
  NABLA_MODULE(Name)

// The same, whose forward_with_indices also returns the int64 positions of each maximum in
// its input plane (what MaxUnpool takes).
#define NABLA_MAX_POOL_MODULE(Name, Size, Options, call)                             \
  class Name##Impl : public Cloneable<Name##Impl> {                                  \
   public:                                                                           \
    Name##Impl(Size size) : options(size) {}                                         \
    explicit Name##Impl(const Options& options) : options(options) {}                \
    void reset() override {}                                                         \
    void pretty_print(std::ostream& stream) const override;                          \
    Tensor forward(const Tensor& input) { return functional::call(input, options); } \
    std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) {           \
      return functional::call##_with_indices(input, options);                        \
    }                                                                                \
    Options options;                                                                 \
  };                                                                                 \
  NABLA_MODULE(Name)

NABLA_MAX_POOL_MODULE(MaxPool1d, ExpandingArray<1>, MaxPool1dOptions, max_pool1d);
NABLA_MAX_POOL_MODULE(MaxPool2d, ExpandingArray<2>, MaxPool2dOptions, max_pool2d);
NABLA_MAX_POOL_MODULE(MaxPool3d, ExpandingArray<3>, MaxPool3dOptions, max_pool3d);
NABLA_POOL_MODULE(AvgPool1d, ExpandingArray<1>, AvgPool1dOptions, avg_pool1d);
NABLA_POOL_MODULE(AvgPool2d, ExpandingArray<2>, AvgPool2dOptions, avg_pool2d);
NABLA_POOL_MODULE(AvgPool3d, ExpandingArray<3>, AvgPool3dOptions, avg_pool3d);
NABLA_POOL_MODULE(AdaptiveAvgPool1d, ExpandingArray<1>, AdaptiveAvgPool1dOptions,
                  adaptive_avg_pool1d);
NABLA_POOL_MODULE(AdaptiveAvgPool2d, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dOptions,
                  adaptive_avg_pool2d);
NABLA_POOL_MODULE(AdaptiveAvgPool3d, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dOptions,
                  adaptive_avg_pool3d);
NABLA_MAX_POOL_MODULE(AdaptiveMaxPool1d, ExpandingArray<1>, AdaptiveMaxPool1dOptions,
                      adaptive_max_pool1d);
NABLA_MAX_POOL_MODULE(AdaptiveMaxPool2d, ExpandingArrayWithOptionalElem<2>,
                      AdaptiveMaxPool2dOptions, adaptive_max_pool2d);
NABLA_MAX_POOL_MODULE(AdaptiveMaxPool3d, ExpandingArrayWithOptionalElem<3>,
                      AdaptiveMaxPool3dOptions, adaptive_max_pool3d);
#undef NABLA_POOL_MODULE
#undef NABLA_MAX_POOL_MODULE

/// MaxUnpool{1,2,3}d: forward(input, indices, output_size) puts each input value at its
/// index in a zero output; output_size (the spatial sizes, or the whole shape) picks among
/// the sizes pooling maps to the input's, by default the smallest.
template <size_t D, class Derived>
class MaxUnpoolImpl : public Cloneable<Derived> {
 public:
  MaxUnpoolImpl(ExpandingArray<D> kernel_size)  // NOLINT: implicit, as LibTorch
      : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const optional<std::vector<int64_t>>& output_size = nullopt);
  MaxUnpoolOptions<D> options;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(optional<std::vector<int64_t>>(nullopt))})
};

class MaxUnpool1dImpl : public MaxUnpoolImpl<1, MaxUnpool1dImpl> {
 public:
  using MaxUnpoolImpl<1, MaxUnpool1dImpl>::MaxUnpoolImpl;
};
NABLA_MODULE(MaxUnpool1d);
class MaxUnpool2dImpl : public MaxUnpoolImpl<2, MaxUnpool2dImpl> {
 public:
  using MaxUnpoolImpl<2, MaxUnpool2dImpl>::MaxUnpoolImpl;
};
NABLA_MODULE(MaxUnpool2d);
class MaxUnpool3dImpl : public MaxUnpoolImpl<3, MaxUnpool3dImpl> {
 public:
  using MaxUnpoolImpl<3, MaxUnpool3dImpl>::MaxUnpoolImpl;
};
NABLA_MODULE(MaxUnpool3d);

/// FractionalMaxPool{2,3}d: options need output_size or output_ratio (not both; a ratio in
/// (0, 1)). The _random_samples option, a buffer of that name, fixes the windows; undefined,
/// each forward draws new ones from the default generator.
template <size_t D, class Derived>
class FractionalMaxPoolImpl : public Cloneable<Derived> {
 public:
  FractionalMaxPoolImpl(ExpandingArray<D> kernel_size)  // NOLINT: implicit, as LibTorch
      : FractionalMaxPoolImpl(FractionalMaxPoolOptions<D>(kernel_size)) {}
  explicit FractionalMaxPoolImpl(FractionalMaxPoolOptions<D> options)
      : options(std::move(options)) {
    reset();
  }
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPoolOptions<D> options;
  Tensor _random_samples;
};

class FractionalMaxPool2dImpl : public FractionalMaxPoolImpl<2, FractionalMaxPool2dImpl> {
 public:
  using FractionalMaxPoolImpl<2, FractionalMaxPool2dImpl>::FractionalMaxPoolImpl;
};
NABLA_MODULE(FractionalMaxPool2d);
class FractionalMaxPool3dImpl : public FractionalMaxPoolImpl<3, FractionalMaxPool3dImpl> {
 public:
  using FractionalMaxPoolImpl<3, FractionalMaxPool3dImpl>::FractionalMaxPoolImpl;
};
NABLA_MODULE(FractionalMaxPool3d);

/// LPPool{1,2}d: power-average pooling, (sum over each window of x^p)^(1/p).
template <size_t D, class Derived>
class LPPoolImpl : public Cloneable<Derived> {
 public:
  LPPoolImpl(double norm_type, ExpandingArray<D> kernel_size)
      : LPPoolImpl(LPPoolOptions<D>(norm_type, kernel_size)) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LPPoolOptions<D> options;
};

class LPPool1dImpl : public LPPoolImpl<1, LPPool1dImpl> {
 public:
  using LPPoolImpl<1, LPPool1dImpl>::LPPoolImpl;
};
NABLA_MODULE(LPPool1d);
class LPPool2dImpl : public LPPoolImpl<2, LPPool2dImpl> {
 public:
  using LPPoolImpl<2, LPPool2dImpl>::LPPoolImpl;
};
NABLA_MODULE(LPPool2d);

}  // namespace nabla::nn
