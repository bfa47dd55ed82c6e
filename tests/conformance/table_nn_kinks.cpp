// Op-table entries at the points where a loss or activation is not smooth, or where a
// composite formula of it has a kink its function does not have: probabilities of
// exactly 0 and 1, logits of exactly 0, targets of exactly 0, differences of exactly 0 or
// ±beta, inputs on each activation's thresholds. A composite formula with max/abs/clamp/
// where can give a gradient there that differs from LibTorch's (or NaN where LibTorch
// gives 0): these entries compare values and gradients against LibTorch at those points.
// Finite differences do not apply (the points sit on kinks).
#include "table.h"

namespace conform {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

/// A generator of fixed values: each case is a list of inputs, each input a list of
/// values (1-d tensors in the requested dtype).
Gen points(std::vector<std::vector<std::vector<double>>> cases) {
  return [cases](Rng&, nabla::ScalarType dtype) {
    Samples out;
    for (const auto& c : cases) {
      std::vector<nabla::Tensor> inputs;
      for (const auto& values : c)
        inputs.push_back(nabla::tensor(values, nabla::kDouble).to(dtype));
      out.push_back(sample_of(inputs));
    }
    return out;
  };
}

std::vector<OpEntry> kink_entries() {
  const std::string g = "nn_kinks";
  std::vector<OpEntry> out;
  const Opt o = Opt().no_fd("the samples sit on kinks, where finite differences do not apply");
  for (int64_t r : {kNone, kMean, kSum}) {
    const std::string suffix = r == kNone ? "_none" : (r == kMean ? "_mean" : "_sum");
    const nabla::ops::Attributes red = {{"reduction", r}};
    auto with = [&](nabla::ops::Attributes more) {
      more.push_back({"reduction", r});
      return more;
    };
    // Saturated probabilities: a sigmoid's output of exactly 0 or 1 in float32.
    out.push_back(op(
        g, "binary_cross_entropy" + suffix,
        points({{{0, 1, 0, 1, 0.5, 1e-7}, {0, 1, 1, 0, 0.5, 0}, {1, 2, 0.5, 1, 1, 3}},
                {{0, 0, 1, 1}, {0, 0.25, 0.75, 1}, {1, 1, 1, 1}}}),
        [r](const auto& x) { return binary_cross_entropy(x[0], x[1], x[2], r); },
        Opt(o).call("binary_cross_entropy", red)));
    // Logits of exactly 0 (the max/abs of the stable formula), with and without weights.
    out.push_back(op(
        g, "binary_cross_entropy_with_logits" + suffix,
        points({{{0, 0, 0, -3, 3, 0}, {0, 1, 0.5, 1, 0, 0.25}}, {{0, 0, 2, -2}, {1, 0, 1, 0}}}),
        [r](const auto& x) { return binary_cross_entropy_with_logits(x[0], x[1], {}, {}, r); },
        Opt(o).call("binary_cross_entropy_with_logits", red)));
    out.push_back(op(
        g, "binary_cross_entropy_with_logits_weights" + suffix,
        points({{{0, 0, 0, -3, 3, 0},
                 {0, 1, 0.5, 1, 0, 0.25},
                 {1, 2, 3, 0.5, 1, 2},
                 {2, 3, 4, 1.5, 2, 3}}}),
        [r](const auto& x) { return binary_cross_entropy_with_logits(x[0], x[1], x[2], x[3], r); },
        Opt(o).call("binary_cross_entropy_with_logits", red)));
    // Targets of exactly 0 (0 log 0 = 0).
    out.push_back(op(
        g, "kl_div" + suffix, points({{{-1, -0.5, 0, 0.3, -2}, {0, 0.5, 0, 1, 0}}}),
        [r](const auto& x) { return kl_div(x[0], x[1], r, false); }, Opt(o).call("kl_div", red)));
    // Differences of exactly 0 and exactly ±beta / ±delta.
    out.push_back(op(
        g, "l1_loss" + suffix, points({{{1, 2, -3, 0.5}, {1, 2.5, -3, 0}}}),
        [r](const auto& x) { return l1_loss(x[0], x[1], r); }, Opt(o).call("l1_loss", red)));
    out.push_back(op(
        g, "smooth_l1_loss" + suffix, points({{{1, 2, -3, 0.5, 0}, {1, 1.5, -2.5, 0, 0.5}}}),
        [r](const auto& x) { return smooth_l1_loss(x[0], x[1], r, 0.5); },
        Opt(o).call("smooth_l1_loss", with({{"beta", 0.5}}))));
    out.push_back(op(
        g, "huber_loss" + suffix, points({{{1, 2, -3, 0.5, 0}, {1, 1.5, -2.5, 0, 0.5}}}),
        [r](const auto& x) { return huber_loss(x[0], x[1], r, 0.5); },
        Opt(o).call("huber_loss", with({{"delta", 0.5}}))));
    out.push_back(op(
        g, "soft_margin_loss" + suffix, points({{{0, 0, 1, -1}, {1, -1, 1, -1}}}),
        [r](const auto& x) { return soft_margin_loss(x[0], x[1], r); },
        Opt(o).call("soft_margin_loss", red)));
    out.push_back(op(
        g, "margin_ranking_loss" + suffix, points({{{1, 0.5, 0}, {0.7, 0.2, 0}, {1, -1, 1}}}),
        [r](const auto& x) { return margin_ranking_loss(x[0], x[1], x[2], 0.3, r); },
        Opt(o).call("margin_ranking_loss", with({{"margin", 0.3}}))));
    out.push_back(op(
        g, "hinge_embedding_loss" + suffix, points({{{0.8, 0.5, 0, 1}, {-1, -1, 1, -1}}}),
        [r](const auto& x) { return hinge_embedding_loss(x[0], x[1], 0.8, r); },
        Opt(o).call("hinge_embedding_loss", with({{"margin", 0.8}}))));
    out.push_back(op(
        g, "poisson_nll_loss_full" + suffix, points({{{0, 1, -1, 2}, {0, 1, 2, 0.5}}}),
        [r](const auto& x) { return poisson_nll_loss(x[0], x[1], true, true, 1e-8, r); },
        Opt(o).call("poisson_nll_loss", with({{"full", true}}))));
    out.push_back(op(
        g, "poisson_nll_loss_probabilities" + suffix, points({{{0, 1, 0.5, 2}, {0, 1, 2, 0.5}}}),
        [r](const auto& x) { return poisson_nll_loss(x[0], x[1], false, false, 1e-8, r); },
        Opt(o).call("poisson_nll_loss", with({{"log_input", false}}))));
  }
  // Activations on their thresholds.
  const Gen around = points({{{-3, -1, -0.5, 0, 0.5, 1, 3, 6, 20, -20}}});
  out.push_back(op(
      g, "relu", around, [](const auto& x) { return relu(x[0]); }, o));
  out.push_back(op(
      g, "leaky_relu", around, [](const auto& x) { return leaky_relu(x[0], 0.2); },
      Opt(o).call("leaky_relu", {{"negative_slope", 0.2}})));
  out.push_back(op(
      g, "elu", around, [](const auto& x) { return elu(x[0], 0.7); },
      Opt(o).call("elu", {{"alpha", 0.7}})));
  // LibTorch rounds 1/alpha (celu) and 1/6 (hardsigmoid) to float even for float64:
  // those two compare to 1e-7 in float64 (the branch taken at a kink still shows).
  const Opt o_float_constant = Opt(o).tol64(1e-7, 1e-12);
  out.push_back(op(
      g, "celu", around, [](const auto& x) { return celu(x[0], 0.7); },
      Opt(o_float_constant).call("celu", {{"alpha", 0.7}})));
  out.push_back(op(
      g, "selu", around, [](const auto& x) { return selu(x[0]); }, Opt(o).call("selu")));
  out.push_back(op(
      g, "gelu", around, [](const auto& x) { return gelu(x[0]); }, o));
  out.push_back(op(
      g, "gelu_tanh", around, [](const auto& x) { return gelu(x[0], "tanh"); },
      Opt(o).call("gelu", {{"approximate", std::string("tanh")}})));
  out.push_back(op(
      g, "silu", around, [](const auto& x) { return silu(x[0]); }, Opt(o).call("silu")));
  out.push_back(op(
      g, "mish", around, [](const auto& x) { return mish(x[0]); }, Opt(o).call("mish")));
  out.push_back(op(
      g, "softplus_threshold", around, [](const auto& x) { return softplus(x[0], 2, 6); },
      Opt(o).call("softplus", {{"beta", 2}, {"threshold", 6}})));
  out.push_back(op(
      g, "softplus_default", around, [](const auto& x) { return softplus(x[0]); }, o));
  out.push_back(op(
      g, "hardtanh", around, [](const auto& x) { return hardtanh(x[0], -1, 1); },
      Opt(o).call("hardtanh")));
  out.push_back(op(
      g, "relu6", around, [](const auto& x) { return relu6(x[0]); }, Opt(o).call("relu6")));
  out.push_back(op(
      g, "hardsigmoid", around, [](const auto& x) { return hardsigmoid(x[0]); },
      Opt(o_float_constant).call("hardsigmoid")));
  out.push_back(op(
      g, "hardswish", around, [](const auto& x) { return hardswish(x[0]); },
      Opt(o).call("hardswish")));
  out.push_back(op(
      g, "hardshrink", around, [](const auto& x) { return hardshrink(x[0], 0.5); },
      Opt(o).call("hardshrink")));
  out.push_back(op(
      g, "softshrink", around, [](const auto& x) { return softshrink(x[0], 0.5); },
      Opt(o).call("softshrink")));
  out.push_back(op(
      g, "threshold", around, [](const auto& x) { return threshold(x[0], 0.5, -2.0); },
      Opt(o).call("threshold", {{"threshold", 0.5}, {"value", -2.0}})));
  out.push_back(op(
      g, "log_sigmoid", around, [](const auto& x) { return log_sigmoid(x[0]); },
      Opt(o).call("log_sigmoid")));
  out.push_back(op(
      g, "abs", around, [](const auto& x) { return x[0].abs(); }, Opt(o).call("abs")));
  out.push_back(op(
      g, "clamp_bounds", around, [](const auto& x) { return x[0].clamp(-1, 1); },
      Opt(o).call("clamp", {{"min", -1}, {"max", 1}})));
  out.push_back(op(
      g, "clamp_min_bound", around, [](const auto& x) { return x[0].clamp_min(0.5); },
      Opt(o).call("clamp", {{"min", 0.5}})));
  out.push_back(op(
      g, "sqrt_zero", points({{{0, 1, 4}}}), [](const auto& x) { return x[0].sqrt(); },
      Opt(o).call("sqrt")));
  out.push_back(op(
      g, "pow_zero_base", points({{{0, 1, -2}}}), [](const auto& x) { return x[0].pow(2.5); },
      Opt(o).call("pow", {{"exponent", 2.5}})));
  out.push_back(op(
      g, "norm_zero", points({{{0, 0, 0}}}), [](const auto& x) { return x[0].norm(); },
      Opt(o).call("norm")));
  out.push_back(op(
      g, "std_constant", points({{{2, 2, 2}}}), [](const auto& x) { return x[0].std(); },
      Opt(o).call("std")));
  out.push_back(op(
      g, "maximum_ties", points({{{1, 2, 3}, {1, 0, 3}}}),
      [](const auto& x) { return maximum(x[0], x[1]); }, o));
  out.push_back(op(
      g, "minimum_ties", points({{{1, 2, 3}, {1, 0, 3}}}),
      [](const auto& x) { return minimum(x[0], x[1]); }, o));
  out.push_back(op(
      g, "max_ties", points({{{1, 3, 3, 2}}}), [](const auto& x) { return x[0].max(); },
      Opt(o).call("max")));
  out.push_back(op(
      g, "amax_ties", points({{{1, 3, 3, 2}}}), [](const auto& x) { return x[0].amax(0); },
      Opt(o).call("amax", {{"dim", std::vector<int64_t>{0}}})));
  out.push_back(op(
      g, "prelu", points({{{-1, 0, 1}, {0.25}}}), [](const auto& x) { return prelu(x[0], x[1]); },
      Opt(o).call("prelu")));
  return out;
}

const bool registered = add_entries(kink_entries());

}  // namespace
}  // namespace conform
