// The ops of the 16-bit families without a 16-bit kernel (through_float32.h).
#include "ops/registry/through_float32.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <type_traits>

namespace nabla::ops::detail {

namespace {

// Sorted. Data movement (cat, flip, index_select, ...) could move 16-bit elements as they
// are; until their kernels do, they go through float32 like the rest, exactly (a 16-bit
// value survives the round trip). The moments, norms and logsumexp would otherwise round
// (and in Half overflow) at each of their steps.
constexpr std::array<std::string_view, 43> kNames = {
    "argmax",       "argmin",      "argsort",        "cat",           "constant_pad_nd",
    "cummax",       "cummin",      "cumprod",        "cumsum",        "dist",
    "flip",         "gather",      "index_add",      "index_copy",    "index_fill",
    "index_select", "kthvalue",    "log_softmax",    "logcumsumexp",  "logit",
    "logsumexp",    "masked_fill", "masked_scatter", "masked_select", "max",
    "min",          "norm",        "repeat",         "roll",          "scatter",
    "scatter_add",  "sinc",        "softmax",        "softmin",       "softsign",
    "sort",         "std",         "std_mean",       "topk",          "tril",
    "triu",         "var",         "var_mean"};

}  // namespace

bool computes_through_float32(std::string_view name) {
  static_assert(std::is_sorted(kNames.begin(), kNames.end()));
  return std::binary_search(kNames.begin(), kNames.end(), name);
}

}  // namespace nabla::ops::detail
