// softmax, log_softmax, softmin: one fused backend kernel forward; the backward is one
// fused kernel pass, or under create_graph formulas written with differentiable ops on
// the saved output, so double backward works.
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

/// SoftmaxBackward0 / LogSoftmaxBackward0: the output and the dim.
struct SoftmaxState {
  SavedVariable result;
  int64_t dim = 0;
  auto saved() { return std::tie(result); }
};

// First order (no create_graph): one fused kernel pass over (g, y).
Tensor fused_backward(const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  Tensor gi = ops::empty_tensor(y.sizes(), y.scalar_type(), y.device());
  backend_for(y).softmax_backward(gi, ops::cast(g, y.scalar_type()).contiguous(), y.contiguous(),
                                  dim, log);
  return gi;
}

// grad_in = y * (g - sum(g * y)) along dim
variable_list softmax_backward(OpNode<SoftmaxState>& n, const variable_list& g) {
  Tensor y = n.get(n.state.result);
  const int64_t dim = n.state.dim;
  if (!GradMode::is_enabled()) return {fused_backward(g[0], y, dim, false)};
  return {y * (g[0] - (g[0] * y).sum({dim}, true))};
}
// grad_in = g - softmax * sum(g), softmax = exp(y)
variable_list log_softmax_backward(OpNode<SoftmaxState>& n, const variable_list& g) {
  Tensor y = n.get(n.state.result);
  const int64_t dim = n.state.dim;
  if (!GradMode::is_enabled()) return {fused_backward(g[0], y, dim, true)};
  return {g[0] - y.exp() * g[0].sum({dim}, true)};
}

constexpr NodeType<SoftmaxState> kSoftmax{"SoftmaxBackward0", softmax_backward};
constexpr NodeType<SoftmaxState> kLogSoftmax{"LogSoftmaxBackward0", log_softmax_backward};

Tensor softmax_forward(const Tensor& input, int64_t dim, optional<ScalarType> dtype, bool log) {
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
  if (auto node = autograd::record_node(log ? kLogSoftmax : kSoftmax, {&x})) {
    node->state.dim = d;
    autograd::set_history(out, node);
    node->state.result = autograd::save_output(out);
  }
  return out;
}

}  // namespace

Tensor ops::softmax_impl(const Tensor& input, int64_t dim, optional<ScalarType> dtype) {
  return softmax_forward(input, dim, dtype, false);
}
Tensor ops::log_softmax_impl(const Tensor& input, int64_t dim, optional<ScalarType> dtype) {
  return softmax_forward(input, dim, dtype, true);
}
Tensor ops::softmin_impl(const Tensor& input, int64_t dim, optional<ScalarType> dtype) {
  ops::check_defined(input, "softmin");
  Tensor x = dtype ? input.to(*dtype) : input;
  return softmax_forward(-x, dim, nullopt, false);
}

Tensor Tensor::softmax(int64_t dim, optional<ScalarType> dtype) const {
  return nabla::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, optional<ScalarType> dtype) const {
  return nabla::log_softmax(*this, dim, dtype);
}

}  // namespace nabla
