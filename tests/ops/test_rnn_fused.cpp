// The fused LSTM and GRU cells (Note [Fused recurrent cells], src/ops/nn/rnn_cells.cpp)
// and LSTM layers (Note [Fused recurrent layers], src/ops/nn/rnn_layer.cpp), what the op table
// (tests/conformance/table_nn_rnn.cpp) does not cover: sequences with projections, several layers,
// both directions and packed batches against the recurrence composed from public ops (float64
// values and gradients to 1e-12, float32 to 1e-5), finite differences and second derivatives, and
// which node runs.
#include <cmath>

#include "nabla/nn/utils/rnn.h"
#include "test_util.h"

using namespace nabla;

// Named, not anonymous: test files are compiled in unity batches.
namespace rnn_fused_test {

struct Config {
  bool lstm;
  int64_t input, hidden, proj, layers;  // proj 0: none
  bool bidirectional;
  int64_t out() const { return proj > 0 ? proj : hidden; }
  int64_t dirs() const { return bidirectional ? 2 : 1; }
};

// Per layer and direction w_ih, w_hh, b_ih, b_hh (and w_hr), as the ops take them.
std::vector<Tensor> make_params(const Config& c, ScalarType dtype) {
  const int64_t g = (c.lstm ? 4 : 3) * c.hidden;
  std::vector<Tensor> p;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t d = 0; d < c.dirs(); ++d) {
      const int64_t in = l == 0 ? c.input : c.out() * c.dirs();
      p.push_back(randn({g, in}, dtype) * 0.5);
      p.push_back(randn({g, c.out()}, dtype) * 0.5);
      p.push_back(randn({g}, dtype) * 0.5);
      p.push_back(randn({g}, dtype) * 0.5);
      if (c.proj > 0) p.push_back(randn({c.proj, c.hidden}, dtype) * 0.5);
    }
  for (Tensor& t : p) t.requires_grad_();
  return p;
}

// The recurrence composed from public ops, one step at a time: x [T, N, in], h0 and c0
// [layers * dirs, N, *]. Returns (output, h_n, c_n).
std::vector<Tensor> reference(const Config& c, const Tensor& x, const Tensor& h0, const Tensor& c0,
                              const std::vector<Tensor>& p) {
  const size_t per = c.proj > 0 ? 5 : 4;
  std::vector<Tensor> hn, cn;
  Tensor in = x;
  for (int64_t l = 0; l < c.layers; ++l) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < c.dirs(); ++d) {
      const size_t b = static_cast<size_t>(l * c.dirs() + d) * per;
      Tensor h = h0[l * c.dirs() + d], cell = c.lstm ? c0[l * c.dirs() + d] : Tensor();
      std::vector<Tensor> ys(static_cast<size_t>(x.size(0)));
      for (int64_t s = 0; s < x.size(0); ++s) {
        const int64_t t = d == 0 ? s : x.size(0) - 1 - s;
        Tensor gi = in[t].matmul(p[b].t()) + p[b + 2], gh = h.matmul(p[b + 1].t()) + p[b + 3];
        if (c.lstm) {
          auto g = (gi + gh).chunk(4, 1);
          cell = g[1].sigmoid() * cell + g[0].sigmoid() * g[2].tanh();
          h = g[3].sigmoid() * cell.tanh();
          if (c.proj > 0) h = h.matmul(p[b + 4].t());
        } else {
          auto a = gi.chunk(3, 1), r = gh.chunk(3, 1);
          Tensor reset = (a[0] + r[0]).sigmoid(), z = (a[1] + r[1]).sigmoid();
          Tensor n = (a[2] + reset * r[2]).tanh();
          h = (1 - z) * n + z * h;
        }
        ys[static_cast<size_t>(t)] = h;
      }
      outs.push_back(stack(ys, 0));
      hn.push_back(h);
      if (c.lstm) cn.push_back(cell);
    }
    in = cat(outs, 2);
  }
  return {in, stack(hn, 0), c.lstm ? stack(cn, 0) : Tensor()};
}

std::vector<Tensor> run(const Config& c, const Tensor& x, const Tensor& h0, const Tensor& c0,
                        const std::vector<Tensor>& p) {
  if (c.lstm) {
    auto [y, h, cell] = lstm(x, {h0, c0}, p, true, c.layers, 0.0, false, c.bidirectional, false);
    return {y, h, cell};
  }
  auto [y, h] = gru(x, h0, p, true, c.layers, 0.0, false, c.bidirectional, false);
  return {y, h, Tensor()};
}

double max_rel_diff(const Tensor& a, const Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a.to(kDouble) - b.to(kDouble)).abs().max().item<double>() / scale;
}

// Outputs and the gradients of every input of `fused` and `ref` (the same inputs),
// for the same random output gradients.
void expect_same(const std::vector<Tensor>& fused, const std::vector<Tensor>& ref,
                 const std::vector<Tensor>& inputs, double tol) {
  std::vector<Tensor> outs, refs, gs;
  for (size_t i = 0; i < fused.size(); ++i) {
    if (!fused[i].defined()) continue;
    ASSERT_EQ(fused[i].sizes(), ref[i].sizes()) << "output " << i;
    EXPECT_LT(max_rel_diff(fused[i], ref[i]), tol) << "output " << i;
    outs.push_back(fused[i]);
    refs.push_back(ref[i]);
    gs.push_back(randn(fused[i].sizes(), fused[i].scalar_type()));
  }
  auto g1 = autograd::grad(outs, inputs, gs);
  auto g2 = autograd::grad(refs, inputs, gs);
  for (size_t i = 0; i < inputs.size(); ++i)
    EXPECT_LT(max_rel_diff(g1[i], g2[i]), tol) << "gradient of input " << i;
}

void check(const Config& c, ScalarType dtype, double tol) {
  SCOPED_TRACE(std::string(c.lstm ? "lstm" : "gru") + " layers " + std::to_string(c.layers) +
               (c.bidirectional ? " bidirectional" : "") + " proj " + std::to_string(c.proj) +
               (dtype == kFloat ? " float32" : " float64"));
  manual_seed(11);
  const int64_t T = 6, N = 5;
  Tensor x = randn({T, N, c.input}, dtype).requires_grad_();
  Tensor h0 = randn({c.layers * c.dirs(), N, c.out()}, dtype).requires_grad_();
  Tensor c0 = randn({c.layers * c.dirs(), N, c.hidden}, dtype).requires_grad_();
  std::vector<Tensor> p = make_params(c, dtype);
  std::vector<Tensor> inputs = {x, h0};
  if (c.lstm) inputs.push_back(c0);
  inputs.insert(inputs.end(), p.begin(), p.end());
  expect_same(run(c, x, h0, c0, p), reference(c, x, h0, c0, p), inputs, tol);
}

const std::vector<Config> kConfigs = {
    {true, 3, 4, 0, 1, false},  {true, 3, 5, 0, 2, true},  {true, 4, 6, 3, 2, true},
    {false, 3, 4, 0, 1, false}, {false, 4, 5, 0, 2, true},
};

}  // namespace rnn_fused_test

using namespace rnn_fused_test;

TEST(RnnFused, SequencesMatchComposedRecurrence) {
  for (const Config& c : kConfigs) {
    check(c, kDouble, 1e-12);
    check(c, kFloat, 1e-5);
  }
}

// Packed sequences of lengths 6, 4, 1 (the batch shrinks twice): each sequence's outputs
// and final state against the composed recurrence run on that sequence alone.
TEST(RnnFused, PackedSequencesMatchEachSequenceAlone) {
  for (const Config& c : {kConfigs[2], kConfigs[4]}) {
    SCOPED_TRACE(c.lstm ? "lstm" : "gru");
    manual_seed(5);
    const std::vector<int64_t> lengths = {6, 4, 1};
    const int64_t N = 3, L = c.layers * c.dirs();
    Tensor x = randn({6, N, c.input}, kDouble).requires_grad_();
    Tensor h0 = randn({L, N, c.out()}, kDouble).requires_grad_();
    Tensor c0 = randn({L, N, c.hidden}, kDouble).requires_grad_();
    std::vector<Tensor> p = make_params(c, kDouble);
    auto packed = nn::utils::rnn::pack_padded_sequence(x, tensor(lengths));
    std::vector<Tensor> got;
    if (c.lstm) {
      auto [y, h, cell] = lstm(packed.data(), packed.batch_sizes(), {h0, c0}, p, true, c.layers,
                               0.0, false, c.bidirectional);
      got = {y, h, cell};
    } else {
      auto [y, h] = gru(packed.data(), packed.batch_sizes(), h0, p, true, c.layers, 0.0, false,
                        c.bidirectional);
      got = {y, h};
    }
    nn::utils::rnn::PackedSequence out(got[0], packed.batch_sizes());
    Tensor padded = std::get<0>(nn::utils::rnn::pad_packed_sequence(out));
    std::vector<Tensor> fused, ref;
    for (int64_t b = 0; b < N; ++b) {
      const int64_t len = lengths[static_cast<size_t>(b)];
      auto r = reference(c, x.narrow(0, 0, len).narrow(1, b, 1), h0.narrow(1, b, 1),
                         c0.narrow(1, b, 1), p);
      fused.push_back(padded.narrow(0, 0, len).narrow(1, b, 1));
      ref.push_back(r[0]);
      for (size_t k = 1; k < got.size(); ++k) {
        fused.push_back(got[k].narrow(1, b, 1));
        ref.push_back(r[k]);
      }
    }
    std::vector<Tensor> inputs = {x, h0};
    if (c.lstm) inputs.push_back(c0);
    inputs.insert(inputs.end(), p.begin(), p.end());
    expect_same(fused, ref, inputs, 1e-12);
  }
}

// The backward under create_graph (differentiable formulas) gives the fused backward's
// gradients, finite differences agree, and second derivatives check.
TEST(RnnFused, CreateGraphFiniteDifferencesAndSecondDerivatives) {
  manual_seed(2);
  // The projected LSTM runs step by step, the plain LSTM and the GRU as one layer node per
  // direction.
  for (const Config& c : {Config{true, 2, 3, 2, 1, true}, Config{true, 2, 3, 0, 1, true},
                          Config{false, 2, 3, 0, 1, true}}) {
    SCOPED_TRACE(c.lstm ? "lstm" : "gru");
    Tensor x = randn({3, 2, c.input}, kDouble).requires_grad_();
    Tensor h0 = randn({c.dirs(), 2, c.out()}, kDouble).requires_grad_();
    Tensor c0 = randn({c.dirs(), 2, c.hidden}, kDouble).requires_grad_();
    std::vector<Tensor> p = make_params(c, kDouble);
    std::vector<Tensor> inputs = {x, h0};
    if (c.lstm) inputs.push_back(c0);
    inputs.insert(inputs.end(), p.begin(), p.end());
    const size_t first_param = c.lstm ? 3 : 2;
    auto f = [&](const std::vector<Tensor>& in) {
      std::vector<Tensor> params(in.begin() + static_cast<std::ptrdiff_t>(first_param), in.end());
      auto out = run(c, in[0], in[1], c.lstm ? in[2] : Tensor(), params);
      Tensor s = out[0].sin().sum() + out[1].square().sum();
      return std::vector<Tensor>{c.lstm ? s + out[2].cos().sum() : s};
    };
    Tensor loss = f(inputs)[0];
    auto plain = autograd::grad({loss}, inputs, {}, /*retain_graph=*/true);
    auto graphed = autograd::grad({loss}, inputs, {}, true, /*create_graph=*/true);
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_LT(max_rel_diff(plain[i], graphed[i]), 1e-12) << "input " << i;
    EXPECT_TRUE(autograd::gradcheck(f, inputs));
    EXPECT_TRUE(autograd::gradgradcheck(f, inputs));
  }
}

TEST(RnnFused, FusedNodeRunsOnTheCpu) {
  manual_seed(1);
  Tensor x = randn({2, 3}), h = randn({2, 4}), c = randn({2, 4});
  Tensor w_ih = randn({16, 3}).requires_grad_(), w_hh = randn({16, 4}).requires_grad_();
  auto [h1, c1] = lstm_cell(x, {h, c}, w_ih, w_hh);
  ASSERT_TRUE(h1.grad_fn() && c1.grad_fn());
  EXPECT_EQ(h1.grad_fn()->name(), "ThnnFusedLstmCellBackward0");
  EXPECT_EQ(c1.grad_fn(), h1.grad_fn());
  Tensor g = gru_cell(x, h, w_ih.narrow(0, 0, 12), w_hh.narrow(0, 0, 12));
  ASSERT_TRUE(g.grad_fn());
  EXPECT_EQ(g.grad_fn()->name(), "ThnnFusedGruCellBackward0");
  // Without grad, no node and the same values.
  NoGradGuard no_grad;
  auto [h2, c2] = lstm_cell(x, {h, c}, w_ih, w_hh);
  EXPECT_FALSE(h2.grad_fn());
  EXPECT_TRUE(h2.equal(h1.detach()) && c2.equal(c1.detach()));
}

// A padded LSTM without projections, or GRU, is one node per layer and direction; its outputs are
// stacked as LibTorch's are; without grad nothing is recorded and the values are the same;
// a packed batch that shrinks goes step by step.
TEST(RnnFused, LstmLayerIsOneNode) {
  manual_seed(3);
  const Config c{true, 3, 4, 0, 1, true};
  Tensor x = randn({5, 2, 3}), h0 = randn({2, 2, 4}), c0 = randn({2, 2, 4});
  std::vector<Tensor> p = make_params(c, kFloat);
  auto out = run(c, x, h0, c0, p);
  ASSERT_TRUE(out[0].grad_fn());
  EXPECT_EQ(out[0].grad_fn()->name(), "CatBackward0");  // the two directions
  const auto& stacked = out[0].grad_fn()->next_edges()[0].function;
  ASSERT_TRUE(stacked);
  EXPECT_EQ(stacked->name(), "StackBackward0");
  EXPECT_EQ(stacked->next_edges()[0].function->name(), "LstmLayerBackward0");
  EXPECT_EQ(out[1].grad_fn()->name(), "StackBackward0");
  EXPECT_EQ(out[1].grad_fn()->next_edges()[0].function->name(), "LstmLayerBackward0");
  {
    NoGradGuard no_grad;
    auto again = run(c, x, h0, c0, p);
    EXPECT_FALSE(again[0].grad_fn());
    for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(again[i].equal(out[i].detach())) << "output " << i;
  }
  // Only the last step's output used (a classifier): the other steps' gradients are zeros.
  Tensor loss = out[0][4].sum();
  loss.backward();
  Tensor ref_loss = reference(c, x, h0, c0, p)[0][4].sum();
  auto ref = autograd::grad({ref_loss}, p);
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_LT(max_rel_diff(p[i].grad(), ref[i]), 1e-5) << "parameter " << i;
  const Config g{false, 3, 4, 0, 1, false};
  auto gru_out = run(g, x, h0.narrow(0, 0, 1), Tensor(), make_params(g, kFloat));
  EXPECT_EQ(gru_out[0].grad_fn()->name(), "StackBackward0");
  EXPECT_EQ(gru_out[0].grad_fn()->next_edges()[0].function->name(), "GruLayerBackward0");
}
