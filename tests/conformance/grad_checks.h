#pragma once
// The gradient half of the op table (see OpEntry::grad): LibTorch comparison,
// gradcheck and gradgradcheck of one entry on its float64 samples.
#include <functional>
#include <string>

#include "conformance.h"

namespace conform {

/// Inputs with more elements than this skip gradcheck (its cost is one forward pass per
/// input element); the LibTorch comparison still runs.
inline constexpr int64_t kGradcheckMaxElems = 200;

/// Runs the gradient checks of `e`; `fail(where, what)` reports a difference.
void run_grad_checks(const OpEntry& e,
                     const std::function<void(const std::string&, const std::string&)>& fail);

}  // namespace conform
