#pragma once
// The public functions of the op families whose kernels have no 16-bit path (products,
// convolutions, norms, softmax, losses, pooling, ...: schema_functions.cpp): given a Half
// or BFloat16 tensor, the implementation runs on float32 copies and each floating result
// is rounded back to the 16-bit dtype once (Note [16-bit compute],
// src/ops/elementwise/float32_compute.h). The copies are differentiable conversions, so
// autograd's gradients reach the 16-bit inputs in their own dtype.
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "ops/registry/tensor_args.h"

namespace nabla::ops::detail {

/// Whether op `name`, in a family whose kernels compute 16-bit floats (the elementwise
/// ops, reductions, views, ...), has no 16-bit kernel of its own and computes through
/// float32 too (sorting, scans, indexing and the data movement ops; through_float32.cpp).
bool computes_through_float32(std::string_view name);

/// Whether any tensor argument is a Half or BFloat16 tensor.
template <class... A>
bool any_reduced(const A&... args) {
  bool any = false;
  auto note = [&any](const Tensor& t) { any = any || isReducedFloatingType(t.scalar_type()); };
  (each_tensor(args, note), ...);
  return any;
}

// An argument that chooses the result's dtype (softmax's dtype): then the op decides.
inline bool pins_dtype(const optional<ScalarType>& d) { return d.has_value(); }
inline bool pins_dtype(ScalarType) { return true; }
template <class T>
bool pins_dtype(const T&) {
  return false;
}

// ---- Rounding the results ----------------------------------------------------------------

template <class T>
T round_result(T r, ScalarType) {
  return r;
}
inline Tensor round_result(Tensor r, ScalarType to) {
  return r.defined() && r.scalar_type() == kFloat ? r.to(to) : r;
}
inline std::vector<Tensor> round_result(std::vector<Tensor> rs, ScalarType to) {
  for (Tensor& r : rs) r = round_result(std::move(r), to);
  return rs;
}
template <class... T>
std::tuple<T...> round_result(std::tuple<T...> rs, ScalarType to) {
  return std::apply(
      [to](auto&&... r) { return std::tuple<T...>(round_result(std::move(r), to)...); },
      std::move(rs));
}

// An op that writes into an argument (batch_norm's running statistics) wrote into its
// float32 copy: the write goes back to the 16-bit tensor.
inline void write_back(const Tensor& original, const Tensor& wide) {
  if (wide.defined() && !wide.is_same(original) && wide._version() != 0) {
    NoGradGuard no_grad;
    original.copy_(wide);
  }
}
inline void write_back(const optional<Tensor>& original, const optional<Tensor>& wide) {
  if (original && wide) write_back(*original, *wide);
}
inline void write_back(TensorList original, const std::vector<Tensor>& wide) {
  for (size_t i = 0; i < wide.size(); ++i) write_back(original[i], wide[i]);
}
template <class T, class W>
void write_back(const T&, const W&) {}

template <class R, class F, class... A>
R through_float32(F&& impl, const A&... args) {
  static_assert(!std::is_reference_v<R>, "in-place forms do not compute through float32");
  optional<ScalarType> seen;
  bool mixed = false;
  auto note = [&](const Tensor& t) {
    if (!isFloatingType(t.scalar_type())) return;
    if (seen && *seen != t.scalar_type()) mixed = true;
    seen = t.scalar_type();
  };
  (each_tensor(args, note), ...);
  const bool round = !mixed && seen && isReducedFloatingType(*seen) && !(pins_dtype(args) || ...);
  auto widen = [](const Tensor& t) {
    return isReducedFloatingType(t.scalar_type()) ? t.to(kFloat) : t;
  };
  std::tuple<decltype(map_tensors(args, widen))...> wide(map_tensors(args, widen)...);
  R result = std::apply(impl, wide);
  std::apply([&](const auto&... w) { (write_back(args, w), ...); }, wide);
  return round ? round_result(std::move(result), *seen) : result;
}

}  // namespace nabla::ops::detail
