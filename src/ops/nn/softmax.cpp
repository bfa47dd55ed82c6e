// softmax, log_softmax, softmin: one fused backend kernel forward; the backward formulas
// are written with differentiable ops on the saved output, so double backward works.
#include "autograd/formula.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

using autograd::FormulaNode;
using autograd::variable_list;

// First order (no create_graph): one fused kernel pass over (g, y).
Tensor fused_backward(const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  Tensor gi = ops::empty_tensor(y.sizes(), y.scalar_type(), y.device());
  backend_for(y).softmax_backward(gi, ops::cast(g, y.scalar_type()).contiguous(), y.contiguous(),
                                  dim, log);
  return gi;
}

// Saved: [0] = out (the forward's output). d softmax: y * (g - sum(g * y)); under
// create_graph written with differentiable ops, so higher orders follow.
variable_list softmax_bw(FormulaNode& n, const variable_list& g) {
  Tensor y = n.saved(0);
  if (!GradMode::is_enabled()) return {fused_backward(g[0], y, n.dim, false)};
  return {y * (g[0] - (g[0] * y).sum({n.dim}, true))};
}
// d log_softmax: g - softmax * sum(g), with softmax = exp(out).
variable_list log_softmax_bw(FormulaNode& n, const variable_list& g) {
  Tensor y = n.saved(0);
  if (!GradMode::is_enabled()) return {fused_backward(g[0], y, n.dim, true)};
  return {g[0] - y.exp() * g[0].sum({n.dim}, true)};
}

const autograd::Formula kSoftmax{"SoftmaxBackward0", softmax_bw};
const autograd::Formula kLogSoftmax{"LogSoftmaxBackward0", log_softmax_bw};

Tensor softmax_impl(const Tensor& input, int64_t dim, optional<ScalarType> dtype, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  ops::check_defined(input, op);
  Tensor x = dtype ? input.to(*dtype) : input;
  NABLA_CHECK(x.is_floating_point(), op,
              ": expected a floating point input (or a dtype "
              "argument to convert to), got ",
              x.scalar_type());
  const int64_t d = ops::wrap_dim(dim, x.dim(), op);
  Tensor out = ops::empty_tensor(x.sizes(), x.scalar_type(), x.device());
  backend_for(x).softmax(out, x.contiguous(), d, log);
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node(log ? kLogSoftmax : kSoftmax, {&x});
    node->dim = d;
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

}  // namespace

Tensor softmax(const Tensor& input, int64_t dim, optional<ScalarType> dtype) {
  return softmax_impl(input, dim, dtype, false);
}
Tensor log_softmax(const Tensor& input, int64_t dim, optional<ScalarType> dtype) {
  return softmax_impl(input, dim, dtype, true);
}
Tensor softmin(const Tensor& input, int64_t dim, optional<ScalarType> dtype) {
  ops::check_defined(input, "softmin");
  Tensor x = dtype ? input.to(*dtype) : input;
  return softmax_impl(-x, dim, nullopt, false);
}

Tensor Tensor::softmax(int64_t dim, optional<ScalarType> dtype) const {
  return nabla::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, optional<ScalarType> dtype) const {
  return nabla::log_softmax(*this, dim, dtype);
}

}  // namespace nabla
