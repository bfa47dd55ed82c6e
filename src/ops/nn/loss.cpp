// The losses, composed from differentiable ops (autograd then gives first and higher
// derivatives); formulas and reductions as PyTorch's (aten/src/ATen/native/Loss*.cpp).
#include "nabla/ops/loss.h"

#include <algorithm>
#include <cmath>

#include "autograd/formula.h"

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

Tensor reduce(const Tensor& loss, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None:
      return loss;
    case Reduction::Mean:
      return loss.mean();
    case Reduction::Sum:
      return loss.sum();
  }
  NABLA_CHECK(false, op, ": reduction must be Reduction::None, Mean or Sum (0, 1, 2), got ",
              reduction);
  return {};
}

void check_pair(const char* op, const Tensor& input, const Tensor& target) {
  NABLA_CHECK(input.defined() && target.defined(), op, ": input and target must be defined");
  NABLA_CHECK(input.is_floating_point(), op, ": input must be floating, got ", input.scalar_type());
  // Shapes must broadcast (LibTorch warns when they differ; we accept as it does).
  ops::broadcast_shapes(input.sizes(), target.sizes(), op);
}

void check_same_shape(const char* op, const Tensor& input, const Tensor& target) {
  NABLA_CHECK(input.sizes() == target.sizes(), op, ": target of shape ", target.sizes(),
              " does not match input of shape ", input.sizes());
}

// Class dimension and per-position class indices for nll/cross-entropy; checks shapes.
void check_class_target(const char* op, const Tensor& input, const Tensor& target,
                        const Tensor& weight, int64_t ignore_index) {
  NABLA_CHECK(input.defined() && target.defined(), op, ": input and target must be defined");
  NABLA_CHECK(input.dim() >= 1, op, ": input must have at least 1 dim (classes), got a 0-d tensor");
  NABLA_CHECK(target.scalar_type() == kLong || target.scalar_type() == kInt ||
                  target.scalar_type() == kByte,
              op, ": class targets must be an integer tensor, got ", target.scalar_type());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(class_dim);
  std::vector<int64_t> want = input.sizes().vec();
  want.erase(want.begin() + class_dim);
  NABLA_CHECK(target.sizes().vec() == want, op, ": target of shape ", target.sizes(),
              " does not fit input of shape ", input.sizes(), " (expected target shape ", want,
              ")");
  if (weight.defined())
    NABLA_CHECK(weight.dim() == 1 && weight.size(0) == classes, op,
                ": weight must have one value per class (", classes, "), got shape ",
                weight.sizes());
  if (target.numel() > 0) {
    Tensor valid = target.ne(ignore_index);
    Tensor checked = target.masked_select(valid);
    if (checked.numel() > 0) {
      const int64_t lo = checked.min().item<int64_t>(), hi = checked.max().item<int64_t>();
      NABLA_CHECK(lo >= 0 && hi < classes, op, ": target ", lo < 0 ? lo : hi,
                  " is out of bounds for ", classes, " classes (valid: 0 to ", classes - 1,
                  ", or ignore_index ", ignore_index, ")");
    }
  }
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  check_pair("mse_loss", input, target);
  Tensor d = input - target;
  return reduce(d * d, reduction, "mse_loss");
}

Tensor l1_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  check_pair("l1_loss", input, target);
  return reduce((input - target).abs(), reduction, "l1_loss");
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int64_t reduction, double beta) {
  check_pair("smooth_l1_loss", input, target);
  NABLA_CHECK(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  if (beta == 0) return l1_loss(input, target, reduction);
  Tensor d = (input - target).abs();
  Tensor loss = where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta);
  return reduce(loss, reduction, "smooth_l1_loss");
}

Tensor huber_loss(const Tensor& input, const Tensor& target, int64_t reduction, double delta) {
  check_pair("huber_loss", input, target);
  NABLA_CHECK(delta > 0, "huber_loss: delta must be positive, got ", delta);
  Tensor d = (input - target).abs();
  Tensor loss = where(d <= delta, d * d * 0.5, (d - 0.5 * delta) * delta);
  return reduce(loss, reduction, "huber_loss");
}

Tensor nll_loss_nd(const Tensor& input, const Tensor& target, const Tensor& weight,
                   int64_t reduction, int64_t ignore_index) {
  check_class_target("nll_loss", input, target, weight, ignore_index);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Tensor t = target.to(kLong);
  Tensor keep = t.ne(ignore_index);
  Tensor safe = t.masked_fill(keep.logical_not(), 0);
  Tensor picked = input.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim);
  Tensor w =
      weight.defined()
          ? weight.to(input.scalar_type()).index_select(0, safe.reshape({-1})).view(safe.sizes())
          : ones_like(picked);
  w = w * keep.to(input.scalar_type());
  Tensor loss = -picked * w;
  if (reduction == Reduction::Mean) return loss.sum() / w.sum();
  return reduce(loss, reduction, "nll_loss");
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction,
                int64_t ignore_index) {
  NABLA_CHECK(!input.defined() || input.dim() <= 2, "nll_loss: input must be 1-d or 2-d, got ",
              input.dim(), " dims (use nll_loss_nd / F::nll_loss for (N, C, d1, ...))");
  return nll_loss_nd(input, target, weight, reduction, ignore_index);
}

Tensor nll_loss2d(const Tensor& input, const Tensor& target, const Tensor& weight,
                  int64_t reduction, int64_t ignore_index) {
  NABLA_CHECK(input.defined() && input.dim() == 4,
              "nll_loss2d: input must be 4-d (N, C, H, W), got ", input.defined() ? input.dim() : 0,
              " dims");
  return nll_loss_nd(input, target, weight, reduction, ignore_index);
}

Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  NABLA_CHECK(input.defined() && target.defined(),
              "cross_entropy: input and target must be defined");
  NABLA_CHECK(input.dim() >= 1,
              "cross_entropy: input must have a class dimension, got a 0-d tensor");
  NABLA_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
              "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  NABLA_CHECK(input.is_floating_point(), "cross_entropy: input must be floating, got ",
              input.scalar_type());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(class_dim);
  Tensor logp = input.log_softmax(class_dim);
  std::vector<int64_t> wshape(static_cast<size_t>(input.dim()), 1);
  wshape[static_cast<size_t>(class_dim)] = classes;
  if (target.is_floating_point()) {  // class probabilities
    check_same_shape("cross_entropy", input, target);
    Tensor p = label_smoothing > 0
                   ? target * (1 - label_smoothing) + label_smoothing / static_cast<double>(classes)
                   : target;
    Tensor prod = logp * p;
    if (weight.defined()) {
      NABLA_CHECK(weight.dim() == 1 && weight.size(0) == classes,
                  "cross_entropy: weight must have one value per class (", classes, "), got shape ",
                  weight.sizes());
      prod = prod * weight.view(wshape);
    }
    if (reduction == Reduction::None) return -prod.sum(class_dim);
    if (reduction == Reduction::Sum) return -prod.sum();
    NABLA_CHECK(reduction == Reduction::Mean, "cross_entropy: reduction must be 0, 1 or 2, got ",
                reduction);
    return -prod.sum() / (static_cast<double>(input.numel()) / static_cast<double>(classes));
  }
  Tensor nll = nll_loss_nd(logp, target, weight, reduction, ignore_index);
  if (label_smoothing == 0) return nll;
  Tensor ignored = target.eq(ignore_index);
  Tensor smooth =
      weight.defined() ? -(logp * weight.view(wshape)).sum(class_dim) : -logp.sum(class_dim);
  smooth = smooth.masked_fill(ignored, 0.0);
  Tensor ret;
  if (reduction == Reduction::Mean) {
    if (weight.defined()) {
      Tensor kept = target.masked_select(ignored.logical_not()).to(kLong).reshape({-1});
      ret = smooth.sum() / weight.gather(0, kept).sum();
    } else {
      ret = smooth.sum() / ignored.logical_not().sum();
    }
  } else {
    ret = reduce(smooth, reduction, "cross_entropy");
  }
  return nll * (1 - label_smoothing) + ret * (label_smoothing / static_cast<double>(classes));
}

namespace {

// The gradient of a reduced loss, as an elementwise factor of the input's shape.
Tensor unreduce(const Tensor& grad, const Tensor& input, int64_t reduction) {
  if (reduction == Reduction::Mean)
    return (grad / static_cast<double>(std::max<int64_t>(input.numel(), 1))).expand(input.sizes());
  if (reduction == Reduction::Sum) return grad.expand(input.sizes());
  return grad;
}

// BinaryCrossEntropyBackward0 (LibTorch's formulas): the composite formula's clamps of
// log(x) and log(1 - x) at -100 would give 0 * inf = NaN where x is exactly 0 or 1 (a
// saturated sigmoid in float32); LibTorch divides by max(x (1 - x), 1e-12) instead.
autograd::variable_list bce_bw(autograd::FormulaNode& n, const autograd::variable_list& g) {
  Tensor x = n.saved(0), t = n.saved(1), w = n.saved(2);
  Tensor gr = unreduce(g[0], x, n.dim);
  if (w.defined()) gr = gr * w;
  Tensor gx, gt;
  // LibTorch's EPSILON is the float 1e-12 (9.9999999600e-13 as a double).
  if (n.needs_input_grad(0))
    gx = gr * (x - t) / ((1 - x) * x).clamp_min(static_cast<double>(1e-12f));
  if (n.needs_input_grad(1)) gt = gr * ((-x).log1p() - x.log());
  return {gx, gt};
}
const autograd::Formula kBinaryCrossEntropy{"BinaryCrossEntropyBackward0", bce_bw};

// BinaryCrossEntropyWithLogitsBackward0: d/dx = sigmoid(x) - t (scaled by pos_weight),
// smooth everywhere; the stable forward formula's max/abs kinks at x = 0 must not reach
// the gradient.
autograd::variable_list bce_logits_bw(autograd::FormulaNode& n, const autograd::variable_list& g) {
  Tensor x = n.saved(0), t = n.saved(1), w = n.saved(2), pw = n.saved(3);
  Tensor gr = unreduce(g[0], x, n.dim);
  if (w.defined()) gr = gr * w;
  Tensor gx, gt;
  if (n.needs_input_grad(0)) {
    if (pw.defined()) {
      Tensor pt = pw * t;
      gx = gr * ((pt + 1 - t) * x.sigmoid() - pt);
    } else {
      gx = gr * (x.sigmoid() - t);
    }
  }
  if (n.needs_input_grad(1)) {
    // d/dt of (1 - t) x + (1 + (pw - 1) t) softplus(-x).
    gt = pw.defined() ? gr * ((pw - 1) * ((-x.abs()).exp().log1p() + (-x).clamp_min(0)) - x)
                      : gr * -x;
  }
  return {gx, gt};
}
const autograd::Formula kBinaryCrossEntropyWithLogits{"BinaryCrossEntropyWithLogitsBackward0",
                                                      bce_logits_bw};

// As LibTorch: these losses have no derivative for their weights; a weight that requires
// grad is refused at the call instead of silently getting no gradient.
void check_no_requires_grad(const Tensor& t, const char* name, const char* op) {
  NABLA_CHECK(!autograd::any_requires_grad(t), "The function '", op,
              "' is not differentiable with respect to argument '", name,
              "'. This input cannot have requires_grad True.");
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            int64_t reduction) {
  NABLA_CHECK(input.defined() && target.defined(),
              "binary_cross_entropy: input and target must be defined");
  check_same_shape("binary_cross_entropy", input, target);
  if (input.numel() > 0) {
    const double lo = input.min().item<double>(), hi = input.max().item<double>();
    NABLA_CHECK(lo >= 0 && hi <= 1,
                "binary_cross_entropy: all elements of input should be between 0 and 1, got ",
                "values in [", lo, ", ", hi, "] (use binary_cross_entropy_with_logits for logits)");
  }
  check_no_requires_grad(weight, "weight", "binary_cross_entropy");
  Tensor out = no_grad([&] {
    Tensor log_x = input.log().clamp_min(-100);
    Tensor log_1mx = (1 - input).log().clamp_min(-100);
    Tensor loss = -(target * log_x + (1 - target) * log_1mx);
    if (weight.defined()) loss = loss * weight;
    return reduce(loss, reduction, "binary_cross_entropy");
  });
  if (autograd::any_requires_grad(input, target)) {
    auto node = autograd::make_node(kBinaryCrossEntropy, {&input, &target});
    node->save(input);
    node->save(target);
    node->save(weight);
    node->dim = reduction;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        int64_t reduction) {
  NABLA_CHECK(input.defined() && target.defined(),
              "binary_cross_entropy_with_logits: input and target must be defined");
  check_same_shape("binary_cross_entropy_with_logits", input, target);
  check_no_requires_grad(weight, "weight", "binary_cross_entropy_with_logits");
  check_no_requires_grad(pos_weight, "pos_weight", "binary_cross_entropy_with_logits");
  Tensor out = no_grad([&] {
    // log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow.
    Tensor softplus_neg = (-input.abs()).exp().log1p() + (-input).clamp_min(0);
    Tensor loss = pos_weight.defined()
                      ? (1 - target) * input + ((pos_weight - 1) * target + 1) * softplus_neg
                      : (1 - target) * input + softplus_neg;
    if (weight.defined()) loss = loss * weight;
    return reduce(loss, reduction, "binary_cross_entropy_with_logits");
  });
  if (autograd::any_requires_grad(input, target)) {
    auto node = autograd::make_node(kBinaryCrossEntropyWithLogits, {&input, &target});
    node->save(input);
    node->save(target);
    node->save(weight);
    node->save(pos_weight);
    node->dim = reduction;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor kl_div(const Tensor& input, const Tensor& target, int64_t reduction, bool log_target) {
  check_pair("kl_div", input, target);
  Tensor loss;
  if (log_target) {
    loss = target.exp() * (target - input);
  } else {
    // xlogy(t, t) - t * x, with 0 log 0 = 0.
    Tensor tlogt = where(target.eq(0), zeros_like(target), target * target.log());
    loss = tlogt - target * input;
  }
  return reduce(loss, reduction, "kl_div");
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  check_pair("soft_margin_loss", input, target);
  return reduce((-target * input).exp().log1p(), reduction, "soft_margin_loss");
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin, int64_t reduction) {
  check_pair("margin_ranking_loss", input1, target);
  check_pair("margin_ranking_loss", input2, target);
  return reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction,
                "margin_ranking_loss");
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin,
                            int64_t reduction) {
  check_pair("hinge_embedding_loss", input, target);
  Tensor margin_clamp = (margin - input).clamp_min(0);
  Tensor out_margin = where(target.ne(1), margin_clamp, zeros_like(margin_clamp));
  Tensor out_self = where(target.ne(-1), input, zeros_like(input));
  return reduce(out_margin + out_self, reduction, "hinge_embedding_loss");
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin, int64_t reduction) {
  NABLA_CHECK(input1.defined() && input2.defined() && target.defined(),
              "cosine_embedding_loss: undefined input");
  check_same_shape("cosine_embedding_loss", input1, input2);
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
  return reduce(loss, reduction, "cosine_embedding_loss");
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, int64_t reduction) {
  check_pair("poisson_nll_loss", input, target);
  Tensor loss = log_input ? input.exp() - target * input : input - target * (input + eps).log();
  if (full) {
    Tensor stirling = target * target.log() - target + (target * (2 * M_PI)).log() * 0.5;
    loss = loss + where(target > 1, stirling, zeros_like(stirling));
  }
  return reduce(loss, reduction, "poisson_nll_loss");
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap, int64_t reduction) {
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
  return reduce((d_pos - d_neg + margin).clamp_min(0), reduction, "triplet_margin_loss");
}

}  // namespace nabla
