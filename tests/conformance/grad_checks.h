#pragma once
// The gradient half of the op table (see OpEntry::grad): LibTorch comparison,
// gradcheck and gradgradcheck of one entry on its float64 samples.
#include <functional>
#include <string>
#include <vector>

#include "conformance.h"

namespace conform {

/// Inputs with more elements than this skip gradcheck (its cost is one forward pass per
/// input element); the LibTorch comparison still runs.
inline constexpr int64_t kGradcheckMaxElems = 200;

/// sum_i (outs_i * g_for(i)) over the floating outputs that require grad; undefined when
/// there are none. Written once for nabla's tensors and LibTorch's.
template <class T, class G>
T weighted_sum(const std::vector<T>& outs, G&& g_for) {
  T loss;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].is_floating_point() || !outs[i].requires_grad()) continue;
    T term = (outs[i] * g_for(i)).sum();
    loss = loss.defined() ? loss + term : term;
  }
  return loss;
}

/// Runs the gradient checks of `e`; `fail(where, what)` reports a difference.
void run_grad_checks(const OpEntry& e,
                     const std::function<void(const std::string&, const std::string&)>& fail);

}  // namespace conform
