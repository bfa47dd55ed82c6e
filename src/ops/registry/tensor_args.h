#pragma once
// An op's arguments as the schema rows pass them, seen through their tensors: a tensor,
// an optional tensor or a tensor list; everything else (attributes) is passed over. What
// the public functions' 16-bit path (through_float32.h) and autocast (autocast_call.h)
// use to look at and rewrite an op's tensor arguments whatever its signature.
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"

namespace nabla::ops::detail {

/// Calls f on each defined tensor of the argument.
template <class F>
void each_tensor(const Tensor& t, F&& f) {
  if (t.defined()) f(t);
}
template <class F>
void each_tensor(const optional<Tensor>& t, F&& f) {
  if (t && t->defined()) f(*t);
}
template <class F>
void each_tensor(TensorList ts, F&& f) {
  for (const Tensor& t : ts)
    if (t.defined()) f(t);
}
template <class T, class F>
void each_tensor(const T&, F&&) {}

/// The argument with each defined tensor replaced by f(tensor); an attribute as it is (by
/// reference).
template <class F>
Tensor map_tensors(const Tensor& t, F&& f) {
  return t.defined() ? f(t) : t;
}
template <class F>
optional<Tensor> map_tensors(const optional<Tensor>& t, F&& f) {
  return t ? optional<Tensor>(map_tensors(*t, f)) : t;
}
template <class F>
std::vector<Tensor> map_tensors(TensorList ts, F&& f) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(map_tensors(t, f));
  return out;
}
template <class T, class F>
const T& map_tensors(const T& x, F&&) {
  return x;
}

}  // namespace nabla::ops::detail
