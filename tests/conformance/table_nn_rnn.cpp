// Op-table entries for the recurrent ops: cells, and multi-layer / bidirectional /
// batch_first / unbatched sequences; values and float64 gradients of every parameter
// against LibTorch (and finite differences on the small cases).
#include "table.h"

namespace conform {
namespace {

struct Config {
  int64_t gates, input, hidden, layers, steps, batch;
  bool bidirectional, batch_first, unbatched, biases;
};

// Inputs: x, h0, (c0), then the flat parameters.
Gen rnn_samples(Config c, bool lstm) {
  return [=](Rng& rng, nabla::ScalarType dtype) {
    const int64_t dirs = c.bidirectional ? 2 : 1;
    std::vector<nabla::Tensor> in;
    Shape xs = c.unbatched ? Shape{c.steps, c.input}
                           : (c.batch_first ? Shape{c.batch, c.steps, c.input}
                                            : Shape{c.steps, c.batch, c.input});
    Shape hs =
        c.unbatched ? Shape{c.layers * dirs, c.hidden} : Shape{c.layers * dirs, c.batch, c.hidden};
    in.push_back(make(rng, xs, dtype));
    in.push_back(make(rng, hs, dtype, kUnit));
    if (lstm) in.push_back(make(rng, hs, dtype, kUnit));
    for (int64_t l = 0; l < c.layers; ++l)
      for (int64_t d = 0; d < dirs; ++d) {
        const int64_t in_size = l == 0 ? c.input : c.hidden * dirs;
        in.push_back(make(rng, {c.gates * c.hidden, in_size}, dtype, kUnit));
        in.push_back(make(rng, {c.gates * c.hidden, c.hidden}, dtype, kUnit));
        if (c.biases) {
          in.push_back(make(rng, {c.gates * c.hidden}, dtype, kUnit));
          in.push_back(make(rng, {c.gates * c.hidden}, dtype, kUnit));
        }
      }
    return Samples{sample_of(in)};
  };
}

template <class T>
std::vector<T> tail(const std::vector<T>& x, size_t from) {
  return std::vector<T>(x.begin() + static_cast<std::ptrdiff_t>(from), x.end());
}

std::vector<OpEntry> rnn_entries() {
  const std::string g = "nn_rnn";
  const Opt o = Opt().tol32(1e-5, 1e-5);
  std::vector<OpEntry> out;
  const std::vector<std::pair<std::string, Config>> configs = {
      {"", {0, 3, 4, 1, 5, 2, false, false, false, true}},
      {"_2layers_bidirectional", {0, 3, 4, 2, 4, 2, true, false, false, true}},
      {"_batch_first_nobias", {0, 3, 2, 1, 3, 4, false, true, false, false}},
      {"_unbatched", {0, 2, 3, 2, 3, 1, true, false, true, true}},
  };
  for (const auto& config : configs) {
    // Named, not a structured binding: clang before 16 cannot capture one.
    const std::string& suffix = config.first;
    const Config& cfg = config.second;
    Config l = cfg, gr = cfg, r = cfg;
    l.gates = 4;
    gr.gates = 3;
    r.gates = 1;
    // at::lstm/gru/rnn take batched input only (LibTorch's modules unsqueeze); nabla's
    // accept unbatched input too, so the LibTorch side of those entries batches by hand.
    auto lstm_fn = [l](const auto& x, bool batch) {
      using T = std::decay_t<decltype(x[0])>;
      auto b = [&](const T& t) { return batch ? t.unsqueeze(1) : t; };
      auto u = [&](const T& t) { return batch ? t.squeeze(1) : t; };
      auto [y, h, c] = lstm(b(x[0]), std::vector<T>{b(x[1]), b(x[2])}, tail(x, 3), l.biases,
                            l.layers, 0.0, false, l.bidirectional, l.batch_first);
      return std::vector<T>{u(y), u(h), u(c)};
    };
    auto gru_fn = [gr](const auto& x, bool batch) {
      using T = std::decay_t<decltype(x[0])>;
      auto b = [&](const T& t) { return batch ? t.unsqueeze(1) : t; };
      auto u = [&](const T& t) { return batch ? t.squeeze(1) : t; };
      auto [y, h] = gru(b(x[0]), b(x[1]), tail(x, 2), gr.biases, gr.layers, 0.0, false,
                        gr.bidirectional, gr.batch_first);
      return std::vector<T>{u(y), u(h)};
    };
    auto tanh_fn = [r](const auto& x, bool batch) {
      using T = std::decay_t<decltype(x[0])>;
      auto b = [&](const T& t) { return batch ? t.unsqueeze(1) : t; };
      auto u = [&](const T& t) { return batch ? t.squeeze(1) : t; };
      auto [y, h] = rnn_tanh(b(x[0]), b(x[1]), tail(x, 2), r.biases, r.layers, 0.0, false,
                             r.bidirectional, r.batch_first);
      return std::vector<T>{u(y), u(h)};
    };
    const nabla::ops::Attributes attrs = {{"has_biases", cfg.biases},
                                          {"num_layers", cfg.layers},
                                          {"bidirectional", cfg.bidirectional},
                                          {"batch_first", cfg.batch_first}};
    // bench_ops times the one-layer entries at 35 steps x batch 32, 128 features.
    auto bench = [&](Config c, bool is_lstm, const std::string& name) {
      const Opt named = Opt(o).call(name, attrs);
      if (!suffix.empty()) return named;
      c.input = c.hidden = 128;
      c.steps = 35;
      c.batch = 32;
      return Opt(named).bench(rnn_samples(c, is_lstm));
    };
    out.push_back(op2(
        g, "lstm" + suffix, rnn_samples(l, true), [=](const auto& x) { return lstm_fn(x, false); },
        LIBTORCH([=](const auto& x) { return lstm_fn(x, cfg.unbatched); }),
        bench(l, true, "lstm")));
    out.push_back(op2(
        g, "gru" + suffix, rnn_samples(gr, false), [=](const auto& x) { return gru_fn(x, false); },
        LIBTORCH([=](const auto& x) { return gru_fn(x, cfg.unbatched); }),
        bench(gr, false, "gru")));
    out.push_back(op2(
        g, "rnn_tanh" + suffix, rnn_samples(r, false),
        [=](const auto& x) { return tanh_fn(x, false); },
        LIBTORCH([=](const auto& x) { return tanh_fn(x, cfg.unbatched); }),
        bench(r, false, "rnn_tanh")));
  }
  Config rr{1, 3, 4, 1, 3, 2, false, false, false, true};
  out.push_back(op(
      g, "rnn_relu", rnn_samples(rr, false),
      [](const auto& x) {
        using T = std::decay_t<decltype(x[0])>;
        auto [y, h] = rnn_relu(x[0], x[1], tail(x, 2), true, 1, 0.0, false, false, false);
        return std::vector<T>{y, h};
      },
      Opt(o).call("rnn_relu")));
  // Cells: (input [N, in], h [N, H], (c), w_ih, w_hh, b_ih, b_hh); also unbatched.
  const std::string fused =
      "one fused pointwise node in nabla (LibTorch 1.13 composes its cells on the CPU)";
  for (bool unbatched : {false, true}) {
    const std::string s = unbatched ? "_unbatched" : "";
    // The unbatched cells' outputs come out of a squeeze on both sides.
    const Opt fused_cell = unbatched ? Opt(o) : Opt(o).node_name_differs(fused);
    auto shapes = [unbatched](int64_t gates) {
      std::vector<Shape> v = {unbatched ? Shape{3} : Shape{2, 3},
                              unbatched ? Shape{4} : Shape{2, 4}};
      return v;
    };
    auto cell_gen = [&](int64_t gates, bool with_c) {
      std::vector<Shape> v = shapes(gates);
      if (with_c) v.push_back(v[1]);
      v.push_back({gates * 4, 3});
      v.push_back({gates * 4, 4});
      v.push_back({gates * 4});
      v.push_back({gates * 4});
      return fixed({v}, kUnit);
    };
    // As above: LibTorch's cells take batched input only.
    auto lstm_c = [](const auto& x, bool batch) {
      using T = std::decay_t<decltype(x[0])>;
      auto b = [&](const T& t) { return batch ? t.unsqueeze(0) : t; };
      auto u = [&](const T& t) { return batch ? t.squeeze(0) : t; };
      auto [h, c] = lstm_cell(b(x[0]), std::vector<T>{b(x[1]), b(x[2])}, x[3], x[4], x[5], x[6]);
      return std::vector<T>{u(h), u(c)};
    };
    auto simple_c = [](int kind) {
      return [kind](const auto& x, bool batch) {
        using T = std::decay_t<decltype(x[0])>;
        auto b = [&](const T& t) { return batch ? t.unsqueeze(0) : t; };
        T h = kind == 0   ? gru_cell(b(x[0]), b(x[1]), x[2], x[3], x[4], x[5])
              : kind == 1 ? rnn_tanh_cell(b(x[0]), b(x[1]), x[2], x[3], x[4], x[5])
                          : rnn_relu_cell(b(x[0]), b(x[1]), x[2], x[3], x[4], x[5]);
        return batch ? h.squeeze(0) : h;
      };
    };
    out.push_back(op2(
        g, "lstm_cell" + s, cell_gen(4, true), [=](const auto& x) { return lstm_c(x, false); },
        LIBTORCH([=](const auto& x) { return lstm_c(x, unbatched); }),
        Opt(fused_cell).call("lstm_cell")));
    const char* names[] = {"gru_cell", "rnn_tanh_cell", "rnn_relu_cell"};
    const int64_t gates[] = {3, 1, 1};
    for (int k = 0; k < 3; ++k) {
      auto f = simple_c(k);
      out.push_back(op2(
          g, names[k] + s, cell_gen(gates[k], false), [=](const auto& x) { return f(x, false); },
          LIBTORCH([=](const auto& x) { return f(x, unbatched); }),
          Opt(k == 0 ? fused_cell : o).call(names[k])));
    }
  }
  return out;
}

// Each step composes several ops (products, gates), each rounded to 16 bits.
std::vector<OpEntry> with_16bit_tolerance(std::vector<OpEntry> entries) {
  for (auto& e : entries) e.tol.scale16 = 8;
  return entries;
}

const bool registered = add_entries(with_16bit_tolerance(rnn_entries()));

}  // namespace
}  // namespace conform
