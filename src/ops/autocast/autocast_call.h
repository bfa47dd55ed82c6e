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

// Each argument by the policy: tensors (single, optional, lists) cast, the rest as given.
template <class F>
Tensor cast_one(const Tensor& t, F&& f) {
  return f(t);
}
template <class F>
optional<Tensor> cast_one(const optional<Tensor>& t, F&& f) {
  return t ? optional<Tensor>(f(*t)) : t;
}
template <class F>
std::vector<Tensor> cast_one(TensorList ts, F&& f) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(f(t));
  return out;
}
template <class T, class F>
const T& cast_one(const T& x, F&&) {
  return x;
}

inline void widest(optional<ScalarType>& w, const Tensor& t) {
  if (!t.defined() || !t.is_floating_point()) return;
  w = w ? promoteTypes(*w, t.scalar_type()) : t.scalar_type();
}
inline void widest(optional<ScalarType>& w, const optional<Tensor>& t) {
  if (t) widest(w, *t);
}
inline void widest(optional<ScalarType>& w, TensorList ts) {
  for (const Tensor& t : ts) widest(w, t);
}
template <class T>
void widest(optional<ScalarType>&, const T&) {}

/// `op` (the public function, run with autocast off) on the arguments cast by `policy`.
template <class R, class F, class... A>
R autocast_call(const char* name, CastPolicy policy, F&& op, const A&... args) {
  refuse_autocast_while_tracing(name);
  AutocastExclude off;
  if (policy == CastPolicy::Lower) {
    auto cast = [](const Tensor& t) { return autocast_lower(t); };
    return std::apply(op, std::tuple<decltype(cast_one(args, cast))...>(cast_one(args, cast)...));
  }
  if (policy == CastPolicy::Float32) {
    auto cast = [](const Tensor& t) { return autocast_float32(t); };
    return std::apply(op, std::tuple<decltype(cast_one(args, cast))...>(cast_one(args, cast)...));
  }
  optional<ScalarType> w;
  (widest(w, args), ...);
  auto cast = [&w](const Tensor& t) { return w ? autocast_to(t, *w) : t; };
  return std::apply(op, std::tuple<decltype(cast_one(args, cast))...>(cast_one(args, cast)...));
}

}  // namespace nabla::ops::detail
