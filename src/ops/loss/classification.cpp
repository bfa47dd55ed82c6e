// The classification losses: nll_loss (and its 2-d and n-d forms), cross_entropy
// (log_softmax then nll_loss, or class probabilities, label smoothing as PyTorch), binary
// cross-entropy with and without logits. cross_entropy over class indices is one fused
// node where the device has the kernels (Note [Fused cross-entropy]). Values are computed
// without history and recorded as LibTorch's nodes (NllLossBackward0, NllLoss2DBackward0,
// BinaryCrossEntropyBackward0, BinaryCrossEntropyWithLogitsBackward0), whose formulas are
// written with differentiable ops; the composite parts of cross_entropy (label smoothing,
// probability targets) keep their pieces' nodes, as in LibTorch.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/trace.h"
#include "ops/loss/loss_utils.h"
#include "ops/nn/nn_registry.h"

namespace nabla {

namespace {

using ops::check_no_requires_grad;
using ops::check_same_shape;
using ops::reduce_loss;

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
  // Ignored targets pass as class 0.
  ops::check_index_range(target.to(kLong).masked_fill(target.eq(ignore_index), 0), 0, classes,
                         {op, "target",
                          str(classes, " classes (valid: 0 to ", classes - 1, ", or ignore_index ",
                              ignore_index, ")")});
}

// ---- nll_loss ------------------------------------------------------------------------------

/// The targets of nll_loss as its forward and backward read them.
struct NllTargets {
  Tensor keep;    // bool: the target is not ignore_index
  Tensor safe;    // int64 classes, the ignored ones replaced by class 0 (a valid index)
  Tensor weight;  // weight[target] (or 1), 0 where ignored, in the input's dtype
};
NllTargets nll_targets(const Tensor& target, const Tensor& weight, int64_t ignore_index,
                       ScalarType dtype) {
  Tensor t = target.to(kLong);
  Tensor keep = t.ne(ignore_index);
  Tensor safe = t.masked_fill(keep.logical_not(), 0);
  Tensor w = keep.to(dtype);
  if (weight.defined())
    w = w * weight.to(dtype).index_select(0, safe.reshape({-1})).view(safe.sizes());
  return {keep, safe, w};
}

/// NllLossBackward0 (input [C] or [N, C]) and NllLoss2DBackward0 ([N, C, H, W]).
struct NllLossState {
  SavedVariable keep, safe_target, target_weight;  // NllTargets
  int64_t reduction = Reduction::Mean;
  DimVector input_sizes;
  auto saved() { return std::tie(keep, safe_target, target_weight); }
};

// grad_input = -weight[t] * grad (over the total weight for Mean) at each target's class,
// 0 elsewhere and for ignored targets: linear in grad, so higher derivatives follow.
variable_list nll_loss_backward(OpNode<NllLossState>& n, const variable_list& g) {
  const NllLossState& s = n.state;
  const IntArrayRef sizes(s.input_sizes.data(), s.input_sizes.size());
  const int64_t class_dim = sizes.size() == 1 ? 0 : 1;
  Tensor w = n.get(s.target_weight);
  Tensor per_target = s.reduction == Reduction::Mean ? g[0] / w.sum() : g[0];
  // `where` keeps ignored targets at 0 even when the total weight is 0 (Mean of nothing).
  Tensor src = where(n.get(s.keep), -w * per_target, Scalar(0));
  return {
      zeros(sizes, g[0].options())
          .scatter(class_dim, n.get(s.safe_target).unsqueeze(class_dim), src.unsqueeze(class_dim))};
}
constexpr NodeType<NllLossState> kNllLoss{"NllLossBackward0", nll_loss_backward};
constexpr NodeType<NllLossState> kNllLoss2d{"NllLoss2DBackward0", nll_loss_backward};

// input [C], [N, C] or [N, C, H, W] with a checked target; recorded as `type`.
Tensor nll_loss_node(const NodeType<NllLossState>& type, const Tensor& input, const Tensor& target,
                     const Tensor& weight, int64_t reduction, int64_t ignore_index) {
  check_no_requires_grad(weight, "weight", "nll_loss_forward");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  NllTargets t;
  Tensor out;
  {
    NoGradGuard no_grad;
    t = nll_targets(target, weight, ignore_index, input.scalar_type());
    Tensor loss =
        -input.gather(class_dim, t.safe.unsqueeze(class_dim)).squeeze(class_dim) * t.weight;
    out = reduction == Reduction::Mean ? loss.sum() / t.weight.sum()
                                       : reduce_loss(loss, reduction, "nll_loss");
  }
  if (auto node = autograd::record_node(type, {&input})) {
    node->state.keep = autograd::save(t.keep);
    node->state.safe_target = autograd::save(t.safe);
    node->state.target_weight = autograd::save(t.weight);
    node->state.reduction = reduction;
    node->state.input_sizes = DimVector(input.sizes().begin(), input.sizes().end());
    autograd::set_history(out, node);
  }
  return out;
}

// ---- cross-entropy over class indices, fused ----------------------------------------------
//
// Note [Fused cross-entropy]
// cross_entropy over class indices is log_softmax then nll_loss. Composed, it writes the
// log-softmax matrix [N, C] and keeps it for the backward, where nll_loss scatters into a
// dense [N, C] of zeros that log_softmax's backward reads again: for GPT-2's 50,257
// classes, four passes over 0.2 MB per token more than the loss needs. The fused node
// keeps the logits and two numbers per row, their maximum and the log of the sum of
// exp(x - max): its forward reads the logits (the backend's cross_entropy_forward) and its
// backward writes their gradient in one pass (cross_entropy_backward):
//   d loss / d x[n, c] = coef[n] * (softmax(x)[n, c] - (c == t[n])),
//   coef[n] = weight[t[n]] * grad (grad[n] for reduction None, over the total weight for
//   Mean), and 0 for an ignored target.
// The node carries LibTorch's name for the loss's node (NllLossBackward0, so grad_fn()->name()
// reads as in LibTorch) but leads straight to the logits: there is no LogSoftmaxBackward0
// after it. Under create_graph its backward is written with differentiable ops (the softmax
// of the saved logits), so second derivatives work. Label smoothing, probability targets,
// inputs of more than two dims and devices without the kernels take the composed path.

/// NllLossBackward0 of the fused form: the logits as [N, C], the forward's per-row
/// statistics and the targets.
struct CrossEntropyState {
  SavedVariable logits, row_max, log_sum, keep, safe_target, target_weight;
  int64_t reduction = Reduction::Mean;
  bool one_dim = false;  // the input was [C] (the logits are saved as [1, C])
  auto saved() { return std::tie(logits, row_max, log_sum, keep, safe_target, target_weight); }
};

variable_list fused_cross_entropy_backward(OpNode<CrossEntropyState>& n, const variable_list& g) {
  const CrossEntropyState& s = n.state;
  const Tensor x = n.get(s.logits), w = n.get(s.target_weight), keep = n.get(s.keep);
  const Tensor target = n.get(s.safe_target);
  const Tensor per_row = s.reduction == Reduction::Mean ? g[0] / w.sum() : g[0].reshape({-1});
  const Tensor coef = where(keep, w * per_row, Scalar(0));
  Tensor gx;
  if (!GradMode::is_enabled()) {
    gx = empty(x.sizes(), x.options());
    if (!backend_for(x).cross_entropy_backward(gx, x, n.get(s.row_max), n.get(s.log_sum), target,
                                               coef.to(x.scalar_type()).contiguous()))
      gx = Tensor();
  }
  if (!gx.defined()) {
    const Tensor one_hot = zeros_like(x).scatter(1, target.unsqueeze(1), Scalar(1));
    gx = ((x.softmax(1) - one_hot) * coef.unsqueeze(1))
             .masked_fill(keep.logical_not().unsqueeze(1), Scalar(0));
  }
  return {s.one_dim ? gx.view({x.size(1)}) : gx};
}
constexpr NodeType<CrossEntropyState> kFusedCrossEntropy{"NllLossBackward0",
                                                         fused_cross_entropy_backward};

// cross_entropy of input [C] or [N, C] at class indices, as one node; undefined when the
// input's device has no fused kernel for it (the caller composes the loss then).
Tensor fused_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                           int64_t reduction, int64_t ignore_index) {
  const int64_t classes = input.size(-1);
  const bool kernel_dtype = input.scalar_type() == kFloat || input.scalar_type() == kDouble;
  if (input.dim() > 2 || classes == 0 || !kernel_dtype) return Tensor();
  check_class_target("nll_loss", input, target, weight, ignore_index);
  check_no_requires_grad(weight, "weight", "nll_loss_forward");
  const bool one_dim = input.dim() == 1;
  const Tensor x = (one_dim ? input.view({1, classes}) : input).contiguous();
  NllTargets t;
  Tensor row_max, log_sum, out;
  {
    NoGradGuard no_grad;
    t = nll_targets(target.reshape({-1}), weight, ignore_index, x.scalar_type());
    const int64_t rows = x.size(0);
    Tensor loss = empty({rows}, x.options());
    row_max = empty({rows}, x.options());
    log_sum = empty({rows}, x.options());
    if (!backend_for(x).cross_entropy_forward(loss, row_max, log_sum, x, t.safe)) return Tensor();
    // where, not a product: an ignored row's loss may be NaN (a row of infinities).
    loss = where(t.keep, loss * t.weight, Scalar(0));
    out = reduction == Reduction::Mean ? loss.sum() / t.weight.sum()
                                       : reduce_loss(loss, reduction, "nll_loss");
    if (one_dim && reduction == Reduction::None) out = out.view({});
  }
  if (auto node = autograd::record_node(kFusedCrossEntropy, {&input})) {
    CrossEntropyState& s = node->state;
    s.logits = autograd::save(x);
    s.row_max = autograd::save(row_max);
    s.log_sum = autograd::save(log_sum);
    s.keep = autograd::save(t.keep);
    s.safe_target = autograd::save(t.safe);
    s.target_weight = autograd::save(t.weight);
    s.reduction = reduction;
    s.one_dim = one_dim;
    autograd::set_history(out, node);
  }
  return out;
}

// ---- binary cross-entropy ------------------------------------------------------------------

struct BceState {
  SavedVariable self, target, weight;
  int64_t reduction = Reduction::Mean;
  auto saved() { return std::tie(self, target, weight); }
};

// BinaryCrossEntropyBackward0 (LibTorch's formulas): the composite formula's clamps of
// log(x) and log(1 - x) at -100 would give 0 * inf = NaN where x is exactly 0 or 1 (a
// saturated sigmoid in float32); LibTorch divides by max(x (1 - x), 1e-12) instead.
variable_list bce_backward(OpNode<BceState>& n, const variable_list& g) {
  const BceState& s = n.state;
  Tensor x = n.get(s.self), t = n.get(s.target), w = n.get(s.weight);
  Tensor gr = ops::unreduced_grad(g[0], x.numel(), s.reduction);
  if (w.defined()) gr = gr * w;
  Tensor gx, gt;
  // LibTorch's EPSILON is the float 1e-12 (9.9999999600e-13 as a double).
  if (n.needs_input_grad(0))
    gx = gr * (x - t) / ((1 - x) * x).clamp_min(static_cast<double>(1e-12f));
  if (n.needs_input_grad(1)) gt = gr * ((-x).log1p() - x.log());
  return {gx, gt};
}
constexpr NodeType<BceState> kBinaryCrossEntropy{"BinaryCrossEntropyBackward0", bce_backward};

struct BceWithLogitsState {
  SavedVariable self, target, weight, pos_weight;
  int64_t reduction = Reduction::Mean;
  auto saved() { return std::tie(self, target, weight, pos_weight); }
};

// BinaryCrossEntropyWithLogitsBackward0: d/dx = sigmoid(x) - t (scaled by pos_weight),
// smooth everywhere; the stable forward formula's max/abs kinks at x = 0 must not reach
// the gradient.
variable_list bce_logits_backward(OpNode<BceWithLogitsState>& n, const variable_list& g) {
  const BceWithLogitsState& s = n.state;
  Tensor x = n.get(s.self), t = n.get(s.target), w = n.get(s.weight), pw = n.get(s.pos_weight);
  Tensor gr = ops::unreduced_grad(g[0], x.numel(), s.reduction);
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
constexpr NodeType<BceWithLogitsState> kBinaryCrossEntropyWithLogits{
    "BinaryCrossEntropyWithLogitsBackward0", bce_logits_backward};

}  // namespace

Tensor ops::nll_loss_nd_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                             int64_t reduction, int64_t ignore_index) {
  check_class_target("nll_loss", input, target, weight, ignore_index);
  if (input.dim() <= 2)
    return nll_loss_node(kNllLoss, input, target, weight, reduction, ignore_index);
  if (input.dim() == 4)
    return nll_loss_node(kNllLoss2d, input, target, weight, reduction, ignore_index);
  // Other ranks as LibTorch: through the 4-d form over [N, C, 1, L] (viewed back for None).
  const int64_t n = input.size(0), c = input.size(1);
  std::vector<int64_t> out_size(input.sizes().begin() + 2, input.sizes().end());
  out_size.insert(out_size.begin(), n);
  Tensor in4 =
      input.numel() > 0 ? input.contiguous().view({n, c, 1, -1}) : input.view({n, c, 0, 0});
  Tensor t3 = target.numel() > 0 ? target.contiguous().view({n, 1, -1}) : target.view({n, 0, 0});
  Tensor out = nll_loss_node(kNllLoss2d, in4, t3, weight, reduction, ignore_index);
  return reduction == Reduction::None ? out.view(out_size) : out;
}

Tensor ops::nll_loss_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                          int64_t reduction, int64_t ignore_index) {
  NABLA_CHECK(!input.defined() || input.dim() <= 2, "nll_loss: input must be 1-d or 2-d, got ",
              input.dim(), " dims (use nll_loss_nd / F::nll_loss for (N, C, d1, ...))");
  return nll_loss_nd(input, target, weight, reduction, ignore_index);
}

Tensor ops::nll_loss2d_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                            int64_t reduction, int64_t ignore_index) {
  NABLA_CHECK(input.defined() && input.dim() == 4,
              "nll_loss2d: input must be 4-d (N, C, H, W), got ", input.defined() ? input.dim() : 0,
              " dims");
  return nll_loss_nd(input, target, weight, reduction, ignore_index);
}

Tensor ops::cross_entropy_loss_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                                    int64_t reduction, int64_t ignore_index,
                                    double label_smoothing) {
  NABLA_CHECK(input.defined() && target.defined(),
              "cross_entropy: input and target must be defined");
  NABLA_CHECK(input.dim() >= 1,
              "cross_entropy: input must have a class dimension, got a 0-d tensor");
  NABLA_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
              "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  NABLA_CHECK(input.is_floating_point(), "cross_entropy: input must be floating, got ",
              input.scalar_type());
  if (!target.is_floating_point() && label_smoothing == 0) {
    Tensor fused = fused_cross_entropy(input, target, weight, reduction, ignore_index);
    if (fused.defined()) return fused;
  }
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
    ret = reduce_loss(smooth, reduction, "cross_entropy");
  }
  return nll * (1 - label_smoothing) + ret * (label_smoothing / static_cast<double>(classes));
}

Tensor ops::binary_cross_entropy_impl(const Tensor& input, const Tensor& target,
                                      const Tensor& weight, int64_t reduction) {
  NABLA_CHECK(input.defined() && target.defined(),
              "binary_cross_entropy: input and target must be defined");
  // As LibTorch's op (not F::binary_cross_entropy, which insists on equal sizes): sizes
  // that agree once their 1s are squeezed out ([N, 1] and [N]) pair element for element,
  // and the loss has the input's shape.
  const Tensor target_as_input =
      input.sizes() != target.sizes() && input.squeeze().sizes() == target.squeeze().sizes()
          ? target.reshape(input.sizes())
          : target;
  check_same_shape("binary_cross_entropy", input, target_as_input);
  if (input.numel() > 0) {
    const double lo = input.min().item<double>(), hi = input.max().item<double>();
    NABLA_CHECK(lo >= 0 && hi <= 1,
                "binary_cross_entropy: all elements of input should be between 0 and 1, got ",
                "values in [", lo, ", ", hi, "] (use binary_cross_entropy_with_logits for logits)");
  }
  check_no_requires_grad(weight, "weight", "binary_cross_entropy");
  const Tensor& t = target_as_input;
  Tensor out = no_grad([&] {
    Tensor log_x = input.log().clamp_min(-100);
    Tensor log_1mx = (1 - input).log().clamp_min(-100);
    Tensor loss = -(t * log_x + (1 - t) * log_1mx);
    if (weight.defined()) loss = loss * weight;
    return reduce_loss(loss, reduction, "binary_cross_entropy");
  });
  if (auto node = autograd::record_node(kBinaryCrossEntropy, {&input, &t})) {
    node->state = {autograd::save(input), autograd::save(t), autograd::save(weight), reduction};
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::binary_cross_entropy_with_logits_impl(const Tensor& input, const Tensor& target,
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
    return reduce_loss(loss, reduction, "binary_cross_entropy_with_logits");
  });
  if (auto node = autograd::record_node(kBinaryCrossEntropyWithLogits, {&input, &target})) {
    node->state = {autograd::save(input), autograd::save(target), autograd::save(weight),
                   autograd::save(pos_weight), reduction};
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace nabla
