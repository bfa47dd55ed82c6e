// Op-table entries for the softmax family and the activations: every dim, non-contiguous
// inputs, empty batches, logits of ±1e4, values and gradients (float64, against LibTorch
// and finite differences).
#include "conformance.h"

namespace conform {
namespace {

// 1-d to 3-d inputs, transposed and strided layouts, an empty batch, one wide row.
Gen softmax_samples(Dom dom = kWide) {
  return layouts({{{{5}, Layout::Contiguous}},
                  {{{3, 4}, Layout::Contiguous}},
                  {{{2, 3, 4}, Layout::Contiguous}},
                  {{{4, 3}, Layout::Transposed}},
                  {{{3, 5}, Layout::Strided}},
                  {{{0, 3}, Layout::Contiguous}},
                  {{{2, 40}, Layout::Contiguous}}},
                 dom);
}

std::vector<OpEntry> softmax_entries(const std::string& g) {
  std::vector<OpEntry> out;
  const Opt o = Opt().tol32(1e-5, 1e-6).gradgrad();
  out.push_back(op(g, "softmax_last", softmax_samples(), [](const auto& x) { return softmax(x[0], -1); }, o));
  out.push_back(op(g, "softmax_dim0", softmax_samples(), [](const auto& x) { return softmax(x[0], 0); }, o));
  out.push_back(op(g, "log_softmax_last", softmax_samples(), [](const auto& x) { return log_softmax(x[0], -1); }, o));
  out.push_back(op(g, "log_softmax_dim0", softmax_samples(), [](const auto& x) { return log_softmax(x[0], 0); }, o));
  out.push_back(op(g, "softmax_method", fixed({{{2, 3, 4}}}), [](const auto& x) { return x[0].softmax(1); }, o));
  out.push_back(op(g, "log_softmax_method", fixed({{{2, 3, 4}}}), [](const auto& x) { return x[0].log_softmax(1); }, o));
  out.push_back(op(g, "softmax_dtype", fixed({{{3, 4}}}),
                   [](const auto& x) { return softmax(x[0], 1, dtype_for(x[0], nabla::kDouble)); }, o));
  out.push_back(op(g, "log_softmax_0d", fixed({{{}}}), [](const auto& x) { return log_softmax(x[0], 0); }, o));
  // Stability: logits of ±1e4 give finite values and gradients.
  const Opt big = Opt().tol32(1e-5, 1e-3).grad();
  out.push_back(op(g, "softmax_extreme", softmax_samples({-1e4, 1e4}), [](const auto& x) { return softmax(x[0], 1 % std::max<int64_t>(x[0].dim(), 1)); }, big));
  out.push_back(op(g, "log_softmax_extreme", softmax_samples({-1e4, 1e4}), [](const auto& x) { return log_softmax(x[0], -1); }, big));
  out.push_back(op(g, "softmax_bad_dim", fixed({{{2, 3}}}), [](const auto& x) { return softmax(x[0], 2); }, Opt().throws("softmax")));
  return out;
}

std::vector<OpEntry> activation_entries() {
  const std::string g = "nn_activation";
  std::vector<OpEntry> out = softmax_entries(g);
  return out;
}

const bool registered = add_entries(activation_entries());

}  // namespace
}  // namespace conform
