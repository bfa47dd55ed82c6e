#pragma once
// The LibTorch side of the table's entries (Note [Table without LibTorch], table.h): the
// at::Tensor overloads a generic lambda needs, and torch_side(), which instantiates an
// entry's lambda for at::Tensor. Only <ATen/ATen.h> is included (not <torch/torch.h>): it
// is three times faster to compile and has every op the table needs.
#include <ATen/ATen.h>

#include "bridge.h"
#include "conformance.h"

namespace conform {

using TTensor = at::Tensor;

inline at::ScalarType dtype_for(const TTensor&, nabla::ScalarType t) { return to_torch(t); }
inline TTensor index_tensor(const TTensor&, std::vector<int64_t> v) {
  return at::tensor(v, at::kLong);
}
template <>
inline TTensor bool_tensor<TTensor>(bool b) {
  return at::scalar_tensor(b, at::kBool);
}

struct TorchFn : std::function<Outputs<TTensor>(const std::vector<TTensor>&)> {
  using function::function;
};

template <class F>
std::shared_ptr<const TorchFn> torch_side(const F& ft) {
  TorchFn fn = [ft](const std::vector<TTensor>& x) -> Outputs<TTensor> { return ft(x); };
  // make_shared of TorchFn&&: one instantiation for the whole table file, not one per entry.
  return std::make_shared<const TorchFn>(std::move(fn));
}

}  // namespace conform

/// The LibTorch lambda of an op2 entry (dropped in a build without LibTorch, table.h).
#define LIBTORCH(...) __VA_ARGS__
