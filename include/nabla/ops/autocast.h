#pragma once
// Autocast (docs/amp.md; Note [Autocast], src/ops/autocast/autocast.cpp): inside an
// enabled region, the ops on LibTorch's lists take their floating tensors in a lower
// precision (matmul, linear, convolutions: bfloat16 on the CPU by default), in float32
// (losses, norms, reductions that lose precision), or promoted to the widest floating
// dtype among them (cat, stack). The state is per thread, as in LibTorch:
//
//   nabla::autocast::AutocastGuard amp(nabla::kCPU, nabla::kBFloat16);
//   auto y = model->forward(x);   // linear/conv in bfloat16, losses in float32
//   auto loss = nabla::nn::functional::cross_entropy(y, target);
//   // leave the region, then loss.backward(): float32 parameters get float32 gradients
#include "nabla/core/device.h"
#include "nabla/core/optional.h"
#include "nabla/core/scalar_type.h"

namespace nabla::autocast {

/// The CPU region (LibTorch's at::autocast::{is,set}_cpu_enabled).
bool is_cpu_enabled();
void set_cpu_enabled(bool enabled);
/// The GPU region (at::autocast::{is,set}_enabled): casts CUDA tensors.
bool is_enabled();
void set_enabled(bool enabled);
/// The lower precision of each region: kBFloat16 on the CPU, kHalf on a GPU by default.
/// The CPU takes bfloat16 only (as LibTorch 1.13); a GPU kHalf or kBFloat16.
ScalarType get_autocast_cpu_dtype();
void set_autocast_cpu_dtype(ScalarType dtype);
ScalarType get_autocast_gpu_dtype();
void set_autocast_gpu_dtype(ScalarType dtype);
/// Casts of leaf tensors that require grad (weights) are kept for reuse until the
/// outermost region ends (clear_cache) while the cache is enabled (the default).
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
void clear_cache();
/// Region nesting, as LibTorch counts it: the cache is cleared when it returns to 0.
int increment_nesting();
int decrement_nesting();

/// An autocast region for `device_type` (torch.autocast in Python): enables it with
/// `dtype` (the device's default when nullopt) for its lifetime, then restores the
/// previous state; leaving the outermost region clears the cache.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType device_type, optional<ScalarType> dtype = nullopt,
                         bool enabled = true, optional<bool> cache_enabled = nullopt);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool cuda_;
  bool prev_enabled_, prev_cache_;
  ScalarType prev_dtype_;
};

namespace detail {
/// Whether an op must consult autocast: a region is enabled and no autocast call is
/// running on this thread (the op inside it computes on what autocast gave it). Constant-
/// initialized here, so reading it costs a load, not a call (every op reads it).
inline thread_local bool t_active = false;
inline bool active() { return t_active; }
}  // namespace detail

}  // namespace nabla::autocast
