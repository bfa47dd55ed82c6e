// Recurrent networks, composed from differentiable ops (matmul, sigmoid, tanh, ...), so
// autograd gives their gradients and second derivatives. The input projection of every
// time step is one matmul per layer and direction; only the recurrence is sequential.
#include "nabla/ops/rnn.h"
#include "nabla/ops/trace.h"

#include "nabla/ops/dropout.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/nn/nn_registry.h"

namespace nabla {

namespace {

enum class Mode { Tanh, Relu, Lstm, Gru };

int64_t gate_count(Mode m) { return m == Mode::Lstm ? 4 : m == Mode::Gru ? 3 : 1; }
const char* mode_name(Mode m) {
  return m == Mode::Lstm   ? "lstm"
         : m == Mode::Gru  ? "gru"
         : m == Mode::Tanh ? "rnn_tanh"
                           : "rnn_relu";
}

Tensor affine(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? addmm(b, x, w.t()) : x.matmul(w.t());
}

void check_cell(const char* op, Mode m, const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                const Tensor& w_hh) {
  NABLA_CHECK(input.defined() && hx.defined() && w_ih.defined() && w_hh.defined(), op,
              ": undefined argument");
  NABLA_CHECK(input.dim() == 1 || input.dim() == 2, op, ": input must be 1-d or 2-d, got ",
              input.dim(), " dims");
  const int64_t hidden = w_hh.size(1);
  NABLA_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2 && w_ih.size(0) == gate_count(m) * hidden &&
                  w_hh.size(0) == gate_count(m) * hidden,
              op, ": weights of shapes ", w_ih.sizes(), " and ", w_hh.sizes(), " do not fit ",
              gate_count(m), " gates of hidden size ", hidden);
  NABLA_CHECK(input.size(-1) == w_ih.size(1), op, ": input has ", input.size(-1),
              " features, w_ih expects ", w_ih.size(1));
  NABLA_CHECK(hx.size(-1) == hidden && hx.dim() == input.dim() &&
                  (input.dim() == 1 || hx.size(0) == input.size(0)),
              op, ": hidden state of shape ", hx.sizes(), " does not fit input ", input.sizes(),
              " and hidden size ", hidden);
}

// One step; x and h are 2-d. Returns the new h (and c for LSTM through `c`).
Tensor step(Mode m, const Tensor& gi, const Tensor& h, Tensor* c, const Tensor& w_hh,
            const Tensor& b_hh) {
  Tensor gh = affine(h, w_hh, b_hh);
  switch (m) {
    case Mode::Tanh:
      return (gi + gh).tanh();
    case Mode::Relu:
      return (gi + gh).relu();
    case Mode::Lstm: {
      auto g = (gi + gh).chunk(4, 1);
      Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), cell = g[2].tanh(), o = g[3].sigmoid();
      *c = f * *c + i * cell;
      return o * c->tanh();
    }
    case Mode::Gru: {
      auto a = gi.chunk(3, 1), b = gh.chunk(3, 1);
      Tensor r = (a[0] + b[0]).sigmoid(), z = (a[1] + b[1]).sigmoid();
      Tensor n = (a[2] + r * b[2]).tanh();
      return (1 - z) * n + z * h;
    }
  }
  return {};
}

Tensor cell(Mode m, const char* op, const Tensor& input, const Tensor& hx, Tensor* c,
            const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  check_cell(op, m, input, hx, w_ih, w_hh);
  const bool unbatched = input.dim() == 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  Tensor h = unbatched ? hx.unsqueeze(0) : hx;
  Tensor cc;
  if (c) cc = unbatched ? c->unsqueeze(0) : *c;
  Tensor out = step(m, affine(x, w_ih, b_ih), h, c ? &cc : nullptr, w_hh, b_hh);
  if (c) *c = unbatched ? cc.squeeze(0) : cc;
  return unbatched ? out.squeeze(0) : out;
}

// The inputs of a traced sequence op: the input and its state (undefined when not given:
// zeros), then the flat parameters, all by position.
std::vector<Tensor> sequence_inputs(std::initializer_list<Tensor> head, TensorList params) {
  std::vector<Tensor> inputs(head);
  inputs.insert(inputs.end(), params.begin(), params.end());
  return inputs;
}

// Dropout between layers: at::dropout, as LibTorch's RNNs (the same mask for a seed).
Tensor drop(const Tensor& x, double p) { return dropout(x, p, true); }

std::tuple<Tensor, Tensor, Tensor> run(Mode m, const Tensor& input, const Tensor& h0_in,
                                       const Tensor& c0_in, TensorList params, bool has_biases,
                                       int64_t num_layers, double dropout, bool train,
                                       bool bidirectional, bool batch_first) {
  const char* op = mode_name(m);
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), op,
              ": input must be 2-d (unbatched) or 3-d, got ", input.defined() ? input.dim() : 0,
              " dims");
  NABLA_CHECK(num_layers >= 1, op, ": num_layers must be positive, got ", num_layers);
  NABLA_CHECK(dropout >= 0 && dropout <= 1, op, ": dropout must be in [0, 1], got ", dropout);
  const int64_t dirs = bidirectional ? 2 : 1;
  const int64_t per = has_biases ? 4 : 2;
  NABLA_CHECK(static_cast<int64_t>(params.size()) == num_layers * dirs * per, op, ": expected ",
              num_layers * dirs * per, " parameter tensors (", num_layers, " layers x ", dirs,
              " directions x ", per, "), got ", params.size());
  const bool unbatched = input.dim() == 2;
  Tensor x =
      unbatched ? input.unsqueeze(1) : (batch_first ? input.transpose(0, 1) : input);  // [T, N, in]
  const int64_t steps = x.size(0), batch = x.size(1);
  const int64_t hidden = params[1].size(1);
  auto prepare_state = [&](const Tensor& s, const char* what) {
    const std::vector<int64_t> want = unbatched
                                          ? std::vector<int64_t>{num_layers * dirs, hidden}
                                          : std::vector<int64_t>{num_layers * dirs, batch, hidden};
    if (!s.defined())
      return zeros({num_layers * dirs, batch, hidden}, TensorOptions(input.scalar_type()));
    NABLA_CHECK(s.sizes().vec() == want, op, ": ", what, " has shape ", s.sizes(), ", expected ",
                want);
    return unbatched ? s.unsqueeze(1) : s;
  };
  Tensor h0 = prepare_state(h0_in, "h0"), c0;
  if (m == Mode::Lstm) c0 = prepare_state(c0_in, "c0");
  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = x;
  for (int64_t l = 0; l < num_layers; ++l) {
    std::vector<Tensor> dir_outputs;
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t base = static_cast<size_t>((l * dirs + d) * per);
      const Tensor& w_ih = params[base];
      const Tensor& w_hh = params[base + 1];
      Tensor b_ih = has_biases ? params[base + 2] : Tensor();
      Tensor b_hh = has_biases ? params[base + 3] : Tensor();
      NABLA_CHECK(w_ih.dim() == 2 && w_ih.size(0) == gate_count(m) * hidden &&
                      w_ih.size(1) == layer_input.size(2) && w_hh.dim() == 2 &&
                      w_hh.size(0) == gate_count(m) * hidden && w_hh.size(1) == hidden,
                  op, ": layer ", l, " direction ", d, " weights ", w_ih.sizes(), " and ",
                  w_hh.sizes(), " do not fit input size ", layer_input.size(2), " and hidden size ",
                  hidden);
      // Input projections of all steps at once: [T * N, G * H].
      Tensor gi_all = affine(layer_input.reshape({steps * batch, layer_input.size(2)}), w_ih, b_ih)
                          .view({steps, batch, gate_count(m) * hidden});
      Tensor h = h0[l * dirs + d];
      Tensor c = m == Mode::Lstm ? c0[l * dirs + d] : Tensor();
      std::vector<Tensor> outs(static_cast<size_t>(steps));
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = d == 0 ? s : steps - 1 - s;
        h = step(m, gi_all[t], h, &c, w_hh, b_hh);
        outs[static_cast<size_t>(t)] = h;
      }
      dir_outputs.push_back(steps > 0
                                ? stack(outs, 0)
                                : zeros({0, batch, hidden}, TensorOptions(input.scalar_type())));
      h_n.push_back(h);
      if (m == Mode::Lstm) c_n.push_back(c);
    }
    layer_input = dirs == 1 ? dir_outputs[0] : cat(dir_outputs, 2);
    if (train && dropout > 0 && l + 1 < num_layers) layer_input = drop(layer_input, dropout);
  }
  Tensor output = unbatched ? layer_input.squeeze(1) : layer_input;
  // LibTorch transposes lstm's output out of place and the others' in place (their nodes:
  // TransposeBackward0, TransposeBackward1).
  if (!unbatched && batch_first) {
    if (m == Mode::Lstm)
      output = output.transpose(0, 1);
    else
      output.transpose_(0, 1);
  }
  Tensor hn = stack(h_n, 0), cn = m == Mode::Lstm ? stack(c_n, 0) : Tensor();
  if (unbatched) {
    hn = hn.squeeze(1);
    if (cn.defined()) cn = cn.squeeze(1);
  }
  return {output, hn, cn};
}

}  // namespace

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  NABLA_TRACED("rnn_tanh_cell", ops::call_inputs({input, hx, w_ih, w_hh, b_ih, b_hh}));
  return cell(Mode::Tanh, "rnn_tanh_cell", input, hx, nullptr, w_ih, w_hh, b_ih, b_hh);
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  NABLA_TRACED("rnn_relu_cell", ops::call_inputs({input, hx, w_ih, w_hh, b_ih, b_hh}));
  return cell(Mode::Relu, "rnn_relu_cell", input, hx, nullptr, w_ih, w_hh, b_ih, b_hh);
}

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  NABLA_CHECK(hx.size() == 2, "lstm_cell: hx must be {h, c}, got ", hx.size(), " tensors");
  NABLA_CHECK(hx[1].defined() && hx[1].sizes() == hx[0].sizes(),
              "lstm_cell: c must have h's shape");
  NABLA_TRACED("lstm_cell", ops::call_inputs({input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh}));
  Tensor c = hx[1];
  Tensor h = cell(Mode::Lstm, "lstm_cell", input, hx[0], &c, w_ih, w_hh, b_ih, b_hh);
  return {h, c};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih, const Tensor& b_hh) {
  NABLA_TRACED("gru_cell", ops::call_inputs({input, hx, w_ih, w_hh, b_ih, b_hh}));
  return cell(Mode::Gru, "gru_cell", input, hx, nullptr, w_ih, w_hh, b_ih, b_hh);
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx, TensorList params,
                                        bool has_biases, int64_t num_layers, double dropout,
                                        bool train, bool bidirectional, bool batch_first) {
  NABLA_CHECK(hx.size() == 2 || hx.empty(), "lstm: hx must be {h0, c0} (or empty for zeros), got ",
              hx.size(), " tensors");
  NABLA_TRACED("lstm",
               sequence_inputs(
                   {input, hx.empty() ? Tensor() : hx[0], hx.empty() ? Tensor() : hx[1]}, params),
               {"has_biases", has_biases}, {"num_layers", num_layers}, {"dropout", dropout},
               {"train", train}, {"bidirectional", bidirectional}, {"batch_first", batch_first});
  return run(Mode::Lstm, input, hx.empty() ? Tensor() : hx[0], hx.empty() ? Tensor() : hx[1],
             params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
}

#define NABLA_SINGLE_STATE_RNN(name, mode)                                                         \
  std::tuple<Tensor, Tensor> name(const Tensor& input, const Tensor& hx, TensorList params,        \
                                  bool has_biases, int64_t num_layers, double dropout, bool train, \
                                  bool bidirectional, bool batch_first) {                          \
    NABLA_TRACED(#name, sequence_inputs({input, hx}, params), {"has_biases", has_biases},          \
                 {"num_layers", num_layers}, {"dropout", dropout}, {"train", train},               \
                 {"bidirectional", bidirectional}, {"batch_first", batch_first});                  \
    auto [out, h, c] = run(mode, input, hx, {}, params, has_biases, num_layers, dropout, train,    \
                           bidirectional, batch_first);                                            \
    (void)c;                                                                                       \
    return {out, h};                                                                               \
  }
NABLA_SINGLE_STATE_RNN(gru, Mode::Gru)
NABLA_SINGLE_STATE_RNN(rnn_tanh, Mode::Tanh)
NABLA_SINGLE_STATE_RNN(rnn_relu, Mode::Relu)
#undef NABLA_SINGLE_STATE_RNN

// ---- Registry -------------------------------------------------------------------------------

void ops::registry::add_nn_rnn_ops(std::vector<OpSchema>& t) {
  const std::vector<AttrSpec> attrs = {
      attr("has_biases", AttrType::Bool, true),     attr("num_layers", AttrType::Int, int64_t(1)),
      attr("dropout", AttrType::Double, 0.0),       attr("train", AttrType::Bool, false),
      attr("bidirectional", AttrType::Bool, false), attr("batch_first", AttrType::Bool, false)};
  // lstm: input, h0, c0, then the flat parameters.
  t.push_back(op("lstm", 5, -1, attrs, [](const Inputs& x, const AttrReader& a) -> Inputs {
    auto [y, h, c] =
        lstm(x[0], {x[1], x[2]}, TensorList(x).slice(3), a.b("has_biases"), a.i("num_layers"),
             a.d("dropout"), a.b("train"), a.b("bidirectional"), a.b("batch_first"));
    return {y, h, c};
  }));
  // gru, rnn_tanh, rnn_relu: input, hx, then the flat parameters.
#define NABLA_RNN(name)                                                                          \
  t.push_back(op(#name, 4, -1, attrs, [](const Inputs& x, const AttrReader& a) -> Inputs {       \
    auto [y, h] = name(x[0], x[1], TensorList(x).slice(2), a.b("has_biases"), a.i("num_layers"), \
                       a.d("dropout"), a.b("train"), a.b("bidirectional"), a.b("batch_first"));  \
    return {y, h};                                                                               \
  }));
  NABLA_RNN(gru)
  NABLA_RNN(rnn_tanh)
  NABLA_RNN(rnn_relu)
#undef NABLA_RNN
  // Cells: input, hx (lstm_cell: h, c), w_ih, w_hh, optional b_ih, b_hh.
  t.push_back(op("lstm_cell", 5, 7, {}, [](const Inputs& x, const AttrReader&) -> Inputs {
    auto [h, c] =
        lstm_cell(x[0], {x[1], x[2]}, x[3], x[4], optional_input(x, 5), optional_input(x, 6));
    return {h, c};
  }));
#define NABLA_CELL(name)                                                               \
  t.push_back(op(#name, 4, 6, {}, [](const Inputs& x, const AttrReader&) -> Inputs {   \
    return {name(x[0], x[1], x[2], x[3], optional_input(x, 4), optional_input(x, 5))}; \
  }));
  NABLA_CELL(gru_cell)
  NABLA_CELL(rnn_tanh_cell)
  NABLA_CELL(rnn_relu_cell)
#undef NABLA_CELL
}

}  // namespace nabla
