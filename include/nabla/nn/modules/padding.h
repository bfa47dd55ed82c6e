#pragma once
// Padding modules (torch::nn::ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, ZeroPad2d,
// ConstantPad1d/2d/3d): each holds its padding ((left, right) of the last dim, then of the
// one before, ...) and calls F::pad.
// Built from the options or from their arguments: nn::ReflectionPad2d(1),
// nn::ConstantPad1d(2, 3.5).
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/padding.h"
#include "nabla/nn/options/expanding_array.h"

namespace nabla::nn {

template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  NABLA_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  NABLA_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value)
      : padding_(padding), value_(value) {}
  NABLA_ARG(ExpandingArray<D * 2>, padding);
  NABLA_ARG(double, value);
};
struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  NABLA_ARG(ExpandingArray<4>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

namespace detail {
/// One padding module: `Options` holds the padding, `mode` is F::pad's.
template <class Derived, class Options, class Mode>
class PadImpl : public Cloneable<Derived> {
 public:
  explicit PadImpl(const Options& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    functional::PadFuncOptions o(options.padding().vec());
    o.mode(Mode{});
    if constexpr (requires { options.value(); }) o.value(options.value());
    return functional::pad(input, o);
  }
  Options options;
};
void print_padding(std::ostream& stream, const char* name, ArrayRef<int64_t> padding,
                   const double* value);
template <class Derived, class Options, class Mode>
void PadImpl<Derived, Options, Mode>::pretty_print(std::ostream& stream) const {
  // Only the ConstantPad modules print their value (ZeroPad2d's is always 0), as LibTorch.
  double value = 0;
  bool has_value = false;
  if constexpr (requires { options.value(); }) {
    value = options.value();
    has_value = true;
  }
  print_padding(stream, Derived::kName, options.padding().ref(), has_value ? &value : nullptr);
}
}  // namespace detail

#define NABLA_PAD_MODULE(Name, Options, Mode, Arg)                                            \
  class Name##Impl : public detail::PadImpl<Name##Impl, Options, Mode> {                      \
   public:                                                                                    \
    static constexpr const char* kName = #Name;                                               \
    using detail::PadImpl<Name##Impl, Options, Mode>::PadImpl;                                \
    Name##Impl(Arg padding) : detail::PadImpl<Name##Impl, Options, Mode>(Options(padding)) {} \
  };                                                                                          \
  NABLA_MODULE(Name)

NABLA_PAD_MODULE(ReflectionPad1d, ReflectionPad1dOptions, enumtype::kReflect, ExpandingArray<2>);
NABLA_PAD_MODULE(ReflectionPad2d, ReflectionPad2dOptions, enumtype::kReflect, ExpandingArray<4>);
NABLA_PAD_MODULE(ReflectionPad3d, ReflectionPad3dOptions, enumtype::kReflect, ExpandingArray<6>);
NABLA_PAD_MODULE(ReplicationPad1d, ReplicationPad1dOptions, enumtype::kReplicate,
                 ExpandingArray<2>);
NABLA_PAD_MODULE(ReplicationPad2d, ReplicationPad2dOptions, enumtype::kReplicate,
                 ExpandingArray<4>);
NABLA_PAD_MODULE(ReplicationPad3d, ReplicationPad3dOptions, enumtype::kReplicate,
                 ExpandingArray<6>);
NABLA_PAD_MODULE(ZeroPad2d, ZeroPad2dOptions, enumtype::kConstant, ExpandingArray<4>);
#undef NABLA_PAD_MODULE

#define NABLA_CONSTANT_PAD_MODULE(Name, D)                                                  \
  class Name##Impl                                                                          \
      : public detail::PadImpl<Name##Impl, ConstantPadOptions<D>, enumtype::kConstant> {    \
   public:                                                                                  \
    static constexpr const char* kName = #Name;                                             \
    using detail::PadImpl<Name##Impl, ConstantPadOptions<D>, enumtype::kConstant>::PadImpl; \
    Name##Impl(ExpandingArray<D * 2> padding, double value)                                 \
        : detail::PadImpl<Name##Impl, ConstantPadOptions<D>, enumtype::kConstant>(          \
              ConstantPadOptions<D>(padding, value)) {}                                     \
  };                                                                                        \
  NABLA_MODULE(Name)

NABLA_CONSTANT_PAD_MODULE(ConstantPad1d, 1);
NABLA_CONSTANT_PAD_MODULE(ConstantPad2d, 2);
NABLA_CONSTANT_PAD_MODULE(ConstantPad3d, 3);
#undef NABLA_CONSTANT_PAD_MODULE

}  // namespace nabla::nn
