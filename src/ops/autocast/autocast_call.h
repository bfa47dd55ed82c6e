#pragma once
// An op's call in an autocast region (Note [Autocast], autocast.cpp): its arguments cast
// by its policy, the op run with autocast off on the thread.
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/autocast.h"
#include "ops/registry/tensor_args.h"

namespace nabla::ops::detail {

enum class CastPolicy { None, Lower, Float32, Promote };
/// Op `name`'s policy (LibTorch's CPU lists).
CastPolicy autocast_policy(std::string_view name);

/// Autocast off on this thread while alive.
class AutocastExclude {
 public:
  AutocastExclude();
  ~AutocastExclude();
  AutocastExclude(const AutocastExclude&) = delete;
  AutocastExclude& operator=(const AutocastExclude&) = delete;
};

/// A graph cannot hold autocast's casts yet: a nabla::Error naming `op` while tracing.
void refuse_autocast_while_tracing(const char* op);

/// A float32 tensor of a device whose region is enabled, in that region's dtype (cached
/// for a leaf that requires grad); anything else as it is.
Tensor autocast_lower(const Tensor& t);
/// A 16-bit floating tensor of an enabled region's device in float32.
Tensor autocast_float32(const Tensor& t);
/// A floating tensor of an enabled region's device in `dtype`.
Tensor autocast_to(const Tensor& t, ScalarType dtype);

/// `op` (the public function, run with autocast off) on the arguments cast by `policy`.
template <class R, class F, class... A>
R autocast_call(const char* name, CastPolicy policy, F&& op, const A&... args) {
  refuse_autocast_while_tracing(name);
  AutocastExclude off;
  auto run = [&](auto cast) {
    return std::apply(op,
                      std::tuple<decltype(map_tensors(args, cast))...>(map_tensors(args, cast)...));
  };
  if (policy == CastPolicy::Lower) return run([](const Tensor& t) { return autocast_lower(t); });
  if (policy == CastPolicy::Float32)
    return run([](const Tensor& t) { return autocast_float32(t); });
  optional<ScalarType> w;  // Promote: the widest floating dtype among the tensors
  auto widest = [&w](const Tensor& t) {
    if (t.is_floating_point()) w = w ? promoteTypes(*w, t.scalar_type()) : t.scalar_type();
  };
  (each_tensor(args, widest), ...);
  return run([&w](const Tensor& t) { return w ? autocast_to(t, *w) : t; });
}

}  // namespace nabla::ops::detail
