// Printing of the pooling modules, and the modules whose forward is more than the F::
// call: MaxUnpool, FractionalMaxPool (its checks and _random_samples buffer), LPPool.
#include "nabla/nn/modules/pooling.h"

#include <ostream>

namespace nabla::nn {

namespace {

// Sizes print as LibTorch's ExpandingArray: "5" in 1-d, "[5, 5]" otherwise.
template <class O>
void print_window(std::ostream& os, const char* kind, const O& o) {
  os << "nabla::nn::" << kind << "(kernel_size=" << o.kernel_size() << ", stride=" << o.stride()
     << ", padding=" << o.padding();
}

template <class O>
void print_adaptive(std::ostream& os, const char* kind, const O& o) {
  os << "nabla::nn::" << kind << "(output_size=" << o.output_size() << ")";
}

template <class O>
void print_max_pool(std::ostream& os, const char* kind, const O& o) {
  print_window(os, kind, o);
  os << std::boolalpha << ", dilation=" << o.dilation() << ", ceil_mode=" << o.ceil_mode() << ")";
}

}  // namespace

void MaxPool1dImpl::pretty_print(std::ostream& s) const { print_max_pool(s, "MaxPool1d", options); }
void MaxPool2dImpl::pretty_print(std::ostream& s) const { print_max_pool(s, "MaxPool2d", options); }
void MaxPool3dImpl::pretty_print(std::ostream& s) const { print_max_pool(s, "MaxPool3d", options); }
void AvgPool1dImpl::pretty_print(std::ostream& s) const {
  print_window(s, "AvgPool1d", options);
  s << ")";
}
void AvgPool2dImpl::pretty_print(std::ostream& s) const {
  print_window(s, "AvgPool2d", options);
  s << ")";
}
void AvgPool3dImpl::pretty_print(std::ostream& s) const {
  print_window(s, "AvgPool3d", options);
  s << ")";
}
void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveAvgPool1d", options);
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveAvgPool2d", options);
}
void AdaptiveAvgPool3dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveAvgPool3d", options);
}
void AdaptiveMaxPool1dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveMaxPool1d", options);
}
void AdaptiveMaxPool2dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveMaxPool2d", options);
}
void AdaptiveMaxPool3dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveMaxPool3d", options);
}

// ---- MaxUnpool ------------------------------------------------------------------------------

template <size_t D, class Derived>
void MaxUnpoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  print_window(s, D == 1 ? "MaxUnpool1d" : D == 2 ? "MaxUnpool2d" : "MaxUnpool3d", options);
  s << ")";
}

template <size_t D, class Derived>
Tensor MaxUnpoolImpl<D, Derived>::forward(const Tensor& input, const Tensor& indices,
                                          const optional<std::vector<int64_t>>& output_size) {
  auto o = functional::MaxUnpoolFuncOptions<D>(options.kernel_size())
               .stride(options.stride())
               .padding(options.padding())
               .output_size(output_size);
  if constexpr (D == 1) {
    return functional::max_unpool1d(input, indices, o);
  } else if constexpr (D == 2) {
    return functional::max_unpool2d(input, indices, o);
  } else {
    return functional::max_unpool3d(input, indices, o);
  }
}

template class MaxUnpoolImpl<1, MaxUnpool1dImpl>;
template class MaxUnpoolImpl<2, MaxUnpool2dImpl>;
template class MaxUnpoolImpl<3, MaxUnpool3dImpl>;

// ---- FractionalMaxPool ----------------------------------------------------------------------

template <size_t D, class Derived>
void FractionalMaxPoolImpl<D, Derived>::reset() {
  const char* name = D == 2 ? "FractionalMaxPool2d" : "FractionalMaxPool3d";
  _random_samples = this->register_buffer("_random_samples", options._random_samples());
  NABLA_CHECK(options.output_size() || options.output_ratio(), name,
              " requires specifying either an output size, or a pooling ratio");
  NABLA_CHECK(!(options.output_size() && options.output_ratio()), name,
              ": only one of output size and output ratio may be specified");
  if (const auto& ratio = options.output_ratio()) {
    for (size_t d = 0; d < D; ++d)
      NABLA_CHECK(0 < (*ratio)[d] && (*ratio)[d] < 1, name,
                  ": output_ratio must be between 0 and 1 (got ", ratio->ref(), ")");
  }
}

template <size_t D, class Derived>
void FractionalMaxPoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "nabla::nn::" << (D == 2 ? "FractionalMaxPool2d" : "FractionalMaxPool3d") << "()";
}

template <size_t D, class Derived>
std::tuple<Tensor, Tensor> FractionalMaxPoolImpl<D, Derived>::forward_with_indices(
    const Tensor& input) {
  FractionalMaxPoolOptions<D> o = options;
  o._random_samples(_random_samples);
  if constexpr (D == 2) {
    return functional::fractional_max_pool2d_with_indices(input, o);
  } else {
    return functional::fractional_max_pool3d_with_indices(input, o);
  }
}

template <size_t D, class Derived>
Tensor FractionalMaxPoolImpl<D, Derived>::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}

template class FractionalMaxPoolImpl<2, FractionalMaxPool2dImpl>;
template class FractionalMaxPoolImpl<3, FractionalMaxPool3dImpl>;

// ---- LPPool ---------------------------------------------------------------------------------

template <size_t D, class Derived>
void LPPoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << std::boolalpha << "nabla::nn::" << (D == 1 ? "LPPool1d" : "LPPool2d")
    << "(norm_type=" << options.norm_type() << ", kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride() << ", ceil_mode=" << options.ceil_mode() << ")";
}

template <size_t D, class Derived>
Tensor LPPoolImpl<D, Derived>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return functional::lp_pool1d(input, options);
  } else {
    return functional::lp_pool2d(input, options);
  }
}

template class LPPoolImpl<1, LPPool1dImpl>;
template class LPPoolImpl<2, LPPool2dImpl>;

}  // namespace nabla::nn
