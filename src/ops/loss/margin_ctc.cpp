// multilabel_margin_loss, multi_margin_loss and ctc_loss, composed from differentiable ops
// (so every derivative follows; their nodes are the composites' last ops, not LibTorch's
// fused MultilabelMarginLossBackward0 / MultiMarginLossBackward0 / CtcLossBackward0).
#include <algorithm>
#include <limits>
#include <vector>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/loss.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

// input (C) or (N, C), non-empty classes; returns it as (N, C).
Tensor as_batch(const char* op, const Tensor& input) {
  ops::check_defined(input, op);
  NABLA_CHECK((input.dim() == 1 && input.size(0) > 0) || (input.dim() == 2 && input.size(1) > 0),
              op, ": Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
              input.sizes());
  NABLA_CHECK(input.is_floating_point(), op, ": expected a floating input, got ",
              input.scalar_type());
  return input.dim() == 1 ? input.unsqueeze(0) : input;
}

std::vector<int64_t> host_longs(const Tensor& t) {
  const Tensor h = ops::host_values(t.to(kLong).contiguous());
  const int64_t* p = ops::host_ptr<int64_t>(h);
  return std::vector<int64_t>(p, p + h.numel());
}

}  // namespace

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  const char* op = "multilabel_margin_loss";
  const Tensor x = as_batch(op, input);
  ops::check_defined(target, op);
  NABLA_CHECK(target.sizes() == input.sizes(), op, ": inconsistent target size: ", target.sizes(),
              " for input of size: ", input.sizes());
  NABLA_CHECK(target.scalar_type() == kLong, op, ": expected a Long target, got ",
              target.scalar_type());
  const int64_t n = x.size(0), c = x.size(1);
  // count[b, j]: how often class j is listed before the first -1 (LibTorch sums over the
  // list, repeats included); other[b, i]: class i is not listed.
  const std::vector<int64_t> t = host_longs(target);
  std::vector<double> count(static_cast<size_t>(n * c), 0.0),
      other(static_cast<size_t>(n * c), 1.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k) {
      const int64_t j = t[static_cast<size_t>(b * c + k)];
      NABLA_CHECK(j >= -1 && j < c, op, ": target ", j,
                  " is out of range (expected -1 <= ", "target < ", c, ")");
      if (j < 0) break;
      count[static_cast<size_t>(b * c + j)] += 1;
      other[static_cast<size_t>(b * c + j)] = 0;
    }
  const TensorOptions opts = TensorOptions(kDouble).device(x.device());
  const Tensor listed = tensor(count, opts).view({n, c, 1}).to(x.scalar_type());
  const Tensor rest = tensor(other, opts).view({n, 1, c}).to(x.scalar_type());
  // hinge[b, j, i] = max(0, 1 - (x[b, j] - x[b, i])) for listed j and unlisted i.
  const Tensor hinge = (1 - x.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0);
  Tensor loss = (hinge * listed * rest).sum({1, 2}) / static_cast<double>(c);
  if (input.dim() == 1) loss = loss.squeeze(0);
  return reduce(loss, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const Scalar& p,
                         const Scalar& margin, const Tensor& weight, int64_t reduction) {
  const char* op = "multi_margin_loss";
  const Tensor x = as_batch(op, input);
  ops::check_defined(target, op);
  const int64_t n = x.size(0), c = x.size(1);
  const double power = p.to<double>();
  NABLA_CHECK(power == 1 || power == 2, op, ": only p == 1 and p == 2 supported, got ", power);
  NABLA_CHECK(target.scalar_type() == kLong, op, ": expected a Long target, got ",
              target.scalar_type());
  NABLA_CHECK(target.numel() == n && target.dim() <= 1, op,
              ": inconsistent target size: ", target.sizes(),
              " for input of size: ", input.sizes());
  NABLA_CHECK(!weight.defined() || (weight.dim() <= 1 && weight.numel() == c), op,
              ": inconsistent weight size, expected ", c, " but got ",
              weight.defined() ? weight.sizes() : IntArrayRef());
  const Tensor y = target.reshape({n, 1});
  for (int64_t v : host_longs(target))
    NABLA_CHECK(v >= 0 && v < c, op, ": target out of range, got ", v, " for ", c, " classes");
  // h[b, i] = w[y] max(0, margin - x[b, y] + x[b, i])^p for i != y, summed / C.
  const Tensor z = (x - x.gather(1, y) + margin).clamp_min(0);
  Tensor h = power == 2 ? z * z : z;
  h = h.scatter(1, y, 0);
  if (weight.defined()) h = h * weight.reshape({c}).index_select(0, y.reshape({n})).unsqueeze(1);
  Tensor loss = h.sum(1) / static_cast<double>(c);
  if (input.dim() == 1) loss = loss.squeeze(0);
  return reduce(loss, reduction);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  const char* op = "ctc_loss";
  ops::check_defined(log_probs, op);
  ops::check_defined(targets, op);
  NABLA_CHECK(log_probs.dim() == 3 || log_probs.dim() == 2, op,
              ": expected log_probs of 3 dims (T, N, C) or 2 (T, C), got ", log_probs.dim());
  NABLA_CHECK(log_probs.is_floating_point(), op, ": log_probs must be floating, got ",
              log_probs.scalar_type());
  if (isReducedFloatingType(log_probs.scalar_type())) [[unlikely]]  // Note [16-bit compute]
    return ctc_loss(log_probs.to(kFloat), targets, input_lengths, target_lengths, blank, reduction,
                    zero_infinity)
        .to(log_probs.scalar_type());
  NABLA_CHECK(targets.scalar_type() == kLong || targets.scalar_type() == kInt, op,
              ": targets must be Long or Int, got ", targets.scalar_type());
  const bool batched = log_probs.dim() == 3;
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);  // [T, N, C]
  const int64_t steps = lp.size(0), n = lp.size(1), classes = lp.size(2);
  NABLA_CHECK(blank >= 0 && blank < classes, op, ": blank must be in label range [0, ", classes,
              "), got ", blank);
  NABLA_CHECK(static_cast<int64_t>(input_lengths.size()) == n, op,
              ": input_lengths must be of size batch_size (", n, "), got ", input_lengths.size());
  NABLA_CHECK(static_cast<int64_t>(target_lengths.size()) == n, op,
              ": target_lengths must be of size batch_size (", n, "), got ", target_lengths.size());
  // Each sample's targets, from a padded (N, S) tensor or one concatenated list.
  const std::vector<int64_t> flat = host_longs(targets);
  // Padded: (N, S), or an unbatched sample's (S); else the batch's labels one after another.
  const bool padded = targets.dim() == 2 || !batched;
  std::vector<std::vector<int64_t>> labels(static_cast<size_t>(n));
  int64_t offset = 0, longest = 0;
  for (int64_t b = 0; b < n; ++b) {
    const int64_t len = target_lengths[static_cast<size_t>(b)];
    const int64_t in_len = input_lengths[static_cast<size_t>(b)];
    NABLA_CHECK(in_len >= 0 && in_len <= steps, op,
                ": Expected input_lengths to have value at most ", steps, ", but got value ",
                in_len, " (while checking arguments for ctc_loss_cpu)");
    NABLA_CHECK(len >= 0, op, ": target lengths must be non-negative, got ", len);
    const int64_t start = padded && targets.dim() == 2 ? b * targets.size(1) : padded ? 0 : offset;
    if (padded && targets.dim() == 2)
      NABLA_CHECK(len <= targets.size(1), op, ": Expected tensor to have size at least ", len,
                  " at dimension 1, but got size ", targets.size(1), " for argument #2 'targets'");
    NABLA_CHECK(start + len <= static_cast<int64_t>(flat.size()), op, ": targets hold ",
                flat.size(), " labels, fewer than target_lengths ask for");
    for (int64_t k = 0; k < len; ++k) {
      const int64_t l = flat[static_cast<size_t>(start + k)];
      NABLA_CHECK(l >= 0 && l < classes, op, ": target label ", l, " is out of range [0, ", classes,
                  ")");
      labels[static_cast<size_t>(b)].push_back(l);
    }
    offset += len;
    longest = std::max(longest, len);
  }
  // The extended labels (blank, l1, blank, l2, ..., blank) and which positions may skip
  // from two back (a label unlike the one two before).
  const int64_t width = 2 * longest + 1;
  std::vector<int64_t> ext(static_cast<size_t>(n * width), blank);
  std::vector<double> skip(static_cast<size_t>(n * width), 0.0);
  std::vector<int64_t> last_time(static_cast<size_t>(n)), end_a(static_cast<size_t>(n)),
      end_b(static_cast<size_t>(n));
  for (int64_t b = 0; b < n; ++b) {
    const auto& lab = labels[static_cast<size_t>(b)];
    for (size_t k = 0; k < lab.size(); ++k) {
      const auto s = static_cast<size_t>(b * width) + 2 * k + 1;
      ext[s] = lab[k];
      if (k > 0 && lab[k] != lab[k - 1]) skip[s] = 1;
    }
    const auto len = static_cast<int64_t>(lab.size());
    last_time[static_cast<size_t>(b)] =
        std::max<int64_t>(input_lengths[static_cast<size_t>(b)] - 1, 0);
    end_a[static_cast<size_t>(b)] = 2 * len;
    end_b[static_cast<size_t>(b)] = std::max<int64_t>(2 * len - 1, 0);
  }
  const TensorOptions long_opts = TensorOptions(kLong).device(lp.device());
  const Tensor ext_t = tensor(ext, long_opts).view({1, n, width}).expand({steps, n, width});
  const Tensor emit = lp.gather(2, ext_t);  // [T, N, width]
  // Unreachable states hold a large negative number, not -inf, so that the gradients of
  // the log-sum-exps stay finite (0 / 0 would poison them with NaN).
  const double far = -1e30;
  const Tensor skip_mask =
      tensor(skip, TensorOptions(kDouble).device(lp.device())).view({n, width}).to(kBool);
  std::vector<double> init(static_cast<size_t>(n * width), far);
  for (int64_t b = 0; b < n; ++b) {
    init[static_cast<size_t>(b * width)] = 0;
    if (width > 1 && !labels[static_cast<size_t>(b)].empty())
      init[static_cast<size_t>(b * width + 1)] = 0;
  }
  const Tensor start_mask = tensor(init, TensorOptions(kDouble).device(lp.device()))
                                .view({n, width})
                                .to(lp.scalar_type());
  std::vector<Tensor> alphas;
  Tensor alpha = emit[0] + start_mask;  // [N, width]
  alphas.push_back(alpha);
  for (int64_t t = 1; t < steps; ++t) {
    const Tensor stay = alpha;
    const Tensor step = constant_pad_nd(alpha, {1, 0}, far).narrow(1, 0, width);
    const Tensor jump = constant_pad_nd(alpha, {2, 0}, far)
                            .narrow(1, 0, width)
                            .masked_fill(skip_mask.logical_not(), far);
    const Tensor all = stack({stay, step, jump}, 0);
    const Tensor top = std::get<0>(all.max(0)).detach();
    alpha = top + (all - top).exp().sum(0).log() + emit[t];
    alphas.push_back(alpha);
  }
  // Each sample's alpha at its last input step, then its two final states.
  const Tensor history = stack(alphas, 0);  // [T, N, width]
  const Tensor at_end =
      history.gather(0, tensor(last_time, long_opts).view({1, n, 1}).expand({1, n, width}))
          .squeeze(0);
  const Tensor a = at_end.gather(1, tensor(end_a, long_opts).view({n, 1})).squeeze(1);
  Tensor b_end = at_end.gather(1, tensor(end_b, long_opts).view({n, 1})).squeeze(1);
  std::vector<double> has_two(static_cast<size_t>(n));
  std::vector<double> no_input(static_cast<size_t>(n));
  for (int64_t b = 0; b < n; ++b) {
    has_two[static_cast<size_t>(b)] = labels[static_cast<size_t>(b)].empty() ? 0 : 1;
    no_input[static_cast<size_t>(b)] = input_lengths[static_cast<size_t>(b)] == 0 ? 1 : 0;
  }
  const TensorOptions dopts = TensorOptions(kDouble).device(lp.device());
  b_end = b_end.masked_fill(tensor(has_two, dopts).to(kBool).logical_not(), far);
  const Tensor top = maximum(a, b_end).detach();
  Tensor loss = -(top + ((a - top).exp() + (b_end - top).exp()).log());
  // An input of length 0 emits nothing: probability 1 for an empty target, else 0.
  const Tensor empty_input = tensor(no_input, dopts).to(kBool);
  loss = loss.masked_fill(empty_input, 0);
  Tensor impossible =
      (loss > 1e29).logical_or(empty_input.logical_and(tensor(has_two, dopts).to(kBool)));
  if (zero_infinity) {
    loss = loss.masked_fill(impossible, 0);
  } else {
    loss = loss.masked_fill(impossible, std::numeric_limits<double>::infinity());
  }
  if (!batched) loss = loss.squeeze(0);
  if (reduction == Reduction::Mean) {
    std::vector<double> lens(target_lengths.begin(), target_lengths.end());
    Tensor divisor = tensor(lens, dopts).clamp_min(1).to(loss.scalar_type());
    if (!batched) divisor = divisor.squeeze(0);
    return (loss / divisor).mean();
  }
  return reduce(loss, reduction);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction,
                bool zero_infinity) {
  ops::check_defined(input_lengths, "ctc_loss");
  ops::check_defined(target_lengths, "ctc_loss");
  NABLA_CHECK(!input_lengths.is_floating_point() && input_lengths.scalar_type() != kBool,
              "ctc_loss: input_lengths must be integral, got ", input_lengths.scalar_type());
  NABLA_CHECK(!target_lengths.is_floating_point() && target_lengths.scalar_type() != kBool,
              "ctc_loss: target_lengths must be integral, got ", target_lengths.scalar_type());
  const std::vector<int64_t> in = host_longs(input_lengths), tl = host_longs(target_lengths);
  return ctc_loss(log_probs, targets, in, tl, blank, reduction, zero_infinity);
}

}  // namespace nabla
