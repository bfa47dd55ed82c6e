#pragma once
// Dispatch keys: the names LibTorch gives the steps a call to an operator goes through,
// for the custom operators of nabla/ops/library.h (Note [Custom operator dispatch] there).
// nabla's own ops do not dispatch by key: they record history when grad mode is on. So the
// thread-local key state LibTorch programs read (c10::impl::tls_is_dispatch_key_*) is
// computed from grad mode, InferenceMode and the two guards below, and reports what
// LibTorch's would.
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>

#include "nabla/autograd/grad_mode.h"

namespace nabla {

/// The keys a custom operator's kernels are registered under. Library::impl accepts CPU,
/// CUDA, ADInplaceOrView, Autograd and CompositeImplicitAutograd; the other names exist
/// so that LibTorch code naming them compiles, and registering them raises.
enum class DispatchKey : uint8_t {
  Undefined,
  CPU,
  CUDA,
  BackendSelect,
  ADInplaceOrView,
  AutogradOther,
  AutogradCPU,
  AutogradCUDA,
  Autograd,
  CompositeImplicitAutograd,
  CompositeExplicitAutograd,
  NumKeys,
};

/// LibTorch's spelling of a key ("CPU", "Autograd", ...).
const char* toString(DispatchKey key);
std::string to_string(DispatchKey key);
std::ostream& operator<<(std::ostream& os, DispatchKey key);

/// A set of keys (LibTorch's DispatchKeySet, as far as the TLS queries need one).
class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys) bits_ |= bit(k);
  }
  constexpr bool has(DispatchKey k) const { return (bits_ & bit(k)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from(bits_ & ~o.bits_); }
  constexpr bool operator==(const DispatchKeySet&) const = default;
  constexpr uint32_t raw_repr() const { return bits_; }

 private:
  static constexpr uint32_t bit(DispatchKey k) { return 1u << static_cast<unsigned>(k); }
  static constexpr DispatchKeySet from(uint32_t bits) {
    DispatchKeySet s;
    s.bits_ = bits;
    return s;
  }
  uint32_t bits_ = 0;
};

/// The autograd keys (LibTorch's autograd_dispatch_keyset).
constexpr DispatchKeySet autograd_dispatch_keyset{
    DispatchKey::AutogradCPU, DispatchKey::AutogradCUDA, DispatchKey::AutogradOther,
    DispatchKey::Autograd};
constexpr DispatchKeySet autograd_dispatch_keyset_with_ADInplaceOrView =
    autograd_dispatch_keyset | DispatchKeySet{DispatchKey::ADInplaceOrView};

namespace detail {
/// How far below the autograd steps custom operator calls on this thread start: 0 all
/// steps, 1 below Autograd, 2 below ADInplaceOrView too (set by the guards below).
inline uint8_t& dispatch_below() {
  thread_local uint8_t level = 0;
  return level;
}
}  // namespace detail

namespace impl {
/// Whether this thread's calls skip `key` (LibTorch's TLS excluded set): the autograd keys
/// inside InferenceMode and below-autograd guards, ADInplaceOrView below
/// AutoDispatchBelowADInplaceOrView.
bool tls_is_dispatch_key_excluded(DispatchKey key);
/// Whether `key` is in this thread's included set: ADInplaceOrView outside InferenceMode
/// (LibTorch's default included set), nothing else.
bool tls_is_dispatch_key_included(DispatchKey key);
/// Whether every key of `ks` is excluded / included.
bool tls_is_dispatch_keyset_excluded(DispatchKeySet ks);
bool tls_is_dispatch_keyset_included(DispatchKeySet ks);
}  // namespace impl

/// Runs custom operator calls below the given step for its lifetime, as LibTorch's guards:
/// an Autograd kernel uses one to call the operator's next kernel. nabla's own ops take no
/// keys, so the guard also turns grad mode off: ops inside record nothing (as LibTorch's
/// skip their autograd kernels); GradMode::is_enabled() reads false there, where LibTorch's
/// reads true.
class DispatchBelowGuard {
 public:
  explicit DispatchBelowGuard(uint8_t level) : prev_(detail::dispatch_below()), grad_(false) {
    if (level > prev_) detail::dispatch_below() = level;
  }
  ~DispatchBelowGuard() { detail::dispatch_below() = prev_; }
  DispatchBelowGuard(const DispatchBelowGuard&) = delete;
  DispatchBelowGuard& operator=(const DispatchBelowGuard&) = delete;

 private:
  uint8_t prev_;
  AutoGradMode grad_;
};

struct AutoDispatchBelowAutograd : DispatchBelowGuard {
  AutoDispatchBelowAutograd() : DispatchBelowGuard(1) {}
};
struct AutoDispatchBelowADInplaceOrView : DispatchBelowGuard {
  AutoDispatchBelowADInplaceOrView() : DispatchBelowGuard(2) {}
};

/// LibTorch 1.13's deprecated AutoNonVariableTypeMode: AutoDispatchBelowAutograd that
/// warns once (every time under Warning::WarnAlways) that it is deprecated. For
/// inference-only code use InferenceMode; inside a kernel, AutoDispatchBelowADInplaceOrView.
struct AutoNonVariableTypeMode : DispatchBelowGuard {
  explicit AutoNonVariableTypeMode(bool enabled = true);
};

}  // namespace nabla
