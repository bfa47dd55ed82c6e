#pragma once
// Fold and Unfold modules (torch::nn): col2im and im2col over F::fold / F::unfold.
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional/conv.h"

namespace nabla::nn {

using UnfoldOptions = functional::UnfoldFuncOptions;
using FoldOptions = functional::FoldFuncOptions;

class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : options(kernel_size) {}
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::unfold(input, options); }
  UnfoldOptions options;
};
NABLA_MODULE(Unfold);

class FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : options(output_size, kernel_size) {}
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::fold(input, options); }
  FoldOptions options;
};
NABLA_MODULE(Fold);

}  // namespace nabla::nn
