// The `_out` forms (include/nabla/ops/out_functions.h): each computes its op as usual
// and writes the result into `out` through assign_out.
#include "nabla/ops/out_functions.h"

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla {

namespace {
// LibTorch's canCast: no floating result into an integral out, nothing but bool into bool.
bool can_cast(ScalarType from, ScalarType to) {
  if (isFloatingType(from) && !isFloatingType(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}
}  // namespace

namespace detail {
Tensor& assign_out(Tensor& out, const Tensor& result, const char* op) {
  NABLA_CHECK(out.defined(), op, ": `out` is an undefined tensor; pass a tensor to write into");
  NABLA_CHECK(
      !(GradMode::is_enabled() && (result.requires_grad() || out.requires_grad())), op,
      "(): functions with out=... arguments don't support automatic differentiation, but one of "
      "the arguments requires grad.");
  NABLA_CHECK(can_cast(result.scalar_type(), out.scalar_type()), op, ": result type ",
              result.scalar_type(), " can't be cast to the desired output type ",
              out.scalar_type());
  NoGradGuard no_grad;
  if (out.sizes() != result.sizes()) out.resize_(result.sizes());
  if (!out.is_same(result)) out.copy_(result);
  return out;
}
}  // namespace detail

using detail::assign_out;

Tensor& max_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return assign_out(out, maximum(a, b), "max_out");
}
Tensor& min_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return assign_out(out, minimum(a, b), "min_out");
}

#define NABLA_UNARY_OP(name, ...)                       \
  Tensor& name##_out(Tensor& out, const Tensor& self) { \
    return assign_out(out, self.name(), #name "_out");  \
  }
#define NABLA_UNARY_PREDICATE(name, Kernel) NABLA_UNARY_OP(name)
#include "nabla/core/op_list/unary.def"

std::tuple<Tensor&, Tensor&> max_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim,
                                     bool keepdim) {
  auto [v, i] = max(x, dim, keepdim);
  return {assign_out(values, v, "max_out"), assign_out(indices, i, "max_out")};
}
std::tuple<Tensor&, Tensor&> min_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim,
                                     bool keepdim) {
  auto [v, i] = min(x, dim, keepdim);
  return {assign_out(values, v, "min_out"), assign_out(indices, i, "min_out")};
}
std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim,
                                      bool descending) {
  auto [v, i] = sort(x, dim, descending);
  return {assign_out(values, v, "sort_out"), assign_out(indices, i, "sort_out")};
}
std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t k,
                                      int64_t dim, bool largest, bool sorted) {
  auto [v, i] = topk(x, k, dim, largest, sorted);
  return {assign_out(values, v, "topk_out"), assign_out(indices, i, "topk_out")};
}

namespace {
TensorOptions out_options(const Tensor& out, const char* op) {
  NABLA_CHECK(out.defined(), op, ": `out` is an undefined tensor; pass a tensor to write into");
  return out.options();
}
}  // namespace

Tensor& zeros_out(Tensor& out, IntArrayRef size) {
  return assign_out(out, zeros(size, out_options(out, "zeros_out")), "zeros_out");
}
Tensor& ones_out(Tensor& out, IntArrayRef size) {
  return assign_out(out, ones(size, out_options(out, "ones_out")), "ones_out");
}
Tensor& full_out(Tensor& out, IntArrayRef size, const Scalar& v) {
  return assign_out(out, full(size, v, out_options(out, "full_out")), "full_out");
}
Tensor& arange_out(Tensor& out, const Scalar& end) {
  return assign_out(out, arange(end, out_options(out, "arange_out")), "arange_out");
}
Tensor& arange_out(Tensor& out, const Scalar& start, const Scalar& end, const Scalar& step) {
  return assign_out(out, arange(start, end, step, out_options(out, "arange_out")), "arange_out");
}
Tensor& linspace_out(Tensor& out, const Scalar& start, const Scalar& end, int64_t steps) {
  return assign_out(out, linspace(start, end, steps, out_options(out, "linspace_out")),
                    "linspace_out");
}
Tensor& rand_out(Tensor& out, IntArrayRef size, optional<Generator> g) {
  return assign_out(out, rand(size, std::move(g), out_options(out, "rand_out")), "rand_out");
}
Tensor& randn_out(Tensor& out, IntArrayRef size, optional<Generator> g) {
  return assign_out(out, randn(size, std::move(g), out_options(out, "randn_out")), "randn_out");
}
Tensor& randint_out(Tensor& out, int64_t high, IntArrayRef size) {
  return assign_out(out, randint(high, size, out_options(out, "randint_out")), "randint_out");
}
Tensor& randint_out(Tensor& out, int64_t low, int64_t high, IntArrayRef size) {
  return assign_out(out, randint(low, high, size, out_options(out, "randint_out")), "randint_out");
}
Tensor& randperm_out(Tensor& out, int64_t n) {
  return assign_out(out, randperm(n, out_options(out, "randperm_out")), "randperm_out");
}

}  // namespace nabla
