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

namespace {

// The in-place form of a comparison: its 0/1 result in self's dtype.
template <class Op>
const Tensor& compare_(const Tensor& self, const char* name, Op op) {
  return inplace_from(self, name, [&](const Tensor& x) { return op(x).to(self.scalar_type()); });
}

}  // namespace

// ---- In-place forms of existing ops ---------------------------------------------------------
const Tensor& Tensor::atan2_(const Tensor& o) const {
  return inplace_from(*this, "atan2_", [&](const Tensor& x) { return x.atan2(o); });
}
const Tensor& Tensor::remainder_(const Tensor& o) const {
  return inplace_from(*this, "remainder_", [&](const Tensor& x) { return x.remainder(o); });
}
const Tensor& Tensor::remainder_(const Scalar& o) const {
  return inplace_from(*this, "remainder_", [&](const Tensor& x) { return x.remainder(o); });
}
const Tensor& Tensor::eq_(const Tensor& o) const {
  return compare_(*this, "eq_", [&](const Tensor& x) { return x.eq(o); });
}
const Tensor& Tensor::eq_(const Scalar& o) const {
  return compare_(*this, "eq_", [&](const Tensor& x) { return x.eq(o); });
}
const Tensor& Tensor::ne_(const Tensor& o) const {
  return compare_(*this, "ne_", [&](const Tensor& x) { return x.ne(o); });
}
const Tensor& Tensor::ne_(const Scalar& o) const {
  return compare_(*this, "ne_", [&](const Tensor& x) { return x.ne(o); });
}
const Tensor& Tensor::lt_(const Tensor& o) const {
  return compare_(*this, "lt_", [&](const Tensor& x) { return x.lt(o); });
}
const Tensor& Tensor::lt_(const Scalar& o) const {
  return compare_(*this, "lt_", [&](const Tensor& x) { return x.lt(o); });
}
const Tensor& Tensor::le_(const Tensor& o) const {
  return compare_(*this, "le_", [&](const Tensor& x) { return x.le(o); });
}
const Tensor& Tensor::le_(const Scalar& o) const {
  return compare_(*this, "le_", [&](const Tensor& x) { return x.le(o); });
}
const Tensor& Tensor::gt_(const Tensor& o) const {
  return compare_(*this, "gt_", [&](const Tensor& x) { return x.gt(o); });
}
const Tensor& Tensor::gt_(const Scalar& o) const {
  return compare_(*this, "gt_", [&](const Tensor& x) { return x.gt(o); });
}
const Tensor& Tensor::ge_(const Tensor& o) const {
  return compare_(*this, "ge_", [&](const Tensor& x) { return x.ge(o); });
}
const Tensor& Tensor::ge_(const Scalar& o) const {
  return compare_(*this, "ge_", [&](const Tensor& x) { return x.ge(o); });
}
const Tensor& Tensor::logical_and_(const Tensor& o) const {
  return compare_(*this, "logical_and_", [&](const Tensor& x) { return x.logical_and(o); });
}
const Tensor& Tensor::logical_or_(const Tensor& o) const {
  return compare_(*this, "logical_or_", [&](const Tensor& x) { return x.logical_or(o); });
}
const Tensor& Tensor::logical_xor_(const Tensor& o) const {
  return compare_(*this, "logical_xor_", [&](const Tensor& x) { return x.logical_xor(o); });
}
const Tensor& Tensor::bitwise_and_(const Tensor& o) const {
  return inplace_from(*this, "bitwise_and_", [&](const Tensor& x) { return x.bitwise_and(o); });
}
const Tensor& Tensor::bitwise_or_(const Tensor& o) const {
  return inplace_from(*this, "bitwise_or_", [&](const Tensor& x) { return x.bitwise_or(o); });
}
const Tensor& Tensor::bitwise_xor_(const Tensor& o) const {
  return inplace_from(*this, "bitwise_xor_", [&](const Tensor& x) { return x.bitwise_xor(o); });
}
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
