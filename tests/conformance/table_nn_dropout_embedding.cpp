// Op-table entries for dropout (the table does not seed the two libraries alike, so the
// random cases compare properties — every output is 0 or x / (1 - p), the dropped
// fraction is near p, whole channels drop together — and the deterministic cases
// compare values: evaluation, p = 0, p = 1; tests/libtorch/test_random_streams.cpp
// compares the masks themselves) and for embedding / one_hot (values and gradients,
// padding_idx and scale_grad_by_freq included).
#include "table.h"

namespace conform {
namespace {

Gen dropout_samples() {
  return layouts({{{{400, 50}, Layout::Contiguous}}, {{{60, 300}, Layout::Transposed}}}, kPositive);
}

std::vector<OpEntry> dropout_entries(const std::string& g) {
  std::vector<OpEntry> out;
  for (double p : {0.2, 0.5, 0.8}) {
    const std::string s = "_p" + std::to_string(static_cast<int>(p * 10));
    // Every kept element is x / (1 - p) (inputs are positive, so 0 means dropped).
    out.push_back(op(
        g, "dropout_values" + s, dropout_samples(),
        [p](const auto& x) {
          auto y = dropout(x[0], p, true);
          return ((y == 0) | ((y - x[0] / (1 - p)).abs() <= x[0].abs() * 1e-5)).all();
        },
        Opt().no16(kFloat32Verdict)));
    // The dropped fraction is p within 5 standard deviations (20000 draws).
    out.push_back(op(g, "dropout_fraction" + s, dropout_samples(), [p](const auto& x) {
      auto frac = (dropout(x[0], p, true) == 0).to(dtype_for(x[0], nabla::kDouble)).mean();
      return (frac - p).abs() < 5 * std::sqrt(p * (1 - p) / x[0].numel());
    }));
    // Whole channels: within a feature map all elements share the draw.
    out.push_back(op(g, "feature_dropout_channels" + s, fixed({{{8, 16, 5, 5}}}, kPositive),
                     [p](const auto& x) {
                       auto dropped = (feature_dropout(x[0], p, true) == 0)
                                          .to(dtype_for(x[0], nabla::kDouble))
                                          .mean({2, 3});
                       return ((dropped == 0) | (dropped == 1)).all();
                     }));
    // alpha_dropout keeps mean 0 and variance 1 of a standard normal-ish input on average:
    // its output takes exactly two kinds of values per element (a x + b or a (-alpha') + b).
    out.push_back(op(
        g, "alpha_dropout_affine" + s, dropout_samples(),
        [p](const auto& x) {
          const double alpha = 1.7580993408473766,
                       a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
          auto y = alpha_dropout(x[0], p, true);
          auto kept = (y - (x[0] * a + alpha * a * p)).abs() <= 1e-4;
          auto dropped = (y - (-alpha * a + alpha * a * p)).abs() <= 1e-4;
          return (kept | dropped).all();
        },
        Opt().no16(kFloat32Verdict)));
  }
  const Gen u = unary(kAny);
  const nabla::ops::Attributes eval = {{"p", 0.5}, {"train", false}};
  out.push_back(op(
      g, "dropout_eval", u, [](const auto& x) { return dropout(x[0], 0.5, false); },
      Opt().gradgrad().call("dropout", eval)));
  out.push_back(op(
      g, "dropout_p0", u, [](const auto& x) { return dropout(x[0], 0.0, true); },
      Opt().gradgrad().call("dropout", {{"p", 0.0}})));
  out.push_back(op(
      g, "dropout_p1", u, [](const auto& x) { return dropout(x[0], 1.0, true); },
      Opt().gradgrad().call("dropout", {{"p", 1.0}})));
  out.push_back(op(
      g, "feature_dropout_eval", fixed({{{2, 3, 4}}}),
      [](const auto& x) { return feature_dropout(x[0], 0.5, false); },
      Opt().call("feature_dropout", eval)));
  out.push_back(op(
      g, "feature_dropout_p1", fixed({{{2, 3, 4}}}),
      [](const auto& x) { return feature_dropout(x[0], 1.0, true); },
      Opt().call("feature_dropout", {{"p", 1.0}})));
  out.push_back(op(
      g, "alpha_dropout_eval", u, [](const auto& x) { return alpha_dropout(x[0], 0.5, false); },
      Opt().call("alpha_dropout", eval)));
  out.push_back(op(
      g, "alpha_dropout_p1", fixed({{{3, 4}}}),
      [](const auto& x) { return alpha_dropout(x[0], 1.0, true); },
      Opt().call("alpha_dropout", {{"p", 1.0}})));
  out.push_back(op(
      g, "feature_alpha_dropout_eval", fixed({{{2, 3, 4}}}),
      [](const auto& x) { return feature_alpha_dropout(x[0], 0.5, false); },
      Opt().call("feature_alpha_dropout", eval)));
  out.push_back(op(
      g, "dropout_bad_p", fixed({{{3}}}), [](const auto& x) { return dropout(x[0], 1.5, true); },
      Opt().throws("dropout").call("dropout", {{"p", 1.5}})));
  return out;
}

// (weight [V, D], indices int64 in [0, V) of several shapes).
Gen embedding_samples() {
  return [](Rng& rng, nabla::ScalarType dtype) {
    Samples out;
    out.push_back(sample_of({make(rng, {6, 3}, dtype), make_index(rng, {5}, 6)}));
    out.push_back(sample_of({make(rng, {5, 4}, dtype), make_index(rng, {2, 7}, 5)}));
    out.push_back(sample_of({make(rng, {4, 2}, dtype), make_index(rng, {0}, 4)}));
    out.push_back(sample_of(
        {make_layout(rng, {4, 6}, dtype, kAny, Layout::Transposed), make_index(rng, {3, 2}, 6)}));
    out.push_back(
        sample_of({make(rng, {3, 5}, dtype), nabla::tensor({0, 0, 1, 0, 2, 2}, nabla::kLong)}));
    return out;
  };
}

// padding_idx and scale_grad_by_freq define gradients that are not the derivative (by
// design, as LibTorch); the comparison with LibTorch's gradients still runs.
OpEntry not_a_derivative(OpEntry e) {
  e.no_finite_differences =
      "padding_idx / scale_grad_by_freq gradients are not derivatives by design";
  return e;
}

std::vector<OpEntry> embedding_entries(const std::string& g) {
  std::vector<OpEntry> out;
  const Opt o = Opt().gradgrad();
  // bench_ops: a 10000-word vocabulary of 128 features, [64, 32] indices.
  const Gen vocab = [](Rng& rng, nabla::ScalarType dtype) {
    return Samples{sample_of({make(rng, {10000, 128}, dtype), make_index(rng, {64, 32}, 10000)})};
  };
  out.push_back(op(
      g, "embedding", embedding_samples(),
      [](const auto& x) { return embedding(x[0], x[1], -1, false, false); },
      Opt(o).call("embedding").bench(vocab)));
  out.push_back(not_a_derivative(op(
      g, "embedding_padding_idx", embedding_samples(),
      [](const auto& x) { return embedding(x[0], x[1], 0, false, false); },
      Opt(o).call("embedding", {{"padding_idx", 0}}))));
  out.push_back(not_a_derivative(op(
      g, "embedding_scale_grad_by_freq", embedding_samples(),
      [](const auto& x) { return embedding(x[0], x[1], -1, true, false); },
      Opt(o).call("embedding", {{"scale_grad_by_freq", true}}))));
  out.push_back(not_a_derivative(op(
      g, "embedding_padding_and_freq", embedding_samples(),
      [](const auto& x) { return embedding(x[0], x[1], 2, true, false); },
      Opt(o).call("embedding", {{"padding_idx", 2}, {"scale_grad_by_freq", true}}))));
  out.push_back(op(
      g, "embedding_out_of_range",
      [](Rng& rng, nabla::ScalarType dtype) {
        return Samples{sample_of({make(rng, {4, 2}, dtype), nabla::tensor({0, 4}, nabla::kLong)}),
                       sample_of({make(rng, {4, 2}, dtype), nabla::tensor({-1, 2}, nabla::kLong)})};
      },
      [](const auto& x) { return embedding(x[0], x[1], -1, false, false); },
      Opt().throws("embedding").call("embedding")));
  auto idx = [](std::vector<int64_t> v, Shape s) {
    return [v, s](Rng&, nabla::ScalarType) {
      return Samples{sample_of({nabla::tensor(v, nabla::kLong).view(s)})};
    };
  };
  out.push_back(op(
      g, "one_hot", idx({0, 3, 1, 1, 2, 0}, {2, 3}),
      [](const auto& x) { return one_hot(x[0], -1); }, Opt().call("one_hot")));
  out.push_back(op(
      g, "one_hot_num_classes", idx({0, 3, 1}, {3}), [](const auto& x) { return one_hot(x[0], 6); },
      Opt().call("one_hot", {{"num_classes", 6}})));
  out.push_back(op(
      g, "one_hot_empty", idx({}, {0}), [](const auto& x) { return one_hot(x[0], 3); },
      Opt().call("one_hot", {{"num_classes", 3}})));
  out.push_back(op(
      g, "one_hot_too_small", idx({0, 3}, {2}), [](const auto& x) { return one_hot(x[0], 3); },
      Opt().throws("one_hot").call("one_hot", {{"num_classes", 3}})));
  out.push_back(op(
      g, "one_hot_negative", idx({0, -1}, {2}), [](const auto& x) { return one_hot(x[0], 3); },
      Opt().throws("one_hot").call("one_hot", {{"num_classes", 3}})));
  return out;
}

std::vector<OpEntry> entries() {
  std::vector<OpEntry> out = dropout_entries("nn_dropout");
  for (auto& e : embedding_entries("nn_embedding")) out.push_back(std::move(e));
  return out;
}

const bool registered = add_entries(entries());

// int32 and 0-d indices.
std::vector<OpEntry> more_embedding_entries() {
  return {
      op(
          "nn_embedding", "embedding_index_kinds",
          [](Rng& rng, nabla::ScalarType dtype) {
            return Samples{
                sample_of({make(rng, {4, 3}, dtype), make_index(rng, {2, 2}, 4).to(nabla::kInt)}),
                sample_of({make(rng, {4, 3}, dtype), make_index(rng, {}, 4)})};
          },
          [](const auto& x) { return embedding(x[0], x[1], -1, false, false); }, Opt().gradgrad()),
  };
}

const bool registered_more = add_entries(more_embedding_entries());

// embedding_bag's output (its other outputs, offset2bag, bag_size and max_indices, are
// LibTorch's kernel bookkeeping, which nabla does not reproduce): bags of several sizes,
// an empty bag, repeated indices; (weight [V, D], indices [L], offsets[, per_sample_weights]).
Gen bag_samples(bool with_weights, bool last_offset) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    auto bag = [&](Shape w, std::vector<int64_t> idx, std::vector<int64_t> offsets) {
      if (last_offset) offsets.push_back(static_cast<int64_t>(idx.size()));
      std::vector<nabla::Tensor> in = {make(rng, w, dtype), nabla::tensor(idx, nabla::kLong),
                                       nabla::tensor(offsets, nabla::kLong)};
      if (with_weights) in.push_back(make(rng, {static_cast<int64_t>(idx.size())}, dtype));
      return sample_of(in);
    };
    return Samples{bag({6, 3}, {1, 2, 4, 5, 4, 3, 2}, {0, 3}),
                   bag({5, 2}, {0, 0, 3, 1, 4, 2}, {0, 2, 2, 5}), bag({4, 4}, {3, 1}, {0, 1})};
  };
}

std::vector<OpEntry> embedding_bag_entries() {
  const std::string g = "nn_embedding";
  const Opt o = Opt().tol32(1e-5, 1e-6);
  return {
      op(
          g, "embedding_bag_sum", bag_samples(false, false),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 0, false, {}, false));
          },
          Opt(o).gradgrad()),
      op(
          g, "embedding_bag_mean", bag_samples(false, false),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 1, false, {}, false));
          },
          Opt(o)),
      op(
          g, "embedding_bag_max", bag_samples(false, false),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 2, false, {}, false));
          },
          Opt(o).fd_distinct()),
      op(
          g, "embedding_bag_per_sample_weights", bag_samples(true, false),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 0, false, x[3], false));
          },
          Opt(o).gradgrad()),
      op(
          g, "embedding_bag_last_offset_padding", bag_samples(false, true),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 1, false, {}, true, 2));
          },
          Opt(o)),
      op(
          g, "embedding_bag_max_padding", bag_samples(false, true),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 2, false, {}, true, 0));
          },
          Opt(o).fd_distinct()),
      not_a_derivative(op(
          g, "embedding_bag_scale_grad_by_freq", bag_samples(false, false),
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], true, 1, false, {}, false));
          },
          Opt(o))),
      op(
          g, "embedding_bag_out_of_range",
          [](Rng& rng, nabla::ScalarType dtype) {
            return Samples{sample_of({make(rng, {4, 2}, dtype), nabla::tensor({0, 4}, nabla::kLong),
                                      nabla::tensor({0}, nabla::kLong)})};
          },
          [](const auto& x) {
            return std::get<0>(embedding_bag(x[0], x[1], x[2], false, 0, false, {}, false));
          },
          Opt().throws("embedding_bag")),
  };
}

const bool registered_bags = add_entries(embedding_bag_entries());

}  // namespace
}  // namespace conform
