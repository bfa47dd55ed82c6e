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

namespace nabla::ops::detail {

/// Whether op `name`, in a family whose kernels compute 16-bit floats (the elementwise
/// ops, reductions, views, ...), has no 16-bit kernel of its own and computes through
/// float32 too (sorting, scans, indexing and the data movement ops; through_float32.cpp).
bool computes_through_float32(std::string_view name);

// ---- Which arguments are 16-bit floats ---------------------------------------------------

inline void note_dtype(optional<ScalarType>& seen, bool& mixed, const Tensor& t) {
  if (!t.defined() || !isFloatingType(t.scalar_type())) return;
  if (!seen)
    seen = t.scalar_type();
  else if (*seen != t.scalar_type())
    mixed = true;
}
inline void note_dtype(optional<ScalarType>& seen, bool& mixed, const optional<Tensor>& t) {
  if (t) note_dtype(seen, mixed, *t);
}
inline void note_dtype(optional<ScalarType>& seen, bool& mixed, TensorList ts) {
  for (const Tensor& t : ts) note_dtype(seen, mixed, t);
}
template <class T>
void note_dtype(optional<ScalarType>&, bool&, const T&) {}

inline bool is_reduced(const Tensor& t) {
  return t.defined() && isReducedFloatingType(t.scalar_type());
}
inline bool is_reduced(const optional<Tensor>& t) { return t && is_reduced(*t); }
inline bool is_reduced(TensorList ts) {
  for (const Tensor& t : ts)
    if (is_reduced(t)) return true;
  return false;
}
template <class T>
bool is_reduced(const T&) {
  return false;
}

/// Whether any tensor argument is a Half or BFloat16 tensor.
template <class... A>
bool any_reduced(const A&... args) {
  return (is_reduced(args) || ...);
}

// An argument that chooses the result's dtype (softmax's dtype): then the op decides.
inline bool pins_dtype(const optional<ScalarType>& d) { return d.has_value(); }
inline bool pins_dtype(ScalarType) { return true; }
template <class T>
bool pins_dtype(const T&) {
  return false;
}

// ---- Widening the arguments, rounding the results ----------------------------------------

inline Tensor widen_arg(const Tensor& t) { return is_reduced(t) ? t.to(kFloat) : t; }
inline optional<Tensor> widen_arg(const optional<Tensor>& t) {
  return t ? optional<Tensor>(widen_arg(*t)) : t;
}
inline std::vector<Tensor> widen_arg(TensorList ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(widen_arg(t));
  return out;
}
template <class T>
const T& widen_arg(const T& x) {
  return x;
}

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

/// `impl` on the arguments with every 16-bit float tensor widened to float32, and its
/// floating results rounded to that 16-bit dtype when it is the only floating dtype among
/// the tensors and no argument chooses the result's dtype (with float32 or float64
/// tensors beside it, promotion makes the result theirs, as in LibTorch).
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
  (note_dtype(seen, mixed, args), ...);
  const bool round = !mixed && seen && isReducedFloatingType(*seen) && !(pins_dtype(args) || ...);
  std::tuple<decltype(widen_arg(args))...> wide(widen_arg(args)...);
  R result = std::apply(impl, wide);
  std::apply([&](const auto&... w) { (write_back(args, w), ...); }, wide);
  return round ? round_result(std::move(result), *seen) : result;
}

}  // namespace nabla::ops::detail
