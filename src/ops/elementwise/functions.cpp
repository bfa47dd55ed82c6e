// equal and allclose as free functions (the binary ops' functions follow from their rows in
// core/op_list/binary.def).
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla {

bool equal(const Tensor& a, const Tensor& b) { return a.equal(b); }
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.allclose(b, rtol, atol, equal_nan);
}

}  // namespace nabla
