// Printing of the pooling modules.
#include "nabla/nn/modules/pooling.h"

#include <ostream>

namespace nabla::nn {

namespace {

// Sizes print as LibTorch's lists, "[2, 2]" (operator<< of IntArrayRef).
template <class O>
void print_window(std::ostream& os, const char* kind, const O& o) {
  os << "nabla::nn::" << kind << "(kernel_size=" << o.kernel_size().ref()
     << ", stride=" << o.stride().ref() << ", padding=" << o.padding().ref() << ")";
}

template <class O>
void print_adaptive(std::ostream& os, const char* kind, const O& o) {
  os << "nabla::nn::" << kind << "(output_size=" << o.output_size().ref() << ")";
}

}  // namespace

void MaxPool1dImpl::pretty_print(std::ostream& s) const { print_window(s, "MaxPool1d", options); }
void MaxPool2dImpl::pretty_print(std::ostream& s) const { print_window(s, "MaxPool2d", options); }
void AvgPool1dImpl::pretty_print(std::ostream& s) const { print_window(s, "AvgPool1d", options); }
void AvgPool2dImpl::pretty_print(std::ostream& s) const { print_window(s, "AvgPool2d", options); }
void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveAvgPool1d", options);
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveAvgPool2d", options);
}
void AdaptiveMaxPool2dImpl::pretty_print(std::ostream& s) const {
  print_adaptive(s, "AdaptiveMaxPool2d", options);
}

}  // namespace nabla::nn
