// TEMPORARY: ops whose real implementation is in progress; removed as each file lands.
#include <ostream>

#include "ops/op_utils.h"

namespace nabla {

// reductions.cpp replaces these.
Tensor Tensor::all() const {
  Tensor b = to(kBool).contiguous();
  const bool* p = b.data_ptr<bool>();
  bool r = true;
  for (int64_t i = 0; i < b.numel(); ++i) r = r && p[i];
  return ops::scalar_tensor(r, kBool);
}
Tensor Tensor::any() const {
  Tensor b = to(kBool).contiguous();
  const bool* p = b.data_ptr<bool>();
  bool r = false;
  for (int64_t i = 0; i < b.numel(); ++i) r = r || p[i];
  return ops::scalar_tensor(r, kBool);
}

}  // namespace nabla
