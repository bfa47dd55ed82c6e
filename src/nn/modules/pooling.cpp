// Printing of the pooling modules.
#include "nabla/nn/modules/pooling.h"

#include <ostream>

namespace nabla::nn {

namespace {

template <size_t D>
void print(std::ostream& os, const char* name, const ExpandingArray<D>& a) {
  os << name << "=[";
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << a[i];
  os << "]";
}

template <class O>
void print_window(std::ostream& os, const char* kind, const O& o) {
  os << "nabla::nn::" << kind << "(";
  print(os, "kernel_size", o.kernel_size());
  os << ", ";
  print(os, "stride", o.stride());
  os << ", ";
  print(os, "padding", o.padding());
  os << ")";
}

template <class O>
void print_adaptive(std::ostream& os, const char* kind, const O& o) {
  os << "nabla::nn::" << kind << "(";
  print(os, "output_size", o.output_size());
  os << ")";
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
