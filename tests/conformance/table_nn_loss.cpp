// Op-table entries for the losses: every reduction, class weights, ignore_index, label
// smoothing, probability targets, logits of ±1e4, broadcasting; values and gradients
// (float64, against LibTorch and finite differences).
#include "table.h"

namespace conform {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;
const int64_t kReductions[] = {kNone, kMean, kSum};

// (input [N, C] or [N, C, d], target int64 in [0, C) with some ignore_index = 1 entries,
// weight [C] positive; without the weight when !weighted).
Gen class_samples(bool spatial, bool extreme = false, bool weighted = true) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (auto [n, c] : {std::pair<int64_t, int64_t>{4, 3}, {1, 5}, {6, 2}}) {
      Shape in_shape = spatial ? Shape{n, c, 3} : Shape{n, c};
      Shape t_shape = spatial ? Shape{n, 3} : Shape{n};
      nabla::Tensor x = make(rng, in_shape, dtype, extreme ? Dom{-1e4, 1e4} : kWide);
      out.push_back(sample_of({x, make_index(rng, t_shape, c), make(rng, {c}, dtype, kPositive)}));
    }
    // An empty batch and a transposed (non-contiguous) input.
    out.push_back(sample_of({make(rng, spatial ? Shape{0, 3, 2} : Shape{0, 3}, dtype),
                             make_index(rng, spatial ? Shape{0, 2} : Shape{0}, 3),
                             make(rng, {3}, dtype, kPositive)}));
    if (!spatial)
      out.push_back(sample_of({make_layout(rng, {5, 4}, dtype, kAny, Layout::Transposed),
                               make_index(rng, {5}, 4), make(rng, {4}, dtype, kPositive)}));
    if (!weighted)
      for (Sample& s : out) s = sample_of({s.inputs[0], s.inputs[1]});
    return out;
  };
}

// bench_ops' sizes: a batch of 64 over 10 classes (W2/W3's loss), and [64, 128] pairs.
Gen class_bench(bool weighted = true) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    std::vector<nabla::Tensor> in{make(rng, {64, 10}, dtype, kWide), make_index(rng, {64}, 10)};
    if (weighted) in.push_back(make(rng, {10}, dtype, kPositive));
    return Samples{sample_of(in)};
  };
}
Gen pair_bench(Dom dt = kAny) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    return Samples{sample_of({make(rng, {64, 128}, dtype), make(rng, {64, 128}, dtype, dt)})};
  };
}

// (log-probabilities [N, C, H, W], target [N, H, W] with some ignore_index = 1 entries,
// weight [C]) for nll_loss2d; also an empty batch.
Gen image_class_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (auto [n, c] : {std::pair<int64_t, int64_t>{2, 3}, {1, 4}, {0, 3}})
      out.push_back(sample_of({make(rng, {n, c, 2, 3}, dtype, kWide), make_index(rng, {n, 2, 3}, c),
                               make(rng, {c}, dtype, kPositive)}));
    return out;
  };
}

// (input1 [N, D], input2 [N, D], target [N] of +1 and -1) for cosine_embedding_loss.
Gen sign_target_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (auto [n, d] : {std::pair<int64_t, int64_t>{4, 5}, {3, 2}})
      out.push_back(sample_of(
          {make(rng, {n, d}, dtype), make(rng, {n, d}, dtype), make(rng, {n}, dtype).sign()}));
    return out;
  };
}

// (logits [N, C], class probabilities [N, C], weight [C]) for probability targets.
Gen soft_target_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (auto [n, c] : {std::pair<int64_t, int64_t>{4, 3}, {1, 5}, {3, 2}}) {
      nabla::Tensor t = make(rng, {n, c}, dtype, kWide);
      out.push_back(sample_of({make(rng, {n, c}, dtype, kWide), (t - t.logsumexp(1, true)).exp(),
                               make(rng, {c}, dtype, kPositive)}));
    }
    return out;
  };
}

// Pairs of the same shape for the regression losses (input, target).
Gen pair_samples(Dom dt = kAny) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (const Shape& s : {Shape{5}, Shape{3, 4}, Shape{2, 3, 2}, Shape{0, 3}})
      out.push_back(sample_of({make(rng, s, dtype), make(rng, s, dtype, dt)}));
    out.push_back(sample_of(
        {make_layout(rng, {4, 3}, dtype, kAny, Layout::Transposed), make(rng, {4, 3}, dtype, dt)}));
    return out;
  };
}

// (probabilities in (0, 1), targets in [0, 1], weight) for binary cross-entropy.
Gen probability_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (const Shape& s : {Shape{6}, Shape{3, 4}})
      out.push_back(sample_of({make(rng, s, dtype, {0.02, 0.98}), make(rng, s, dtype, {0, 1}),
                               make(rng, s, dtype, kPositive)}));
    return out;
  };
}

std::vector<OpEntry> loss_entries() {
  const std::string g = "nn_loss";
  std::vector<OpEntry> out;
  const Opt o = Opt().tol32(1e-5, 1e-5);
  const Opt oc = Opt(o).bench(class_bench()), oc_nw = Opt(o).bench(class_bench(false)),
            opair = Opt(o).bench(pair_bench()), opair01 = Opt(o).bench(pair_bench({0, 1}));
  for (int64_t r : kReductions) {
    const std::string suffix = r == kNone ? "_none" : (r == kMean ? "_mean" : "_sum");
    const nabla::ops::Attributes red = {{"reduction", r}};
    auto with = [&](nabla::ops::Attributes more) {
      more.insert(more.begin(), red.begin(), red.end());
      return more;
    };
    out.push_back(op(
        g, "mse_loss" + suffix, pair_samples(),
        [r](const auto& x) { return mse_loss(x[0], x[1], r); }, Opt(opair).call("mse_loss", red)));
    out.push_back(op(
        g, "l1_loss" + suffix, pair_samples(),
        [r](const auto& x) { return l1_loss(x[0], x[1], r); }, Opt(opair).call("l1_loss", red)));
    out.push_back(op(
        g, "smooth_l1_loss" + suffix, pair_samples(),
        [r](const auto& x) { return smooth_l1_loss(x[0], x[1], r, 0.7); },
        Opt(opair).call("smooth_l1_loss", with({{"beta", 0.7}}))));
    out.push_back(op(
        g, "smooth_l1_loss_beta0" + suffix, pair_samples(),
        [r](const auto& x) { return smooth_l1_loss(x[0], x[1], r, 0.0); },
        Opt(o).call("smooth_l1_loss", with({{"beta", 0.0}}))));
    out.push_back(op(
        g, "huber_loss" + suffix, pair_samples(),
        [r](const auto& x) { return huber_loss(x[0], x[1], r, 0.6); },
        Opt(opair).call("huber_loss", with({{"delta", 0.6}}))));
    out.push_back(op(
        g, "nll_loss" + suffix, class_samples(false, false, false),
        [r](const auto& x) { return nll_loss(x[0], x[1], {}, r, -100); },
        Opt(oc_nw).call("nll_loss", red)));
    out.push_back(op(
        g, "nll_loss_weight_ignore" + suffix, class_samples(false),
        [r](const auto& x) { return nll_loss(x[0], x[1], x[2], r, 1); },
        Opt(oc).call("nll_loss", with({{"ignore_index", 1}}))));
    out.push_back(op(
        g, "nll_loss_nd" + suffix, class_samples(true),
        [r](const auto& x) { return nll_loss_nd(x[0], x[1], x[2], r, 0); },
        Opt(o).call("nll_loss_nd", with({{"ignore_index", 0}}))));
    out.push_back(op(
        g, "nll_loss2d" + suffix, image_class_samples(),
        [r](const auto& x) { return nll_loss2d(x[0], x[1], x[2], r, 1); },
        Opt(o).call("nll_loss2d", with({{"ignore_index", 1}}))));
    out.push_back(op(
        g, "cross_entropy" + suffix, class_samples(false, false, false),
        [r](const auto& x) { return cross_entropy_loss(x[0], x[1], {}, r, -100, 0.0); },
        Opt(oc_nw).call("cross_entropy_loss", red)));
    out.push_back(op(
        g, "cross_entropy_smoothing" + suffix, class_samples(false, false, false),
        [r](const auto& x) { return cross_entropy_loss(x[0], x[1], {}, r, -100, 0.2); },
        Opt(oc_nw).call("cross_entropy_loss", with({{"label_smoothing", 0.2}}))));
    out.push_back(op(
        g, "cross_entropy_weight_ignore_smoothing" + suffix, class_samples(false),
        [r](const auto& x) { return cross_entropy_loss(x[0], x[1], x[2], r, 1, 0.1); },
        Opt(oc).call("cross_entropy_loss", with({{"ignore_index", 1}, {"label_smoothing", 0.1}}))));
    out.push_back(op(
        g, "cross_entropy_spatial" + suffix, class_samples(true),
        [r](const auto& x) { return cross_entropy_loss(x[0], x[1], x[2], r, 2, 0.3); },
        Opt(o).call("cross_entropy_loss", with({{"ignore_index", 2}, {"label_smoothing", 0.3}}))));
    out.push_back(op(
        g, "cross_entropy_spatial_no_smoothing" + suffix, class_samples(true),
        [r](const auto& x) { return cross_entropy_loss(x[0], x[1], x[2], r, 2, 0.0); },
        Opt(o).call("cross_entropy_loss", with({{"ignore_index", 2}}))));
    out.push_back(op(
        g, "cross_entropy_probabilities" + suffix, soft_target_samples(),
        [r](const auto& x) { return cross_entropy_loss(x[0], x[1], x[2], r, -100, 0.25); },
        Opt(o).call("cross_entropy_loss", with({{"label_smoothing", 0.25}}))));
    out.push_back(op(
        g, "binary_cross_entropy" + suffix, probability_samples(),
        [r](const auto& x) { return binary_cross_entropy(x[0], x[1], x[2], r); },
        Opt(o).call("binary_cross_entropy", red)));
    out.push_back(op(
        g, "binary_cross_entropy_with_logits" + suffix, pair_samples({0, 1}),
        [r](const auto& x) {
          return binary_cross_entropy_with_logits(x[0] * 20, x[1], {}, x[1] + 0.5, r);
        },
        opair01));
    out.push_back(op(
        g, "kl_div" + suffix, pair_samples({0, 1}),
        [r](const auto& x) { return kl_div(x[0], x[1], r, false); },
        Opt(opair01).call("kl_div", red)));
    out.push_back(op(
        g, "kl_div_log_target" + suffix, pair_samples(),
        [r](const auto& x) { return kl_div(x[0], x[1], r, true); },
        Opt(opair).call("kl_div", with({{"log_target", true}}))));
    out.push_back(op(
        g, "soft_margin_loss" + suffix, pair_samples(),
        [r](const auto& x) { return soft_margin_loss(x[0], x[1].sign(), r); }, opair));
    out.push_back(op(
        g, "margin_ranking_loss" + suffix, pair_samples(),
        [r](const auto& x) { return margin_ranking_loss(x[0], x[1], x[1].sign(), 0.3, r); },
        opair));
    out.push_back(op(
        g, "hinge_embedding_loss" + suffix, pair_samples(),
        [r](const auto& x) { return hinge_embedding_loss(x[0], x[1].sign(), 0.8, r); }, opair));
    out.push_back(op(
        g, "poisson_nll_loss" + suffix, pair_samples(kPositive),
        [r](const auto& x) { return poisson_nll_loss(x[0], x[1] * 3, true, true, 1e-8, r); }, o));
  }
  // Stability: logits of ±1e4 (LibTorch: finite loss and gradients).
  out.push_back(op(
      g, "cross_entropy_extreme_logits", class_samples(false, true, false),
      [](const auto& x) { return cross_entropy_loss(x[0], x[1], {}, kMean, -100, 0.1); },
      Opt().tol32(1e-5, 1e-3).call("cross_entropy_loss", {{"label_smoothing", 0.1}})));
  out.push_back(op(
      g, "binary_cross_entropy_with_logits_extreme", pair_samples({0, 1}),
      [](const auto& x) {
        return binary_cross_entropy_with_logits(x[0] * 1e4, x[1], {}, {}, kSum);
      },
      Opt().tol32(1e-5, 1e-3)));
  out.push_back(op(
      g, "cosine_embedding_loss", fixed({{{4, 5}, {4, 5}, {4}}}),
      [](const auto& x) { return cosine_embedding_loss(x[0], x[1], x[2].sign(), 0.1, kMean); }, o));
  for (int64_t r : kReductions)
    out.push_back(op(
        g,
        std::string("cosine_embedding_loss_signs") + (r == kNone   ? "_none"
                                                      : r == kMean ? "_mean"
                                                                   : "_sum"),
        sign_target_samples(),
        [r](const auto& x) { return cosine_embedding_loss(x[0], x[1], x[2], 0.1, r); },
        Opt(o).call("cosine_embedding_loss", {{"margin", 0.1}, {"reduction", r}})));
  out.push_back(op(
      g, "triplet_margin_loss", fixed({{{4, 5}, {4, 5}, {4, 5}}}),
      [](const auto& x) {
        return triplet_margin_loss(x[0], x[1], x[2], 0.5, 2, 1e-6, true, kMean);
      },
      Opt(o).call("triplet_margin_loss", {{"margin", 0.5}, {"swap", true}})));
  // Errors: target out of range, wrong target shape and dtype, bce outside [0, 1].
  auto bad_target = [](Rng& rng, nabla::ScalarType dtype) {
    return Samples{sample_of({make(rng, {3, 4}, dtype), nabla::tensor({0, 4, 1}, nabla::kLong)}),
                   sample_of({make(rng, {3, 4}, dtype), nabla::tensor({0, -3, 1}, nabla::kLong)}),
                   sample_of({make(rng, {3, 4}, dtype), nabla::tensor({0, 1}, nabla::kLong)})};
  };
  out.push_back(op(
      g, "nll_loss_bad_target", bad_target,
      [](const auto& x) { return nll_loss(x[0], x[1], {}, kMean, -100); },
      Opt().throws("nll_loss").call("nll_loss")));
  out.push_back(op(
      g, "cross_entropy_bad_target", bad_target,
      [](const auto& x) { return cross_entropy_loss(x[0], x[1], {}, kMean, -100, 0.0); },
      Opt().throws("nll_loss").call("cross_entropy_loss")));
  out.push_back(op(
      g, "binary_cross_entropy_out_of_range", fixed({{{4}, {4}}}),
      [](const auto& x) {
        return binary_cross_entropy(x[0] * 5, x[1].abs().clamp_max(1), {}, kMean);
      },
      Opt().throws("between 0 and 1")));
  out.push_back(op(
      g, "mse_loss_shape_mismatch", fixed({{{3, 4}, {5}}}),
      [](const auto& x) { return mse_loss(x[0], x[1], kMean); },
      Opt().throws("mse_loss").call("mse_loss")));
  return out;
}

const bool registered = add_entries(loss_entries());

// multilabel_margin_loss, multi_margin_loss and ctc_loss (loss/margin_ctc.cpp): composites,
// so their last nodes are not LibTorch's fused ones.
std::vector<OpEntry> margin_ctc_entries() {
  using V = std::vector<int64_t>;
  const std::string g = "nn_loss";
  // ctc_loss's reductions end in LibTorch's nodes too; without one, they differ.
  const Opt named = Opt().tol32(1e-5, 1e-5);
  const Opt o =
      Opt(named).node_name_differs("composed from differentiable ops, not LibTorch's fused kernel");
  const Gen multilabel = [](Rng& rng, nabla::ScalarType dtype) {
    return Samples{
        sample_of(
            {make(rng, {3, 4}, dtype),
             nabla::tensor({3, 0, -1, 1, 1, 2, 3, 0, 2, -1, 3, 3}, nabla::kLong).view({3, 4})}),
        sample_of({make(rng, {5}, dtype), nabla::tensor({4, 1, 1, -1, 0}, nabla::kLong)})};
    // (An empty batch is left out: LibTorch's mean and sum of one read uninitialized memory.)
  };
  const Gen multi_class = [](Rng& rng, nabla::ScalarType dtype) {
    return Samples{sample_of({make(rng, {4, 5}, dtype), make_index(rng, {4}, 5),
                              make(rng, {5}, dtype, kPositive)}),
                   sample_of({make(rng, {3}, dtype), make_index(rng, {}, 3),
                              make(rng, {3}, dtype, kPositive)})};
  };
  // (activations [T, N, C], padded targets [N, S] in [1, C)).
  const Gen ctc = [](Rng& rng, nabla::ScalarType dtype) {
    return Samples{sample_of({make(rng, {6, 2, 4}, dtype),
                              nabla::tensor({1, 3, 3, 2, 1, 0}, nabla::kLong).view({2, 3})})};
  };
  std::vector<OpEntry> out;
  for (int64_t r : kReductions) {
    const std::string suffix = r == kNone ? "_none" : (r == kMean ? "_mean" : "_sum");
    out.push_back(op(
        g, "multilabel_margin_loss" + suffix, multilabel,
        [r](const auto& x) { return multilabel_margin_loss(x[0], x[1], r); }, Opt(o)));
    out.push_back(op(
        g, "multi_margin_loss" + suffix, multi_class,
        [r](const auto& x) { return multi_margin_loss(x[0], x[1], 1, 0.7, x[2], r); }, Opt(o)));
    out.push_back(op(
        g, "ctc_loss" + suffix, ctc,
        [r](const auto& x) {
          return ctc_loss(x[0].log_softmax(2), x[1], V{6, 4}, V{3, 2}, 0, r, false);
        },
        r == kNone ? Opt(o) : Opt(named)));
  }
  out.push_back(op(
      g, "multi_margin_loss_p2_unweighted", multi_class,
      [](const auto& x) { return multi_margin_loss(x[0], x[1], 2, 1.0, {}, kMean); }, Opt(o)));
  out.push_back(op(
      g, "ctc_loss_concatenated_targets", ctc,
      [](const auto& x) {
        return ctc_loss(x[0].log_softmax(2), x[1].view({-1}).narrow(0, 0, 5), V{5, 6}, V{3, 2}, 0,
                        kSum, false);
      },
      Opt(named)));
  out.push_back(op(
      g, "ctc_loss_impossible_zero_infinity", ctc,
      [](const auto& x) {
        return ctc_loss(x[0].log_softmax(2), x[1], V{2, 6}, V{3, 2}, 0, kNone, true);
      },
      Opt(o)));
  out.push_back(op(
      g, "multi_margin_loss_bad_target", fixed({{{3, 4}}}),
      [](const auto& x) {
        return multi_margin_loss(x[0], index_tensor(x[0], {0, 4, 1}), 1, 1.0, {}, kMean);
      },
      Opt().throws("multi_margin_loss")));
  out.push_back(op(
      g, "multilabel_margin_loss_bad_shape", fixed({{{3, 4}}}),
      [](const auto& x) {
        return multilabel_margin_loss(x[0], index_tensor(x[0], {0, 1, 2}), kMean);
      },
      Opt().throws("multilabel_margin_loss")));
  return out;
}

const bool registered_margin_ctc = add_entries(margin_ctc_entries());

}  // namespace
}  // namespace conform
