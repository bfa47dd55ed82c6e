// The sequence modules' LibTorch surface: options_base, LSTM projections, packed input,
// and the packed ops' derivatives.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {
namespace R = nn::utils::rnn;

TEST(RnnModules, ProjectionsShapeTheStateAndTheParameters) {
  nn::LSTM m(nn::LSTMOptions(5, 6).num_layers(2).bidirectional(true).proj_size(3));
  EXPECT_EQ(m->options_base.proj_size(), 3);
  EXPECT_TRUE(std::holds_alternative<enumtype::kLSTM>(m->options_base.mode()));
  auto p = m->named_parameters();
  EXPECT_EQ(p["weight_ih_l0"].sizes(), IntArrayRef({24, 5}));
  EXPECT_EQ(p["weight_hh_l0"].sizes(), IntArrayRef({24, 3}));
  EXPECT_EQ(p["weight_hr_l0"].sizes(), IntArrayRef({3, 6}));
  EXPECT_EQ(p["weight_ih_l1_reverse"].sizes(), IntArrayRef({24, 6}));
  EXPECT_EQ(m->all_weights().size(), 20u);
  auto [y, state] = m->forward(randn({7, 2, 5}));
  EXPECT_EQ(y.sizes(), IntArrayRef({7, 2, 6}));
  EXPECT_EQ(std::get<0>(state).sizes(), IntArrayRef({4, 2, 3}));
  EXPECT_EQ(std::get<1>(state).sizes(), IntArrayRef({4, 2, 6}));
  m->flatten_parameters();  // nothing to do, and no harm
  EXPECT_EQ(nabla::str(m),
            "nabla::nn::LSTM(input_size=5, hidden_size=6, num_layers=2, bias=true, "
            "batch_first=false, dropout=0, bidirectional=true, proj_size=3)");
  expect_error([] { nn::LSTM(nn::LSTMOptions(5, 6).proj_size(6)); },
               {"LSTM", "proj_size has to be smaller than hidden_size"});
  expect_error([] { nn::LSTM(nn::LSTMOptions(5, 6).proj_size(-1)); }, {"LSTM", "proj_size"});
}

// A packed batch gives what each sequence gives alone: its outputs up to its length, and
// its final state at its own last step, in both directions.
TEST(RnnModules, PackedInputMatchesEachSequenceAlone) {
  manual_seed(3);
  nn::LSTM lstm(nn::LSTMOptions(4, 5).num_layers(2).bidirectional(true).proj_size(2));
  nn::GRU gru(nn::GRUOptions(4, 5).bidirectional(true));
  std::vector<Tensor> seqs = {randn({3, 4}), randn({5, 4}), randn({1, 4})};
  R::PackedSequence packed = R::pack_sequence(seqs, /*enforce_sorted=*/false);
  Tensor h0 = randn({4, 3, 2}), c0 = randn({4, 3, 5}), g0 = randn({2, 3, 5});
  auto [lout, lstate] = lstm->forward_with_packed_input(packed, std::make_tuple(h0, c0));
  auto [gout, gh] = gru->forward_with_packed_input(packed, g0);
  auto [lpad, lengths] = R::pad_packed_sequence(lout, /*batch_first=*/true);
  auto [gpad, glengths] = R::pad_packed_sequence(gout, /*batch_first=*/true);
  EXPECT_TRUE(equal(lengths, tensor({3, 5, 1}, kLong)));
  for (int64_t b = 0; b < 3; ++b) {
    const Tensor x = seqs[static_cast<size_t>(b)].unsqueeze(1);
    const int64_t len = x.size(0);
    auto [ly, ls] = lstm->forward(
        x, std::make_tuple(h0.narrow(1, b, 1).contiguous(), c0.narrow(1, b, 1).contiguous()));
    EXPECT_TRUE(allclose(lpad[b].narrow(0, 0, len), ly.squeeze(1), 1e-5, 1e-6)) << b;
    EXPECT_TRUE(allclose(std::get<0>(lstate).narrow(1, b, 1), std::get<0>(ls), 1e-5, 1e-6)) << b;
    EXPECT_TRUE(allclose(std::get<1>(lstate).narrow(1, b, 1), std::get<1>(ls), 1e-5, 1e-6)) << b;
    auto [gy, gs] = gru->forward(x, g0.narrow(1, b, 1).contiguous());
    EXPECT_TRUE(allclose(gpad[b].narrow(0, 0, len), gy.squeeze(1), 1e-5, 1e-6)) << b;
    EXPECT_TRUE(allclose(gh.narrow(1, b, 1), gs, 1e-5, 1e-6)) << b;
  }
  // Without a state: zeros.
  nn::RNN rnn(nn::RNNOptions(4, 3).nonlinearity(kReLU));
  auto [rout, rh] = rnn->forward_with_packed_input(packed);
  auto [r0, rh0] = rnn->forward_with_packed_input(packed, zeros({1, 3, 3}));
  EXPECT_TRUE(equal(rout.data(), r0.data()));
  EXPECT_TRUE(equal(rh, rh0));
  EXPECT_TRUE(equal(rout.batch_sizes(), packed.batch_sizes()));
  EXPECT_TRUE(equal(rout.unsorted_indices(), packed.unsorted_indices()));
}

TEST(RnnModules, PackedOpsHaveFiniteDifferenceGradients) {
  manual_seed(5);
  const Tensor batch_sizes = tensor({3, 2, 2, 1}, kLong);
  Tensor data = rnd({8, 2});
  std::vector<Tensor> params;
  // Two layers, two directions, biases and projections (h size 2, hidden 3).
  for (int64_t l = 0; l < 2; ++l)
    for (int64_t d = 0; d < 2; ++d) {
      params.push_back(rnd({12, l == 0 ? 2 : 4}));
      params.push_back(rnd({12, 2}));
      params.push_back(rnd({12}));
      params.push_back(rnd({12}));
      params.push_back(rnd({2, 3}));
    }
  Tensor h0 = rnd({4, 3, 2}), c0 = rnd({4, 3, 3});
  auto f = [&](const autograd::variable_list& in) -> autograd::variable_list {
    std::vector<Tensor> p(in.begin() + 3, in.end());
    auto [y, h, c] = lstm(in[0], batch_sizes, {in[1], in[2]}, p, true, 2, 0.0, false, true);
    return {y, h, c};
  };
  autograd::variable_list inputs = {data, h0, c0};
  inputs.insert(inputs.end(), params.begin(), params.end());
  EXPECT_TRUE(autograd::gradcheck(f, inputs));

  Tensor w_ih = rnd({9, 2}), w_hh = rnd({9, 3}), g0 = rnd({1, 3, 3});
  auto g = [&](const autograd::variable_list& in) -> autograd::variable_list {
    auto [y, h] = gru(in[0], batch_sizes, in[1], {in[2], in[3]}, false, 1, 0.0, false, false);
    return {y, h};
  };
  EXPECT_TRUE(autograd::gradcheck(g, {data, g0, w_ih, w_hh}));
}

TEST(RnnModules, PackedOpsRefuseBadBatchSizes) {
  Tensor data = randn({5, 2});
  std::vector<Tensor> p = {randn({3, 2}), randn({3, 3})};
  expect_error(
      [&] {
        rnn_tanh(data, tensor({2, 2}, kLong), Tensor(), p, false, 1, 0, false, false);
      },
      {"rnn_tanh", "batch_sizes add up to 4", "5 rows"});
  expect_error(
      [&] {
        rnn_tanh(data, tensor({2, 3}, kLong), Tensor(), p, false, 1, 0, false, false);
      },
      {"rnn_tanh", "not increasing"});
  expect_error(
      [&] {
        rnn_tanh(data, tensor({3.0, 2.0}), Tensor(), p, false, 1, 0, false, false);
      },
      {"rnn_tanh", "int64"});
}

}  // namespace
}  // namespace nabla::testing
