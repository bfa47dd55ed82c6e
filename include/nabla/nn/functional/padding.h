#pragma once
// F::pad, as torch::nn::functional::pad:
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 2}).mode(nabla::kReflect));
// `pad` holds (left, right) of the last dim, then of the one before, ...
#include <variant>
#include <vector>

#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"
#include "nabla/ops/padding.h"

namespace nabla::nn::functional {

struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                              enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  NABLA_ARG(std::vector<int64_t>, pad);
  NABLA_ARG(mode_t, mode) = enumtype::kConstant{};
  NABLA_ARG(double, value) = 0;
};

Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace nabla::nn::functional
