#include "nabla/autograd/dispatch_key.h"

#include <ostream>

#include "nabla/core/warning.h"

namespace nabla {

const char* toString(DispatchKey key) {
  switch (key) {
    case DispatchKey::Undefined:
      return "Undefined";
    case DispatchKey::CPU:
      return "CPU";
    case DispatchKey::CUDA:
      return "CUDA";
    case DispatchKey::BackendSelect:
      return "BackendSelect";
    case DispatchKey::ADInplaceOrView:
      return "ADInplaceOrView";
    case DispatchKey::AutogradOther:
      return "AutogradOther";
    case DispatchKey::AutogradCPU:
      return "AutogradCPU";
    case DispatchKey::AutogradCUDA:
      return "AutogradCUDA";
    case DispatchKey::Autograd:
      return "Autograd";
    case DispatchKey::CompositeImplicitAutograd:
      return "CompositeImplicitAutograd";
    case DispatchKey::CompositeExplicitAutograd:
      return "CompositeExplicitAutograd";
    case DispatchKey::NumKeys:
      break;
  }
  return "Unknown";
}

std::string to_string(DispatchKey key) { return toString(key); }

std::ostream& operator<<(std::ostream& os, DispatchKey key) { return os << toString(key); }

namespace impl {

// LibTorch's thread-local sets, derived: InferenceMode excludes the autograd keys and
// takes ADInplaceOrView out of the included set (which holds it by default); the guards
// of dispatch_key.h exclude the autograd keys, and ADInplaceOrView at level 2.
bool tls_is_dispatch_key_excluded(DispatchKey key) {
  if (autograd_dispatch_keyset.has(key))
    return InferenceMode::is_enabled() || detail::dispatch_below() >= 1;
  if (key == DispatchKey::ADInplaceOrView) return detail::dispatch_below() >= 2;
  return false;
}

bool tls_is_dispatch_key_included(DispatchKey key) {
  return key == DispatchKey::ADInplaceOrView && !InferenceMode::is_enabled();
}

bool tls_is_dispatch_keyset_excluded(DispatchKeySet ks) {
  for (unsigned k = 0; k < static_cast<unsigned>(DispatchKey::NumKeys); ++k)
    if (ks.has(static_cast<DispatchKey>(k)) &&
        !tls_is_dispatch_key_excluded(static_cast<DispatchKey>(k)))
      return false;
  return !ks.empty();
}

bool tls_is_dispatch_keyset_included(DispatchKeySet ks) {
  for (unsigned k = 0; k < static_cast<unsigned>(DispatchKey::NumKeys); ++k)
    if (ks.has(static_cast<DispatchKey>(k)) &&
        !tls_is_dispatch_key_included(static_cast<DispatchKey>(k)))
      return false;
  return !ks.empty();
}

}  // namespace impl

AutoNonVariableTypeMode::AutoNonVariableTypeMode(bool enabled) : DispatchBelowGuard(1) {
  NABLA_WARN_ONCE(
      "AutoNonVariableTypeMode is deprecated: for an inference-only workload use "
      "nabla::InferenceMode, and inside a kernel AutoDispatchBelowADInplaceOrView (in user "
      "code, either below-autograd guard can give silently wrong gradients).");
  NABLA_CHECK(enabled, "AutoNonVariableTypeMode: only AutoNonVariableTypeMode(true) exists");
}

}  // namespace nabla
