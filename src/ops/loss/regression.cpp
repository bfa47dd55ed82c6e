// The regression and margin losses, values and reductions as PyTorch's
// (aten/src/ATen/native/Loss*.cpp). mse, smooth_l1, huber and soft_margin have nodes of
// their own in LibTorch (MseLossBackward0, ...): their values are computed without
// history and recorded as that node, with LibTorch's derivative written with
// differentiable ops. l1, kl_div, margin_ranking, hinge_embedding, cosine_embedding,
// poisson_nll and triplet_margin are composites in LibTorch too and keep their pieces'
// nodes.
#include <cmath>
#include <tuple>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/trace.h"
#include "ops/loss/loss_utils.h"
#include "ops/nn/nn_registry.h"

namespace nabla {

namespace {

using ops::reduce_loss;

void check_pair(const char* op, const Tensor& input, const Tensor& target) {
  NABLA_CHECK(input.defined() && target.defined(), op, ": input and target must be defined");
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  // Shapes must broadcast (LibTorch warns when they differ; we accept as it does).
  ops::broadcast_shapes(input.sizes(), target.sizes(), op);
}

// ---- Nodes of the losses of (input, target) -----------------------------------------------

struct PairLossState {
  SavedVariable self, target;
  int64_t reduction = Reduction::Mean;
  double beta = 0;  // smooth_l1_loss's beta, huber_loss's delta
  auto saved() { return std::tie(self, target); }
};

// The gradients from the derivatives per element dx = dl/dx and dt = dl/dt (computed
// when wanted): the output gradient spread over the elements (over their count for
// Mean), summed back to each input's shape (the inputs broadcast).
template <class Dx, class Dt>
variable_list pair_grads(OpNode<PairLossState>& n, const Tensor& grad, const Tensor& x,
                         const Tensor& t, Dx&& dx, Dt&& dt) {
  Tensor gx, gt;
  auto spread = [&](const Tensor& d) {
    return ops::unreduced_grad(grad, d.numel(), n.state.reduction) * d;
  };
  if (n.needs_input_grad(0)) gx = ops::sum_to(spread(dx()), x.sizes());
  if (n.needs_input_grad(1)) gt = ops::sum_to(spread(dt()), t.sizes());
  return {gx, gt};
}

// The losses of d = x - t: dl/dt = -dl/dx.
template <class F>
variable_list difference_grads(OpNode<PairLossState>& n, const variable_list& g, F&& derivative) {
  Tensor x = n.get(n.state.self), t = n.get(n.state.target);
  Tensor d = derivative(x - t, n.state.beta);
  return pair_grads(
      n, g[0], x, t, [&] { return d; }, [&] { return -d; });
}

// mse: 2 (x - t)
variable_list mse_loss_backward(OpNode<PairLossState>& n, const variable_list& g) {
  return difference_grads(n, g, [](const Tensor& d, double) { return 2 * d; });
}
// smooth_l1: d / beta inside (-beta, beta), sign(d) outside (LibTorch's -1 at d = 0 when
// beta = 0).
variable_list smooth_l1_loss_backward(OpNode<PairLossState>& n, const variable_list& g) {
  return difference_grads(n, g, [](const Tensor& d, double beta) {
    if (beta == 0) return where(d <= 0, Scalar(-1), ones_like(d));
    return where(d <= -beta, Scalar(-1), where(d >= beta, Scalar(1), d / beta));
  });
}
// huber: d inside (-delta, delta), delta sign(d) outside.
variable_list huber_loss_backward(OpNode<PairLossState>& n, const variable_list& g) {
  return difference_grads(n, g, [](const Tensor& d, double delta) {
    return where(d <= -delta, Scalar(-delta), where(d >= delta, Scalar(delta), d));
  });
}
// soft_margin = log(1 + exp(-t x)): dl/dx = -t sigmoid(-t x), dl/dt = -x sigmoid(-t x).
variable_list soft_margin_loss_backward(OpNode<PairLossState>& n, const variable_list& g) {
  Tensor x = n.get(n.state.self), t = n.get(n.state.target);
  Tensor s = (-t * x).sigmoid();
  return pair_grads(
      n, g[0], x, t, [&] { return -t * s; }, [&] { return -x * s; });
}

constexpr NodeType<PairLossState> kMseLoss{"MseLossBackward0", mse_loss_backward};
constexpr NodeType<PairLossState> kSmoothL1Loss{"SmoothL1LossBackward0", smooth_l1_loss_backward};
constexpr NodeType<PairLossState> kHuberLoss{"HuberLossBackward0", huber_loss_backward};
constexpr NodeType<PairLossState> kSoftMarginLoss{"SoftMarginLossBackward0",
                                                  soft_margin_loss_backward};

/// `value()` without history, recorded as a node of `type`.
template <class F>
Tensor pair_loss(const NodeType<PairLossState>& type, const Tensor& input, const Tensor& target,
                 int64_t reduction, double beta, F&& value) {
  Tensor out = no_grad(std::forward<F>(value));
  if (auto node = autograd::record_node(type, {&input, &target})) {
    node->state.self = autograd::save(input);
    node->state.target = autograd::save(target);
    node->state.reduction = reduction;
    node->state.beta = beta;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor ops::mse_loss_impl(const Tensor& input, const Tensor& target, int64_t reduction) {
  check_pair("mse_loss", input, target);
  return pair_loss(kMseLoss, input, target, reduction, 0, [&] {
    Tensor d = input - target;
    return reduce_loss(d * d, reduction, "mse_loss");
  });
}

Tensor ops::l1_loss_impl(const Tensor& input, const Tensor& target, int64_t reduction) {
  check_pair("l1_loss", input, target);
  return reduce_loss((input - target).abs(), reduction, "l1_loss");
}

Tensor ops::smooth_l1_loss_impl(const Tensor& input, const Tensor& target, int64_t reduction,
                                double beta) {
  check_pair("smooth_l1_loss", input, target);
  NABLA_CHECK(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  return pair_loss(kSmoothL1Loss, input, target, reduction, beta, [&] {
    Tensor d = (input - target).abs();
    Tensor loss = beta == 0 ? d : where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta);
    return reduce_loss(loss, reduction, "smooth_l1_loss");
  });
}

Tensor ops::huber_loss_impl(const Tensor& input, const Tensor& target, int64_t reduction,
                            double delta) {
  check_pair("huber_loss", input, target);
  NABLA_CHECK(delta > 0, "huber_loss: delta must be positive, got ", delta);
  return pair_loss(kHuberLoss, input, target, reduction, delta, [&] {
    Tensor d = (input - target).abs();
    Tensor loss = where(d <= delta, d * d * 0.5, (d - 0.5 * delta) * delta);
    return reduce_loss(loss, reduction, "huber_loss");
  });
}

Tensor ops::soft_margin_loss_impl(const Tensor& input, const Tensor& target, int64_t reduction) {
  check_pair("soft_margin_loss", input, target);
  return pair_loss(kSoftMarginLoss, input, target, reduction, 0, [&] {
    return reduce_loss((-target * input).exp().log1p(), reduction, "soft_margin_loss");
  });
}

Tensor ops::kl_div_impl(const Tensor& input, const Tensor& target, int64_t reduction,
                        bool log_target) {
  check_pair("kl_div", input, target);
  Tensor loss;
  if (log_target) {
    loss = target.exp() * (target - input);
  } else {
    // xlogy(t, t) - t * x, with 0 log 0 = 0.
    Tensor tlogt = where(target.eq(0), zeros_like(target), target * target.log());
    loss = tlogt - target * input;
  }
  return reduce_loss(loss, reduction, "kl_div");
}

Tensor ops::margin_ranking_loss_impl(const Tensor& input1, const Tensor& input2,
                                     const Tensor& target, double margin, int64_t reduction) {
  check_pair("margin_ranking_loss", input1, target);
  check_pair("margin_ranking_loss", input2, target);
  return reduce_loss((-target * (input1 - input2) + margin).clamp_min(0), reduction,
                     "margin_ranking_loss");
}

Tensor ops::hinge_embedding_loss_impl(const Tensor& input, const Tensor& target, double margin,
                                      int64_t reduction) {
  check_pair("hinge_embedding_loss", input, target);
  Tensor margin_clamp = (margin - input).clamp_min(0);
  Tensor out_margin = where(target.ne(1), margin_clamp, zeros_like(margin_clamp));
  Tensor out_self = where(target.ne(-1), input, zeros_like(input));
  return reduce_loss(out_margin + out_self, reduction, "hinge_embedding_loss");
}

Tensor ops::cosine_embedding_loss_impl(const Tensor& input1, const Tensor& input2,
                                       const Tensor& target, double margin, int64_t reduction) {
  NABLA_CHECK(input1.defined() && input2.defined() && target.defined(),
              "cosine_embedding_loss: undefined input");
  ops::check_same_shape("cosine_embedding_loss", input1, input2);
  NABLA_CHECK(input1.dim() >= 1 && input1.dim() <= 2,
              "cosine_embedding_loss: inputs must be 1-d or 2-d, got ", input1.dim(), " dims");
  const int64_t d = input1.dim() - 1;
  constexpr double kEps = 1e-12;
  Tensor prod = (input1 * input2).sum(d);
  Tensor mag = ((input1 * input1).sum(d) + kEps) * ((input2 * input2).sum(d) + kEps);
  Tensor cos = prod / mag.sqrt();
  Tensor pos = 1 - cos;
  Tensor neg = (cos - margin).clamp_min(0);
  Tensor loss =
      where(target.eq(1), pos, zeros_like(pos)) + where(target.eq(-1), neg, zeros_like(neg));
  return reduce_loss(loss, reduction, "cosine_embedding_loss");
}

Tensor ops::poisson_nll_loss_impl(const Tensor& input, const Tensor& target, bool log_input,
                                  bool full, double eps, int64_t reduction) {
  check_pair("poisson_nll_loss", input, target);
  Tensor loss = log_input ? input.exp() - target * input : input - target * (input + eps).log();
  if (full) {
    Tensor stirling = target * target.log() - target + (target * (2 * M_PI)).log() * 0.5;
    loss = loss + where(target > 1, stirling, zeros_like(stirling));
  }
  return reduce_loss(loss, reduction, "poisson_nll_loss");
}

Tensor ops::triplet_margin_loss_impl(const Tensor& anchor, const Tensor& positive,
                                     const Tensor& negative, double margin, double p, double eps,
                                     bool swap, int64_t reduction) {
  NABLA_CHECK(anchor.defined() && positive.defined() && negative.defined(),
              "triplet_margin_loss: undefined input");
  NABLA_CHECK(
      anchor.dim() == positive.dim() && anchor.dim() == negative.dim(),
      "triplet_margin_loss: anchor, positive and negative must have the same number of dims, got ",
      anchor.dim(), ", ", positive.dim(), " and ", negative.dim());
  const int64_t d = anchor.dim() - 1;
  auto dist = [&](const Tensor& a, const Tensor& b) {
    return (a - b + eps).norm(optional<Scalar>(p), {d});
  };
  Tensor d_pos = dist(anchor, positive), d_neg = dist(anchor, negative);
  if (swap) d_neg = minimum(d_neg, dist(positive, negative));
  return reduce_loss((d_pos - d_neg + margin).clamp_min(0), reduction, "triplet_margin_loss");
}

}  // namespace nabla
