// RNN, GRU and LSTM.
//
// Note [ONNX recurrences]
// The forms PyTorch's exporter writes (default activations, no clip, layout 0, no
// sequence_lens, forward or bidirectional; GRU with linear_before_reset=1; LSTM without
// peepholes or input_forget) map to nabla's fused rnn_tanh/rnn_relu, gru and lstm ops, their
// weights reordered once at import from ONNX's gate order (GRU z, r, h; LSTM i, o, f, c)
// to PyTorch's (r, z, n; i, f, g, o) into new parameters. Every other form runs ONNX's
// equations step by step as eager ops in a function node (`unrolled`), gradients included:
// any activation list, clip, peepholes, coupled input and forget gates, a reset gate applied
// before the recurrent product, reverse directions, batch-major layout, and sequence
// lengths (a sequence's steps past its length output zeros and keep its state).
#include "graph/onnx/importer.h"

#include <array>

#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

enum class Cell { Rnn, Gru, Lstm };

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

Tensor activate(const Activation& a, const Tensor& x) {
  if (a.name == "Sigmoid") return x.sigmoid();
  if (a.name == "Tanh") return x.tanh();
  if (a.name == "Relu") return x.relu();
  if (a.name == "LeakyRelu") return x.where(x.ge(0), x * a.alpha);
  if (a.name == "ThresholdedRelu") return x.where(x.gt(a.alpha), zeros_like(x));
  if (a.name == "ScaledTanh") return (x * a.beta).tanh() * a.alpha;
  if (a.name == "HardSigmoid") return (x * a.alpha + a.beta).clamp(0.0, 1.0);
  if (a.name == "Elu") return x.where(x.ge(0), (x.exp() - 1) * a.alpha);
  if (a.name == "Softsign") return x / (x.abs() + 1);
  if (a.name == "Softplus") return softplus(x);
  return x * a.alpha + a.beta;  // Affine
}

struct Recurrence {
  Cell cell = Cell::Lstm;
  int64_t hidden = 0, dirs = 1;
  bool reverse = false;      // direction "reverse" (one direction, run backwards)
  bool batch_major = false;  // layout 1
  bool linear_before_reset = false, input_forget = false;
  double clip = 0;              // 0: none
  std::vector<Activation> act;  // per direction: f, g (and h for LSTM)
  // Which of X, W, R, B, sequence_lens, initial_h, initial_c, P are given, and where each
  // is in the node's inputs (-1: absent).
  std::array<int, 8> at{};
};

// One direction over the whole sequence: x [seq, batch, input] -> (y [seq, batch, hidden],
// last h, last c). `len` [batch] (long), when defined, masks steps past each length.
std::array<Tensor, 3> run_direction(const Recurrence& r, int64_t d, const Tensor& x,
                                    const Tensor& w, const Tensor& rw, const Tensor& b,
                                    const Tensor& len, Tensor h, Tensor c, const Tensor& p,
                                    bool backwards) {
  const int64_t steps = x.size(0), H = r.hidden;
  const size_t per = r.cell == Cell::Lstm ? 3 : 2;
  const Activation &f = r.act[static_cast<size_t>(d) * per],
                   &g = r.act[static_cast<size_t>(d) * per + 1];
  const Activation& hact = r.cell == Cell::Lstm ? r.act[static_cast<size_t>(d) * per + 2] : g;
  const int64_t gates = r.cell == Cell::Lstm ? 4 : r.cell == Cell::Gru ? 3 : 1;
  const Tensor wb = b.defined() ? b.narrow(0, 0, gates * H) : Tensor();
  const Tensor rb = b.defined() ? b.narrow(0, gates * H, gates * H) : Tensor();
  auto clipped = [&](const Tensor& t) { return r.clip > 0 ? t.clamp(-r.clip, r.clip) : t; };
  auto gate = [&](const Tensor& t, int64_t k) { return t.narrow(1, k * H, H); };
  // x's projections for every step at once
  Tensor xw = x.matmul(w.t());
  if (wb.defined()) xw = xw + wb;
  std::vector<Tensor> out(static_cast<size_t>(steps));
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = backwards ? steps - 1 - s : s;
    const Tensor xt = xw[t];
    Tensor hr = h.matmul(rw.t());
    if (rb.defined()) hr = hr + rb;
    Tensor h_new, c_new;
    if (r.cell == Cell::Rnn) {
      h_new = activate(f, clipped(xt + hr));
    } else if (r.cell == Cell::Gru) {
      const Tensor z = activate(f, clipped(gate(xt, 0) + gate(hr, 0)));
      const Tensor rs = activate(f, clipped(gate(xt, 1) + gate(hr, 1)));
      Tensor cand;
      if (r.linear_before_reset) {
        cand = gate(xt, 2) + rs * gate(hr, 2);
      } else {
        cand = gate(xt, 2) + (rs * h).matmul(rw.narrow(0, 2 * H, H).t());
        if (rb.defined()) cand = cand + rb.narrow(0, 2 * H, H);
      }
      const Tensor hh = activate(g, clipped(cand));
      h_new = (1 - z) * hh + z * h;
    } else {
      Tensor pi = gate(xt, 0) + gate(hr, 0), po = gate(xt, 1) + gate(hr, 1);
      Tensor pf = gate(xt, 2) + gate(hr, 2);
      if (p.defined()) {
        pi = pi + p.narrow(0, 0, H) * c;
        pf = pf + p.narrow(0, 2 * H, H) * c;
      }
      const Tensor i = activate(f, clipped(pi));
      const Tensor fg = r.input_forget ? 1 - i : activate(f, clipped(pf));
      const Tensor cc = activate(g, clipped(gate(xt, 3) + gate(hr, 3)));
      c_new = fg * c + i * cc;
      if (p.defined()) po = po + p.narrow(0, H, H) * c_new;
      h_new = activate(f, clipped(po)) * activate(hact, c_new);
    }
    if (len.defined()) {  // steps past a sequence's length: zeros out, the state kept
      const Tensor live = len.gt(t).view({-1, 1});
      out[static_cast<size_t>(t)] = h_new.where(live, zeros_like(h_new));
      h = h_new.where(live, h);
      if (c_new.defined()) c = c_new.where(live, c);
    } else {
      out[static_cast<size_t>(t)] = h_new;
      h = h_new;
      if (c_new.defined()) c = c_new;
    }
  }
  return {stack(out, 0), h, c};
}

// ONNX's equations step by step (Note [ONNX recurrences]); x's inputs in node order, the
// absent ones left out (r.at says where each is).
std::vector<Tensor> unrolled(const Recurrence& r, const std::vector<Tensor>& in) {
  auto get = [&](int k) {
    return r.at[static_cast<size_t>(k)] < 0 ? Tensor()
                                            : in[static_cast<size_t>(r.at[static_cast<size_t>(k)])];
  };
  Tensor x = get(0);
  const Tensor w = get(1), rw = get(2), b = get(3), p = get(7);
  Tensor len = get(4), h0 = get(5), c0 = get(6);
  if (r.batch_major) {
    x = x.transpose(0, 1);
    if (h0.defined()) h0 = h0.transpose(0, 1);
    if (c0.defined()) c0 = c0.transpose(0, 1);
  }
  const int64_t batch = x.size(1);
  if (len.defined()) len = len.to(kLong).to(x.device());
  auto zero_state = [&] { return zeros({r.dirs, batch, r.hidden}, x.options()); };
  if (!h0.defined()) h0 = zero_state();
  if (!c0.defined()) c0 = zero_state();
  std::vector<Tensor> ys, hs, cs;
  for (int64_t d = 0; d < r.dirs; ++d) {
    const bool backwards = r.reverse || d == 1;
    auto [y, h, c] = run_direction(r, d, x, w[d], rw[d], b.defined() ? b[d] : Tensor(), len, h0[d],
                                   c0[d], p.defined() ? p[d] : Tensor(), backwards);
    ys.push_back(y);
    hs.push_back(h);
    cs.push_back(c.defined() ? c : h);
  }
  Tensor y = stack(ys, 1);  // [seq, dirs, batch, hidden]
  Tensor yh = stack(hs, 0), yc = stack(cs, 0);
  if (r.batch_major) {
    y = y.permute({2, 0, 1, 3});
    yh = yh.transpose(0, 1);
    yc = yc.transpose(0, 1);
  }
  return {y.contiguous(), yh.contiguous(), yc.contiguous()};
}

}  // namespace

void Importer::recurrent(const Node& n) {
  Recurrence r;
  const std::string& op = n.op_type();
  r.cell = op == "RNN" ? Cell::Rnn : op == "GRU" ? Cell::Gru : Cell::Lstm;
  r.hidden = attr_int(n, "hidden_size", 0);
  if (r.hidden <= 0) fail(n, "hidden_size must be given and positive");
  const auto* direction = attr(n, "direction");
  const std::string dir = direction ? direction->s() : "forward";
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    fail(n, "direction '" + dir + "'");
  r.dirs = dir == "bidirectional" ? 2 : 1;
  r.reverse = dir == "reverse";
  r.batch_major = attr_int(n, "layout", 0) != 0;
  r.linear_before_reset = attr_int(n, "linear_before_reset", 0) != 0;
  r.input_forget = attr_int(n, "input_forget", 0) != 0;
  r.clip = attr(n, "clip") ? attr_float(n, "clip", 0) : 0;
  // activations: f, g (, h), per direction; the defaults as ONNX's
  const std::vector<std::string> defaults =
      r.cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
      : r.cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  std::vector<std::string> names;
  if (const auto* a = attr(n, "activations"))
    names.assign(a->strings().begin(), a->strings().end());
  if (names.empty())
    for (int64_t d = 0; d < r.dirs; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  const auto alphas = attr(n, "activation_alpha"), betas = attr(n, "activation_beta");
  static const std::vector<std::string> known = {
      "Sigmoid",     "Tanh", "Relu",     "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
      "HardSigmoid", "Elu",  "Softsign", "Softplus",  "Affine"};
  for (size_t k = 0; k < names.size(); ++k) {
    if (std::find(known.begin(), known.end(), names[k]) == known.end())
      fail(n, "activation '" + names[k] + "'");
    Activation act{names[k]};
    // defaults of the parameterized activations (ONNX's operator defaults)
    act.alpha = names[k] == "LeakyRelu" ? 0.01 : names[k] == "HardSigmoid" ? 0.2 : 1.0;
    act.beta = names[k] == "HardSigmoid" ? 0.5 : names[k] == "ScaledTanh" ? 1.0 : 0.0;
    if (alphas && static_cast<int>(k) < alphas->floats_size())
      act.alpha = alphas->floats(static_cast<int>(k));
    if (betas && static_cast<int>(k) < betas->floats_size())
      act.beta = betas->floats(static_cast<int>(k));
    r.act.push_back(act);
  }
  const size_t per = defaults.size();
  if (r.act.size() == per && r.dirs == 2) r.act.insert(r.act.end(), r.act.begin(), r.act.end());
  if (r.act.size() != per * static_cast<size_t>(r.dirs))
    fail(n, "activations has " + std::to_string(r.act.size()) + " entries, " +
                std::to_string(per * static_cast<size_t>(r.dirs)) + " wanted");
  std::vector<std::string> both = defaults;
  both.insert(both.end(), defaults.begin(), defaults.end());
  const bool default_acts = names == defaults || (r.dirs == 2 && names == both);
  const bool relu_rnn =
      r.cell == Cell::Rnn &&
      std::all_of(r.act.begin(), r.act.end(), [](const Activation& a) { return a.name == "Relu"; });
  const bool fused = (default_acts || relu_rnn) && r.clip == 0 && !r.batch_major && !r.reverse &&
                     !has_input(n, 4) &&
                     !(r.cell == Cell::Lstm && (has_input(n, 7) || r.input_forget)) &&
                     !(r.cell == Cell::Gru && !r.linear_before_reset) && is_constant(n, 1) &&
                     is_constant(n, 2) && (!has_input(n, 3) || is_constant(n, 3));
  if (fused)
    return fused_recurrent(n, r.cell == Cell::Rnn   ? (relu_rnn ? "rnn_relu" : "rnn_tanh")
                              : r.cell == Cell::Gru ? "gru"
                                                    : "lstm");
  std::vector<Value> in;
  for (int k = 0; k < 8; ++k) {
    r.at[static_cast<size_t>(k)] = has_input(n, k) ? static_cast<int>(in.size()) : -1;
    if (has_input(n, k)) in.push_back(input(n, k));
  }
  Value v = g_.custom(
      op, [r](const std::vector<Tensor>& x) { return unrolled(r, x); }, std::move(in), n.output(0));
  define(n, v.output(0), {v.output(1), v.output(2)});
}

// The fused ops (Note [ONNX recurrences]): `op` is rnn_tanh, rnn_relu, gru or lstm.
void Importer::fused_recurrent(const Node& n, const std::string& op) {
  const int64_t hidden = attr_int(n, "hidden_size", 0);
  const auto* direction = attr(n, "direction");
  const bool bidirectional = direction && direction->s() == "bidirectional";
  const int64_t dirs = bidirectional ? 2 : 1;
  const int64_t gates = op == "lstm" ? 4 : op == "gru" ? 3 : 1;
  const auto x_shape = shape_of(n, 0);
  if (x_shape.size() != 3) fail(n, "X must have 3 dimensions");
  const Tensor w = constant(n, 1), r = constant(n, 2);
  const Tensor b = has_input(n, 3)
                       ? constant(n, 3)
                       : zeros({dirs, 2 * gates * hidden}, TensorOptions(w.scalar_type()));
  auto expect = [&](const Tensor& t, const char* name, std::vector<int64_t> shape) {
    if (t.sizes().vec() != shape)
      fail(n, std::string(name) + " is " + str(t.sizes()) + ", " + str(IntArrayRef(shape)) +
                  " wanted");
  };
  expect(w, "W", {dirs, gates * hidden, x_shape[2]});
  expect(r, "R", {dirs, gates * hidden, hidden});
  expect(b, "B", {dirs, 2 * gates * hidden});
  auto reorder = [&](const Tensor& t) {
    if (gates == 1) return t.contiguous();
    const auto g = t.chunk(gates, 0);
    return (gates == 4 ? nabla::cat({g[0], g[2], g[3], g[1]}, 0)
                       : nabla::cat({g[1], g[0], g[2]}, 0))
        .contiguous();
  };
  std::vector<Value> in = {input(n, 0)};
  for (int i : op == "lstm" ? std::vector<int>{5, 6} : std::vector<int>{5}) {
    if (has_input(n, i)) {
      in.push_back(input(n, i));
    } else {
      in.push_back(g_.constant(zeros({dirs, x_shape[1], hidden}, TensorOptions(w.scalar_type()))));
    }
  }
  for (int64_t d = 0; d < dirs; ++d) {
    const std::string at = n.name() + (d ? ".reverse" : "");
    in.push_back(g_.parameter(at + ".weight_ih", reorder(w[d])));
    in.push_back(g_.parameter(at + ".weight_hh", reorder(r[d])));
    in.push_back(g_.parameter(at + ".bias_ih", reorder(b[d].slice(0, 0, gates * hidden))));
    in.push_back(
        g_.parameter(at + ".bias_hh", reorder(b[d].slice(0, gates * hidden, 2 * gates * hidden))));
  }
  Value out = g_.call(op, std::move(in),
                      {{"has_biases", true},
                       {"num_layers", int64_t{1}},
                       {"dropout", 0.0},
                       {"train", false},
                       {"bidirectional", bidirectional},
                       {"batch_first", false}});
  // [seq, batch, dirs * hidden] -> [seq, dirs, batch, hidden]
  Value y = call(n, "reshape", {out.output(0)},
                 {{"shape", std::vector<int64_t>{x_shape[0], x_shape[1], dirs, hidden}}}, false);
  values_[n.output(0)] = call(n, "transpose", {y}, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
  const int states = op == "lstm" ? 3 : 2;
  for (int i = 1; i < std::min(n.output_size(), states); ++i)
    if (!n.output(i).empty()) values_[n.output(i)] = out.output(i);
  if (n.output_size() > states && !n.output(states).empty()) fail(n, "its Y_c output (LSTM only)");
  for (const auto& o : n.output()) dynamic_.insert(o);
}

}  // namespace nabla::graph::onnx_import

#endif
