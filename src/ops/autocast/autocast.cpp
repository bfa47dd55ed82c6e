// Note [Autocast]
// A region (AutocastGuard, set_cpu_enabled) makes every op declared by schema rows consult
// its cast policy before it runs (schema.h, NABLA_OP_DEFINE; autocast_call.h):
//   - lower precision (the products and convolutions): each float32 tensor argument of
//     the region's device is cast to the region's dtype (bfloat16 on the CPU);
//   - float32 (ops that lose too much in 16 bits: losses, norms, cumulative sums, ...):
//     each 16-bit floating argument is cast to float32;
//   - promote (cat, stack, index_copy, scatter_add): every floating argument is cast to the
//     widest floating dtype among them;
//   - none (every other op): the op runs as it is, and the ops it calls consult autocast
//     in turn.
// A listed op runs with autocast off on its thread, so the ops inside it compute on what
// autocast gave it (as LibTorch's autocast kernels exclude their key before they call on).
// The casts are differentiable conversions: a float32 parameter used in bfloat16 gets a
// float32 gradient. A cast of a leaf that requires grad (a weight) is cached until the
// outermost region ends, so a weight used by several ops is converted once per region.
// The lists are LibTorch 1.13's CPU lists, restricted to the ops nabla has;
// tests/libtorch/test_autocast_libtorch.cpp compares the result dtypes with LibTorch's
// under its own autocast.
#include "nabla/ops/autocast.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "nabla/core/error.h"
#include "nabla/ops/trace.h"
#include "ops/autocast/autocast_call.h"

namespace nabla::autocast {

namespace {

struct State {
  bool cpu_enabled = false, gpu_enabled = false, cache_enabled = true;
  ScalarType cpu_dtype = kBFloat16, gpu_dtype = kHalf;
  int nesting = 0;
  int excluded = 0;  // autocast calls running (AutocastExclude)
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> cache;  // source, cast
};
thread_local State t_state;

void refresh() {
  detail::t_active = (t_state.cpu_enabled || t_state.gpu_enabled) && t_state.excluded == 0;
}

}  // namespace

bool is_cpu_enabled() { return t_state.cpu_enabled; }
void set_cpu_enabled(bool enabled) {
  t_state.cpu_enabled = enabled;
  refresh();
}
bool is_enabled() { return t_state.gpu_enabled; }
void set_enabled(bool enabled) {
  t_state.gpu_enabled = enabled;
  refresh();
}
ScalarType get_autocast_cpu_dtype() { return t_state.cpu_dtype; }
void set_autocast_cpu_dtype(ScalarType dtype) {
  NABLA_CHECK(dtype == kBFloat16, "autocast: the CPU's lower precision is BFloat16, got ", dtype,
              " (as in LibTorch)");
  t_state.cpu_dtype = dtype;
}
ScalarType get_autocast_gpu_dtype() { return t_state.gpu_dtype; }
void set_autocast_gpu_dtype(ScalarType dtype) {
  NABLA_CHECK(dtype == kHalf || dtype == kBFloat16,
              "autocast: a GPU's lower precision is Half or BFloat16, got ", dtype);
  t_state.gpu_dtype = dtype;
}
bool is_autocast_cache_enabled() { return t_state.cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { t_state.cache_enabled = enabled; }
void clear_cache() { t_state.cache.clear(); }
int increment_nesting() { return ++t_state.nesting; }
int decrement_nesting() { return --t_state.nesting; }

AutocastGuard::AutocastGuard(DeviceType device_type, optional<ScalarType> dtype, bool enabled,
                             optional<bool> cache_enabled)
    : cuda_(device_type == DeviceType::CUDA),
      prev_enabled_(cuda_ ? is_enabled() : is_cpu_enabled()),
      prev_cache_(is_autocast_cache_enabled()),
      prev_dtype_(cuda_ ? get_autocast_gpu_dtype() : get_autocast_cpu_dtype()) {
  NABLA_CHECK(device_type == DeviceType::CPU || cuda_,
              "autocast: device_type must be cpu or cuda, got ", device_type);
  if (dtype && cuda_) set_autocast_gpu_dtype(*dtype);
  if (dtype && !cuda_) set_autocast_cpu_dtype(*dtype);
  if (cache_enabled) set_autocast_cache_enabled(*cache_enabled);
  if (cuda_)
    set_enabled(enabled);
  else
    set_cpu_enabled(enabled);
  increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (decrement_nesting() == 0) clear_cache();
  set_autocast_cache_enabled(prev_cache_);
  if (cuda_) {
    set_enabled(prev_enabled_);
    t_state.gpu_dtype = prev_dtype_;
  } else {
    set_cpu_enabled(prev_enabled_);
    t_state.cpu_dtype = prev_dtype_;
  }
}

}  // namespace nabla::autocast

namespace nabla::ops::detail {

namespace {

using autocast::t_state;

// Sorted, by nabla's op names: LibTorch 1.13.1's CPU lists as its autocast behaves (the
// float32 list of later releases is longer), plus matmul, einsum and tensordot, which
// LibTorch lowers through the products they call.
constexpr std::array<std::string_view, 13> kLower = {
    "addbmm",      "addmm",  "baddbmm", "bmm",    "conv1d", "conv2d",   "conv3d",
    "convolution", "einsum", "linear",  "matmul", "mm",     "tensordot"};
constexpr std::array<std::string_view, 36> kFloat32 = {"adaptive_avg_pool3d",
                                                       "avg_pool3d",
                                                       "binary_cross_entropy",
                                                       "binary_cross_entropy_with_logits",
                                                       "cdist",
                                                       "conv_transpose1d",
                                                       "conv_transpose2d",
                                                       "conv_transpose3d",
                                                       "cosine_embedding_loss",
                                                       "cross_entropy_loss",
                                                       "ctc_loss",
                                                       "grid_sampler",
                                                       "hinge_embedding_loss",
                                                       "huber_loss",
                                                       "kl_div",
                                                       "l1_loss",
                                                       "margin_ranking_loss",
                                                       "max_pool3d",
                                                       "max_unpool2d",
                                                       "max_unpool3d",
                                                       "mse_loss",
                                                       "multi_margin_loss",
                                                       "multilabel_margin_loss",
                                                       "nll_loss",
                                                       "nll_loss2d",
                                                       "poisson_nll_loss",
                                                       "prod",
                                                       "reflection_pad1d",
                                                       "reflection_pad2d",
                                                       "replication_pad1d",
                                                       "replication_pad2d",
                                                       "replication_pad3d",
                                                       "smooth_l1_loss",
                                                       "soft_margin_loss",
                                                       "trace",
                                                       "triplet_margin_loss"};
constexpr std::array<std::string_view, 3> kPromote = {"cat", "index_copy", "stack"};

template <size_t N>
bool in(const std::array<std::string_view, N>& names, std::string_view op) {
  return std::binary_search(names.begin(), names.end(), op);
}

}  // namespace

CastPolicy autocast_policy(std::string_view op) {
  static_assert(std::is_sorted(kLower.begin(), kLower.end()) &&
                std::is_sorted(kFloat32.begin(), kFloat32.end()) &&
                std::is_sorted(kPromote.begin(), kPromote.end()));
  if (in(kLower, op)) return CastPolicy::Lower;
  if (in(kFloat32, op)) return CastPolicy::Float32;
  if (in(kPromote, op)) return CastPolicy::Promote;
  return CastPolicy::None;
}

AutocastExclude::AutocastExclude() {
  ++t_state.excluded;
  autocast::refresh();
}
AutocastExclude::~AutocastExclude() {
  --t_state.excluded;
  autocast::refresh();
}

void refuse_autocast_while_tracing(const char* op) {
  NABLA_CHECK(!active_tracer(), "graph::trace: op '", op,
              "' ran in an autocast region; autocast is not traced yet: trace without it");
}

namespace {
// The region that covers t's device, if enabled: its lower dtype.
optional<ScalarType> region_dtype(const Tensor& t) {
  if (t.is_cuda()) return t_state.gpu_enabled ? optional<ScalarType>(t_state.gpu_dtype) : nullopt;
  return t_state.cpu_enabled ? optional<ScalarType>(t_state.cpu_dtype) : nullopt;
}
}  // namespace

Tensor autocast_lower(const Tensor& t) {
  if (!t.defined() || t.scalar_type() != kFloat) return t;
  const optional<ScalarType> low = region_dtype(t);
  if (!low) return t;
  const bool cacheable = t_state.cache_enabled && t.is_leaf() && t.requires_grad();
  if (cacheable) {
    auto it = t_state.cache.find(t.unsafeGetTensorImpl());
    if (it != t_state.cache.end() && it->second.second.scalar_type() == *low)
      return it->second.second;
  }
  Tensor cast = t.to(*low);
  // The source is kept with its cast, so its address is not reused while cached.
  if (cacheable) t_state.cache[t.unsafeGetTensorImpl()] = {t, cast};
  return cast;
}

Tensor autocast_float32(const Tensor& t) {
  if (!t.defined() || !isReducedFloatingType(t.scalar_type()) || !region_dtype(t)) return t;
  return t.to(kFloat);
}

Tensor autocast_to(const Tensor& t, ScalarType dtype) {
  if (!t.defined() || !t.is_floating_point() || t.scalar_type() == dtype || !region_dtype(t))
    return t;
  return t.to(dtype);
}

}  // namespace nabla::ops::detail
