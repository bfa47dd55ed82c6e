// Op-table entries for the normalizations: batch_norm (training with running-stat
// updates, evaluation), layer_norm, group_norm, instance_norm over (N, C), (N, C, L) and
// (N, C, H, W) inputs, with and without affine parameters, non-contiguous inputs, empty
// batches; values and gradients (float64, against LibTorch and finite differences).
#include "table.h"

namespace conform {
namespace {

// (input [N, C, *], weight [C], bias [C], running_mean [C], running_var [C] > 0); the
// first `inputs` of them.
Gen bn_samples(size_t inputs = 5) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (const Shape& s : {Shape{4, 3}, Shape{2, 3, 5}, Shape{2, 3, 2, 3}, Shape{3, 1, 4}}) {
      const int64_t c = s[1];
      out.push_back(
          sample_of({make(rng, s, dtype, kWide), make(rng, {c}, dtype), make(rng, {c}, dtype),
                     make(rng, {c}, dtype), make(rng, {c}, dtype, kPositive)}));
    }
    out.push_back(sample_of({make_layout(rng, {5, 4}, dtype, kWide, Layout::Transposed),
                             make(rng, {5}, dtype), make(rng, {5}, dtype), make(rng, {5}, dtype),
                             make(rng, {5}, dtype, kPositive)}));
    for (Sample& s : out)
      s = sample_of(std::vector<nabla::Tensor>(s.inputs.begin(), s.inputs.begin() + inputs));
    return out;
  };
}

// An input whose channels have large means and small spreads (cancellation check).
Gen bn_offset_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    nabla::Tensor x = make(rng, {8, 3, 4}, dtype, {-1, 1}) + 1000.0;
    return Samples{sample_of({x, make(rng, {3}, dtype), make(rng, {3}, dtype)})};
  };
}

// One sample of bench_ops' size: (input `shape`, then `params` tensors of size shape[dim]).
Gen sized(Shape shape, int dim, int params, bool positive_last = false) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    std::vector<nabla::Tensor> in{make(rng, shape, dtype, kWide)};
    for (int i = 0; i < params; ++i)
      in.push_back(make(rng, {shape[static_cast<size_t>(dim)]}, dtype,
                        positive_last && i == params - 1 ? kPositive : kAny));
    return Samples{sample_of(std::move(in))};
  };
}

// (input, weight, bias) for layer_norm over the last one or two dims.
Gen ln_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (const Shape& s : {Shape{3, 5}, Shape{2, 3, 4}, Shape{0, 4}, Shape{4}})
      out.push_back(sample_of({make(rng, s, dtype, kWide), make(rng, {s.back()}, dtype),
                               make(rng, {s.back()}, dtype)}));
    out.push_back(sample_of({make_layout(rng, {4, 3}, dtype, kWide, Layout::Transposed),
                             make(rng, {3}, dtype), make(rng, {3}, dtype)}));
    return out;
  };
}

// (input [N, 6, *], weight [6], bias [6]) for group_norm / instance_norm.
Gen gn_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    for (const Shape& s : {Shape{2, 6}, Shape{2, 6, 3}, Shape{1, 6, 2, 2}, Shape{0, 6, 3}})
      out.push_back(
          sample_of({make(rng, s, dtype, kWide), make(rng, {6}, dtype), make(rng, {6}, dtype)}));
    out.push_back(sample_of({make_layout(rng, {3, 6}, dtype, kWide, Layout::Transposed),
                             make(rng, {6}, dtype), make(rng, {6}, dtype)}));
    return out;
  };
}

template <class T>
T undefined_like(const T&) {
  return T();
}

// Running statistics are buffers: neither library differentiates them, so finite
// differences (which would see them move the output) do not apply.
OpEntry buffers_not_differentiated(OpEntry e) {
  e.no_finite_differences = "running_mean / running_var are buffers, not differentiated";
  return e;
}

std::vector<OpEntry> norm_entries() {
  const std::string g = "nn_norm";
  std::vector<OpEntry> out;
  const Opt o = Opt().tol32(1e-4, 1e-5).gradgrad();
  const nabla::ops::Attributes train = {{"training", true}, {"cudnn_enabled", false}};
  // Training: the output and the updated running stats (clones, so each library updates
  // its own copy) are compared.
  out.push_back(op(
      g, "batch_norm_train", bn_samples(),
      [](const auto& x) {
        auto rm = x[3].detach().clone(), rv = x[4].detach().clone();
        auto y = batch_norm(x[0], x[1], x[2], rm, rv, true, 0.1, 1e-5, false);
        return std::vector<std::decay_t<decltype(y)>>{y, rm, rv};
      },
      Opt(o).bench(sized({64, 32, 28, 28}, 1, 4, true))));
  out.push_back(op(
      g, "batch_norm_train_no_affine", bn_samples(1),
      [](const auto& x) {
        auto none = undefined_like(x[0]);
        return batch_norm(x[0], none, none, none, none, true, 0.1, 1e-5, false);
      },
      Opt(o).call("batch_norm", train)));
  out.push_back(op(
      g, "batch_norm_train_affine", bn_samples(3),
      [](const auto& x) {
        auto none = undefined_like(x[0]);
        return batch_norm(x[0], x[1], x[2], none, none, true, 0.1, 1e-5, false);
      },
      Opt(o).call("batch_norm", train)));
  out.push_back(buffers_not_differentiated(op(
      g, "batch_norm_eval", bn_samples(),
      [](const auto& x) {
        return batch_norm(x[0], x[1], x[2], x[3].detach(), x[4].detach(), false, 0.1, 1e-3, false);
      },
      Opt(o).call("batch_norm", {{"training", false}, {"eps", 1e-3}, {"cudnn_enabled", false}}))));
  out.push_back(op(
      g, "batch_norm_large_mean", bn_offset_samples(),
      [](const auto& x) {
        auto none = undefined_like(x[0]);
        return batch_norm(x[0], x[1], x[2], none, none, true, 0.1, 1e-5, false);
      },
      Opt().tol32(1e-3, 1e-3).call("batch_norm", train)));
  out.push_back(
      op(g, "batch_norm_empty_batch", fixed({{{0, 3}, {3}, {3}, {3}, {3}}}), [](const auto& x) {
        return batch_norm(x[0], x[1], x[2], x[3].detach(), x[4].detach().abs(), true, 0.1, 1e-5,
                          false);
      }));
  out.push_back(op(
      g, "batch_norm_bad_weight", fixed({{{4, 3}, {2}}}),
      [](const auto& x) {
        auto none = undefined_like(x[0]);
        return batch_norm(x[0], x[1], none, none, none, true, 0.1, 1e-5, false);
      },
      Opt().throws("batch_norm").call("batch_norm", train)));
  out.push_back(op(
      g, "layer_norm", ln_samples(),
      [](const auto& x) { return layer_norm(x[0], {x[0].size(-1)}, x[1], x[2], 1e-5, false); },
      Opt(o).bench(sized({128, 768}, 1, 2))));
  out.push_back(op(
      g, "layer_norm_no_affine", ln_samples(),
      [](const auto& x) {
        return layer_norm(x[0], {x[0].size(-1)}, undefined_like(x[0]), undefined_like(x[0]), 1e-5,
                          false);
      },
      o));
  out.push_back(op(
      g, "layer_norm_2d_shape", fixed({{{2, 3, 4}, {3, 4}, {3, 4}}}, kWide),
      [](const auto& x) {
        return layer_norm(x[0], {3, 4}, x[1], x[2], 1e-5, false);
      },
      Opt(o).call("layer_norm",
                  {{"normalized_shape", std::vector<int64_t>{3, 4}}, {"cudnn_enable", false}})));
  out.push_back(op(
      g, "layer_norm_last_dim",
      fixed({{{3, 5}, {5}, {5}}, {{2, 3, 5}, {5}, {5}}, {{0, 5}, {5}, {5}}}, kWide),
      [](const auto& x) { return layer_norm(x[0], {5}, x[1], x[2], 1e-3, false); },
      Opt(o).call("layer_norm", {{"normalized_shape", std::vector<int64_t>{5}},
                                 {"eps", 1e-3},
                                 {"cudnn_enable", false}})));
  out.push_back(op(
      g, "layer_norm_bad_shape", fixed({{{2, 3}}}),
      [](const auto& x) {
        return layer_norm(x[0], {4}, undefined_like(x[0]), undefined_like(x[0]), 1e-5, false);
      },
      Opt()
          .throws("layer_norm")
          .call("layer_norm", {{"normalized_shape", std::vector<int64_t>{4}}})));
  out.push_back(op(
      g, "group_norm", gn_samples(),
      [](const auto& x) { return group_norm(x[0], 3, x[1], x[2], 1e-5, false); },
      Opt(o)
          .call("group_norm", {{"num_groups", 3}, {"cudnn_enabled", false}})
          .bench(sized({64, 48, 14, 14}, 1, 2))));
  out.push_back(op(
      g, "group_norm_one_group", gn_samples(),
      [](const auto& x) { return group_norm(x[0], 1, x[1], undefined_like(x[0]), 1e-5, false); },
      o));
  // One channel per group over spatial dims (with one element per group the variance
  // is 0 and LibTorch's output is rounding noise times 1/sqrt(eps)).
  out.push_back(op(
      g, "group_norm_per_channel", fixed({{{2, 6, 3}, {6}, {6}}, {{1, 6, 2, 2}, {6}, {6}}}, kWide),
      [](const auto& x) {
        // (Bias without weight makes LibTorch's backward throw, so both are given.)
        return group_norm(x[0], 6, x[1], x[2], 1e-5, false);
      },
      Opt(o).call("group_norm", {{"num_groups", 6}, {"cudnn_enabled", false}})));
  out.push_back(op(
      g, "group_norm_bad_groups", fixed({{{2, 6, 3}}}),
      [](const auto& x) {
        return group_norm(x[0], 4, undefined_like(x[0]), undefined_like(x[0]), 1e-5, false);
      },
      Opt().throws("group_norm").call("group_norm", {{"num_groups", 4}})));
  out.push_back(op(
      g, "instance_norm",
      fixed({{{2, 3, 4}, {3}, {3}, {3}, {3}}, {{1, 3, 2, 3}, {3}, {3}, {3}, {3}}}, kWide),
      [](const auto& x) {
        auto rm = x[3].detach().clone(), rv = x[4].detach().abs();
        auto y = instance_norm(x[0], x[1], x[2], rm, rv, true, 0.1, 1e-5, false);
        return std::vector<std::decay_t<decltype(y)>>{y, rm, rv};
      },
      o));
  out.push_back(buffers_not_differentiated(op(
      g, "instance_norm_eval", fixed({{{2, 3, 4}, {3}, {3}, {3}, {3}}}, kWide),
      [](const auto& x) {
        return instance_norm(x[0], x[1], x[2], x[3].detach(), x[4].detach().abs() + 0.5, false, 0.1,
                             1e-5, false);
      },
      o)));
  out.push_back(op(
      g, "instance_norm_no_running_stats",
      fixed({{{2, 3, 4}, {3}, {3}}, {{1, 3, 2, 3}, {3}, {3}}}, kWide),
      [](const auto& x) {
        auto none = undefined_like(x[0]);
        return instance_norm(x[0], x[1], x[2], none, none, true, 0.1, 1e-5, false);
      },
      Opt(o).call("instance_norm", {{"use_input_stats", true}, {"cudnn_enabled", false}})));
  return out;
}

const bool registered = add_entries(norm_entries());

// Evaluation with constant running statistics (made from a detached input times 0, so
// finite differences do not move them): first and second derivatives of the input,
// weight and bias, which batch_norm_eval (statistics as inputs) cannot check.
std::vector<OpEntry> more_norm_entries() {
  const std::string g = "nn_norm";
  return {
      op(
          g, "batch_norm_eval_constant_stats", bn_samples(3),
          [](const auto& x) {
            auto c = x[1].detach() * 0;
            return batch_norm(x[0], x[1], x[2], c + 0.3, c + 1.7, false, 0.1, 1e-5, false);
          },
          Opt().tol32(1e-4, 1e-5).gradgrad()),
  };
}

const bool registered_more = add_entries(more_norm_entries());

}  // namespace
}  // namespace conform
