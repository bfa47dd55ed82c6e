// Op-table entries for the softmax family and the activations: every dim, non-contiguous
// inputs, empty batches, logits of ±1e4, values and gradients (float64, against LibTorch
// and finite differences).
#include "table.h"

namespace conform {
namespace {

// 1-d to 3-d inputs, transposed and strided layouts, an empty batch, one wide row.
Gen softmax_samples(Dom dom = kWide) {
  return layouts({{{{5}, Layout::Contiguous}},
                  {{{3, 4}, Layout::Contiguous}},
                  {{{2, 3, 4}, Layout::Contiguous}},
                  {{{4, 3}, Layout::Transposed}},
                  {{{3, 5}, Layout::Strided}},
                  {{{0, 3}, Layout::Contiguous}},
                  {{{2, 40}, Layout::Contiguous}}},
                 dom);
}

std::vector<OpEntry> softmax_entries(const std::string& g) {
  std::vector<OpEntry> out;
  const Opt o = Opt().tol32(1e-5, 1e-6).gradgrad();
  const Opt classifier = Opt(o).bench(fixed({{{256, 1000}}}));  // bench_ops: 1000 classes
  out.push_back(op(
      g, "softmax_last", softmax_samples(), [](const auto& x) { return softmax(x[0], -1); },
      Opt(classifier).call("softmax", {{"dim", -1}})));
  out.push_back(op(
      g, "softmax_dim0", softmax_samples(), [](const auto& x) { return softmax(x[0], 0); },
      Opt(o).call("softmax", {{"dim", 0}})));
  out.push_back(op(
      g, "log_softmax_last", softmax_samples(), [](const auto& x) { return log_softmax(x[0], -1); },
      Opt(classifier).call("log_softmax", {{"dim", -1}})));
  out.push_back(op(
      g, "log_softmax_dim0", softmax_samples(), [](const auto& x) { return log_softmax(x[0], 0); },
      Opt(o).call("log_softmax", {{"dim", 0}})));
  out.push_back(op(
      g, "softmax_method", fixed({{{2, 3, 4}}}), [](const auto& x) { return x[0].softmax(1); },
      Opt(o).call("softmax", {{"dim", 1}})));
  out.push_back(op(
      g, "log_softmax_method", fixed({{{2, 3, 4}}}),
      [](const auto& x) { return x[0].log_softmax(1); }, Opt(o).call("log_softmax", {{"dim", 1}})));
  out.push_back(op(
      g, "softmax_dtype", fixed({{{3, 4}}}),
      [](const auto& x) { return softmax(x[0], 1, dtype_for(x[0], nabla::kDouble)); },
      Opt(o).call("softmax", {{"dim", 1}, {"dtype", nabla::kDouble}})));
  out.push_back(op2(
      g, "softmin", softmax_samples(),
      [](const auto& x) { return nabla::softmin(x[0], 1 % std::max<int64_t>(x[0].dim(), 1)); },
      LIBTORCH(
          [](const auto& x) { return at::softmax(-x[0], 1 % std::max<int64_t>(x[0].dim(), 1)); }),
      o));
  out.push_back(op2(
      g, "softmin_dim0", softmax_samples(), [](const auto& x) { return nabla::softmin(x[0], 0); },
      LIBTORCH([](const auto& x) { return at::softmax(-x[0], 0); }),
      Opt(o).call("softmin", {{"dim", 0}})));
  out.push_back(op(
      g, "log_softmax_0d", fixed({{{}}}), [](const auto& x) { return log_softmax(x[0], 0); },
      Opt(o).call("log_softmax", {{"dim", 0}})));
  // Stability: logits of ±1e4 give finite values and gradients.
  const Opt big = Opt().tol32(1e-5, 1e-3);
  out.push_back(op(
      g, "softmax_extreme", softmax_samples({-1e4, 1e4}),
      [](const auto& x) { return softmax(x[0], 1 % std::max<int64_t>(x[0].dim(), 1)); }, big));
  out.push_back(op(
      g, "log_softmax_extreme", softmax_samples({-1e4, 1e4}),
      [](const auto& x) { return log_softmax(x[0], -1); },
      Opt(classifier).call("log_softmax", {{"dim", -1}})));
  out.push_back(op(
      g, "softmax_bad_dim", fixed({{{2, 3}}}), [](const auto& x) { return softmax(x[0], 2); },
      Opt().throws("softmax").call("softmax", {{"dim", 2}})));
  return out;
}

// x in [-6, 6] avoids the kinks only by chance; the kinks themselves (0, ±lambda, the
// clamp bounds) are probed by edge_samples, values only.
std::vector<OpEntry> pointwise_entries(const std::string& g) {
  std::vector<OpEntry> out;
  const Opt o = Opt().tol32(1e-5, 1e-6).gradgrad();
  const Gen u = unary(kWide);
  auto add = [&](const std::string& name, auto f) { out.push_back(op(g, name, u, f, o)); };
  // An entry also run by name (see Opt::call).
  auto add_call = [&](const std::string& name, auto f, const std::string& call,
                      nabla::ops::Attributes attrs = {}) {
    out.push_back(op(g, name, u, f, Opt(o).call(call, std::move(attrs))));
  };
  add_call(
      "hardtanh", [](const auto& x) { return hardtanh(x[0]); }, "hardtanh");
  add_call("hardtanh_bounds", [](const auto& x) { return hardtanh(x[0], -0.5, 2.0); }, "hardtanh",
           {{"min_val", -0.5}, {"max_val", 2.0}});
  add_call(
      "relu6", [](const auto& x) { return relu6(x[0]); }, "relu6");
  // LibTorch's hardsigmoid and celu backward kernels round 1/6 and 1/alpha through float
  // even in float64 (gradients off by ~1e-8 relative); ours are exact (finite
  // differences check them), so the gradient comparison reports a known difference.
  const Opt o64 = Opt(o).differs(
      "LibTorch's float64 hardsigmoid/celu backward rounds 1/6 and "
      "1/alpha to float (~1e-8 relative); nabla's gradients pass gradcheck");
  out.push_back(op(
      g, "hardsigmoid", u, [](const auto& x) { return hardsigmoid(x[0]); },
      Opt(o64).call("hardsigmoid")));
  add_call(
      "hardswish", [](const auto& x) { return hardswish(x[0]); }, "hardswish");
  add_call(
      "selu", [](const auto& x) { return selu(x[0]); }, "selu");
  add_call(
      "celu", [](const auto& x) { return celu(x[0], 1.0); }, "celu");
  out.push_back(op(
      g, "celu_alpha", u, [](const auto& x) { return celu(x[0], 0.7); },
      Opt(o64).call("celu", {{"alpha", 0.7}})));
  add_call(
      "mish", [](const auto& x) { return mish(x[0]); }, "mish");
  add_call(
      "log_sigmoid", [](const auto& x) { return log_sigmoid(x[0]); }, "log_sigmoid");
  add_call("threshold", [](const auto& x) { return threshold(x[0], 0.3, -2.0); }, "threshold",
           {{"threshold", 0.3}, {"value", -2.0}});
  out.back().no16 =
      "the threshold is rounded to the 16-bit dtype (as in LibTorch): an input equal to the "
      "rounded 0.3 is replaced, in float32 it is not";
  add_call(
      "hardshrink", [](const auto& x) { return hardshrink(x[0], 0.5); }, "hardshrink");
  add_call(
      "softshrink", [](const auto& x) { return softshrink(x[0], 0.5); }, "softshrink");
  add_call("rrelu_eval", [](const auto& x) { return rrelu(x[0], 0.1, 0.3, false); }, "rrelu",
           {{"lower", 0.1}, {"upper", 0.3}});
  add("leaky_relu", [](const auto& x) { return leaky_relu(x[0], 0.2); });
  add("elu", [](const auto& x) { return elu(x[0], 1.3); });
  add("gelu", [](const auto& x) { return gelu(x[0]); });
  add("gelu_tanh", [](const auto& x) { return gelu(x[0], "tanh"); });
  add("silu", [](const auto& x) { return silu(x[0]); });
  add("softplus", [](const auto& x) { return softplus(x[0], 2.0, 3.0); });
  // No ATen op: LibTorch's functional spells them out.
  out.push_back(op2(
      g, "softsign", u, [](const auto& x) { return nabla::softsign(x[0]); },
      LIBTORCH([](const auto& x) { return x[0] / (x[0].abs() + 1); }), Opt(o).call("softsign")));
  out.push_back(op2(
      g, "tanhshrink", u, [](const auto& x) { return nabla::tanhshrink(x[0]); },
      LIBTORCH([](const auto& x) { return x[0] - x[0].tanh(); }), Opt(o).call("tanhshrink")));
  // Extremes: ±100 and beyond stay finite with finite gradients.
  const Opt big = Opt().tol32(1e-5, 1e-5);
  for (auto [name, dom] : {std::pair<std::string, Dom>{"_extreme", Dom{-120, 120}}}) {
    out.push_back(op(
        g, "log_sigmoid" + name, unary(dom), [](const auto& x) { return log_sigmoid(x[0]); },
        Opt(big).call("log_sigmoid")));
    out.push_back(op(
        g, "softplus" + name, unary(dom), [](const auto& x) { return softplus(x[0]); }, big));
    out.push_back(op(
        g, "sigmoid" + name, unary(dom), [](const auto& x) { return x[0].sigmoid(); }, big));
    out.push_back(op(
        g, "mish" + name, unary(dom), [](const auto& x) { return mish(x[0]); },
        Opt(big).call("mish")));
    out.push_back(op(
        g, "selu" + name, unary(dom), [](const auto& x) { return selu(x[0]); },
        Opt(big).call("selu")));
    out.push_back(op(
        g, "gelu" + name, unary(dom), [](const auto& x) { return gelu(x[0]); }, big));
  }
  // Kinks and specials: the samples' zeros sit on kinks, where derivatives are
  // conventions, so these compare with LibTorch's conventions without finite differences.
  const Gen sp = unary(kSpecials);
  const Opt kink = Opt().no_fd("the samples' zeros sit on the function's kinks");
  out.push_back(op(
      g, "hardtanh_specials", sp, [](const auto& x) { return hardtanh(x[0]); },
      Opt(kink).call("hardtanh")));
  out.push_back(op(
      g, "hardshrink_specials", sp, [](const auto& x) { return hardshrink(x[0], 0.0); },
      Opt(kink).call("hardshrink", {{"lambd", 0.0}})));
  out.push_back(op(
      g, "softshrink_specials", sp, [](const auto& x) { return softshrink(x[0], 0.0); },
      Opt(kink).call("softshrink", {{"lambd", 0.0}})));
  out.push_back(op(
      g, "threshold_specials", sp, [](const auto& x) { return threshold(x[0], 0.0, 7.0); },
      Opt(kink).call("threshold", {{"threshold", 0.0}, {"value", 7.0}})));
  out.push_back(op(
      g, "relu6_specials", sp, [](const auto& x) { return relu6(x[0]); }, Opt(kink).call("relu6")));
  out.push_back(op(
      g, "hardswish_specials", sp, [](const auto& x) { return hardswish(x[0]); },
      Opt(kink).call("hardswish")));
  out.push_back(op(
      g, "log_sigmoid_specials", sp, [](const auto& x) { return log_sigmoid(x[0]); },
      Opt(kink).call("log_sigmoid")));
  // glu over dims, prelu with one or per-channel weights.
  out.push_back(op(
      g, "glu",
      layouts({{{{4, 6}, Layout::Contiguous}},
               {{{6, 4}, Layout::Transposed}},
               {{{2, 4, 3}, Layout::Contiguous}}},
              kWide),
      [](const auto& x) { return glu(x[0], x[0].dim() == 3 ? 1 : -1); }, o));
  out.push_back(op(
      g, "glu_dim0", fixed({{{4, 3}}, {{0, 2}}}), [](const auto& x) { return glu(x[0], 0); },
      Opt(o).call("glu", {{"dim", 0}})));
  out.push_back(op(
      g, "glu_last", fixed({{{3, 4}}, {{2, 3, 6}}}, kWide), [](const auto& x) { return glu(x[0]); },
      Opt(o).call("glu")));
  out.push_back(op(
      g, "glu_odd", fixed({{{3, 5}}}), [](const auto& x) { return glu(x[0], 1); },
      Opt().throws("glu").call("glu", {{"dim", 1}})));
  out.push_back(op(
      g, "prelu",
      fixed({{{5}, {1}}, {{2, 3}, {3}}, {{2, 3, 4}, {3}}, {{2, 3, 2, 2}, {1}}, {{0, 3, 2}, {3}}},
            kWide),
      [](const auto& x) { return prelu(x[0], x[1]); }, Opt(o).call("prelu")));
  out.push_back(op(
      g, "prelu_transposed",
      layouts({{{{4, 3}, Layout::Transposed}, {{3}, Layout::Contiguous}}}, kWide),
      [](const auto& x) { return prelu(x[0], x[1]); }, Opt(o).call("prelu")));
  out.push_back(op(
      g, "prelu_bad_weight", fixed({{{2, 3}, {2}}}),
      [](const auto& x) { return prelu(x[0], x[1]); }, Opt().throws("prelu").call("prelu")));
  return out;
}

std::vector<OpEntry> activation_entries() {
  const std::string g = "nn_activation";
  std::vector<OpEntry> out = softmax_entries(g);
  for (auto& e : pointwise_entries(g)) out.push_back(std::move(e));
  return out;
}

const bool registered = add_entries(activation_entries());

// More: softmax over infinities and NaN (a NaN poisons its row only, -inf logits get 0),
// 0-d and empty inputs, integer inputs (rejected without a dtype, converted with one),
// dims out of range, and the extremes of gelu's tanh form and softsign.
std::vector<OpEntry> more_activation_entries() {
  const std::string g = "nn_activation";
  const Opt o = Opt().tol32(1e-5, 1e-6).gradgrad();
  auto both = [](const auto& a, const auto& b) {
    return std::vector<std::decay_t<decltype(a)>>{a, b};
  };
  const Gen specials = layouts({{{{3, 8}, Layout::Contiguous}},
                                {{{8, 3}, Layout::Transposed}},
                                {{{2, 40}, Layout::Contiguous}}},
                               kSpecials);
  const Gen extreme = unary({-1000, 1000});
  return {
      op(
          g, "softmax_specials", specials,
          [both](const auto& x) { return both(softmax(x[0], -1), log_softmax(x[0], 0)); }, o),
      op(
          g, "softmax_0d_and_empty", fixed({{{}}, {{3, 0}}, {{0, 4}}}),
          [both](const auto& x) { return both(softmax(x[0], -1), log_softmax(x[0], 0)); }, o),
      op(
          g, "softmax_of_ints", fixed({{{3, 4}}}),
          [both](const auto& x) { return both(softmax(x[0], -1), log_softmax(x[0], 0)); },
          Opt(o).dtypes({nabla::kLong, nabla::kInt})),
      op(
          g, "softmax_ints_with_dtype", fixed({{{3, 4}}, {{5}}}),
          [both](const auto& x) {
            return both(softmax(x[0], -1, dtype_for(x[0], nabla::kDouble)),
                        log_softmax(x[0], 0, dtype_for(x[0], nabla::kDouble)));
          },
          Opt(o).dtypes(kFloatsAndLong)),
      op(
          g, "log_softmax_bad_dim", fixed({{{2, 3}}}),
          [](const auto& x) { return log_softmax(x[0], -3); }, Opt().throws("log_softmax")),
      op(
          g, "glu_bad_dim", fixed({{{2, 4}}}), [](const auto& x) { return glu(x[0], 2); },
          Opt().throws("glu")),
      op(
          g, "glu_0d", fixed({{{}}}), [](const auto& x) { return glu(x[0]); }, Opt().throws("glu")),
      op(
          g, "hardsigmoid_of_ints", fixed({{{3}}}), [](const auto& x) { return hardsigmoid(x[0]); },
          Opt().dtypes({nabla::kLong}).throws("hardsigmoid")),
      op(
          g, "gelu_tanh_extreme", extreme, [](const auto& x) { return gelu(x[0], "tanh"); },
          Opt().tol32(1e-5, 1e-5)),
      op2(
          g, "softsign_extreme", extreme, [](const auto& x) { return nabla::softsign(x[0]); },
          LIBTORCH([](const auto& x) { return x[0] / (x[0].abs() + 1); }), Opt().tol32(1e-5, 1e-5)),
  };
}

const bool registered_more = add_entries(more_activation_entries());

}  // namespace
}  // namespace conform
