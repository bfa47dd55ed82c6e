// Recurrent networks, composed from differentiable ops (matmul, sigmoid, tanh, ...), so
// autograd gives their gradients and second derivatives. The input projection of every
// time step is one product per layer and direction, with both biases added there; each
// step is then one addmm (the step's input projection plus h W_hh^T) and, for LSTM and
// GRU, one fused pointwise node (Note [Fused recurrent cells], rnn_cells.cpp). Where every
// step holds the whole batch, an LSTM or GRU layer in one direction is one node instead (Note
// [Fused recurrent layers], rnn_layer.cpp).
#include "nabla/ops/rnn.h"

#include <algorithm>

#include "nabla/ops/dropout.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/nn/rnn_cells.h"

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

// The bias of the input projection: b_hh is folded into it, so that a step's recurrent
// product adds it too, except for GRU, whose new gate needs r (h W_hn^T + b_hn).
Tensor input_bias(Mode m, const Tensor& b_ih, const Tensor& b_hh) {
  if (m == Mode::Gru || !b_hh.defined()) return b_ih;
  return b_ih.defined() ? b_ih + b_hh : b_hh;
}

// One step from gi [B, G] (the input projection with input_bias) and h [B, *]; w_hh_t and
// w_hr_t are the transposed weights. Returns the new h (and c for LSTM through `c`); an
// LSTM with projections (w_hr_t defined) returns h projected to w_hr's rows.
Tensor step(Mode m, const Tensor& gi, const Tensor& h, Tensor* c, const Tensor& w_hh_t,
            const Tensor& b_hh, const Tensor& w_hr_t = {}) {
  if (m == Mode::Gru)
    return ops::gru_pointwise(gi, b_hh.defined() ? addmm(b_hh, h, w_hh_t) : h.mm(w_hh_t), h);
  Tensor gates = addmm(gi, h, w_hh_t);
  switch (m) {
    case Mode::Tanh:
      return gates.tanh();
    case Mode::Relu:
      return gates.relu();
    default: {
      auto [out, cell] = ops::lstm_pointwise(gates, *c);
      *c = cell;
      return w_hr_t.defined() ? out.mm(w_hr_t) : out;
    }
  }
}

Tensor cell(Mode m, const char* op, const Tensor& input, const Tensor& hx, Tensor* c,
            const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  check_cell(op, m, input, hx, w_ih, w_hh);
  const bool unbatched = input.dim() == 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  Tensor h = unbatched ? hx.unsqueeze(0) : hx;
  Tensor cc;
  if (c) cc = unbatched ? c->unsqueeze(0) : *c;
  Tensor out =
      step(m, affine(x, w_ih, input_bias(m, b_ih, b_hh)), h, c ? &cc : nullptr, w_hh.t(), b_hh);
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

// The parameters of one layer and direction within the flat list.
struct LayerParams {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// What every sequence op checks and derives from its flat parameters: per layer and
// direction w_ih, w_hh, then (has_biases) b_ih, b_hh, then (an LSTM with projections) w_hr.
struct Layout {
  int64_t dirs, per, hidden, out;  // out: the size of h (proj_size, or hidden)
  bool proj;
  LayerParams at(TensorList params, int64_t layer, int64_t dir, bool has_biases) const {
    const size_t base = static_cast<size_t>((layer * dirs + dir) * per);
    LayerParams p{params[base], params[base + 1], {}, {}, {}};
    if (has_biases) {
      p.b_ih = params[base + 2];
      p.b_hh = params[base + 3];
    }
    if (proj) p.w_hr = params[base + static_cast<size_t>(per) - 1];
    return p;
  }
};

Layout layout(Mode m, const char* op, TensorList params, bool has_biases, int64_t num_layers,
              double dropout, bool bidirectional) {
  NABLA_CHECK(num_layers >= 1, op, ": num_layers must be positive, got ", num_layers);
  NABLA_CHECK(dropout >= 0 && dropout <= 1, op, ": dropout must be in [0, 1], got ", dropout);
  Layout l{};
  l.dirs = bidirectional ? 2 : 1;
  const int64_t plain = has_biases ? 4 : 2;
  const auto count = static_cast<int64_t>(params.size());
  l.proj = m == Mode::Lstm && count == num_layers * l.dirs * (plain + 1);
  l.per = plain + (l.proj ? 1 : 0);
  NABLA_CHECK(count == num_layers * l.dirs * l.per, op, ": expected ", num_layers * l.dirs * plain,
              " parameter tensors (", num_layers, " layers x ", l.dirs, " directions x ", plain,
              (m == Mode::Lstm ? ", one more each with projections" : ""), "), got ", count);
  NABLA_CHECK(params[0].defined() && params[0].dim() == 2 &&
                  params[0].size(0) % gate_count(m) == 0 && params[0].size(0) > 0,
              op, ": w_ih of layer 0 must be 2-d with a multiple of ", gate_count(m), " rows, got ",
              params[0].defined() ? params[0].sizes().vec() : std::vector<int64_t>{});
  l.hidden = params[0].size(0) / gate_count(m);
  l.out = l.proj ? params[static_cast<size_t>(l.per) - 1].size(0) : l.hidden;
  return l;
}

// One layer in one direction over packed rows: x [rows, in] holds step t's sizes[t]
// sequences back to back (sizes decreasing; the padded case has them all equal). h0 and
// c0 are [sizes[0], *]. A sequence's final state is taken at its own last step: going
// forward, the rows of the sequences that ended are set aside as the batch shrinks; going
// backward, the batch grows and the new rows start from h0.
struct Sweep {
  std::vector<Tensor> outputs;  // one [sizes[t], out] per step
  Tensor h, c;
};
Sweep sweep(Mode m, const Tensor& x, const std::vector<int64_t>& sizes, bool reverse,
            const Tensor& h0, const Tensor& c0, const LayerParams& p) {
  const auto steps = static_cast<int64_t>(sizes.size());
  // Every step holding the whole batch: an LSTM layer without projections or a GRU layer
  // is one node where the device has fused cells (Note [Fused recurrent layers],
  // rnn_layer.cpp).
  if ((m == Mode::Gru || (m == Mode::Lstm && !p.w_hr.defined())) &&
      std::all_of(sizes.begin(), sizes.end(), [&](int64_t b) { return b == h0.size(0); })) {
    if (auto fused =
            ops::rnn_layer(m == Mode::Lstm, x, p.w_ih, input_bias(m, p.b_ih, p.b_hh), p.w_hh,
                           m == Mode::Gru ? p.b_hh : Tensor(), h0, c0, steps, reverse)) {
      Sweep r;
      r.outputs = std::move(fused->outputs);
      r.h = reverse ? r.outputs.front() : r.outputs.back();
      r.c = std::move(fused->c);
      return r;
    }
  }
  // All steps' input projections at once, cut into steps by one node (a narrow per step
  // would give each step's gradient the size of the whole sequence).
  const std::vector<Tensor> gi =
      steps > 0 ? affine(x, p.w_ih, input_bias(m, p.b_ih, p.b_hh)).split_with_sizes(sizes, 0)
                : std::vector<Tensor>{};
  // Transposed once, so that the steps' weight gradients meet in one node.
  const Tensor w_hh_t = p.w_hh.t(), w_hr_t = p.w_hr.defined() ? p.w_hr.t() : Tensor();
  const Tensor b_hh = m == Mode::Gru ? p.b_hh : Tensor();
  Sweep r;
  r.outputs.resize(sizes.size());
  auto run_step = [&](int64_t t, Tensor& h, Tensor& c) {
    const auto i = static_cast<size_t>(t);
    h = step(m, gi[i], h, &c, w_hh_t, b_hh, w_hr_t);
    r.outputs[i] = h;
  };
  const bool lstm = m == Mode::Lstm;
  if (!reverse) {
    Tensor h = h0, c = c0;
    int64_t rows = h0.size(0);
    std::vector<Tensor> ended_h, ended_c;  // highest rows first
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t b = sizes[static_cast<size_t>(t)];
      if (b < rows) {
        ended_h.push_back(h.narrow(0, b, rows - b));
        h = h.narrow(0, 0, b);
        if (lstm) {
          ended_c.push_back(c.narrow(0, b, rows - b));
          c = c.narrow(0, 0, b);
        }
        rows = b;
      }
      run_step(t, h, c);
    }
    if (ended_h.empty()) {
      r.h = h;
      r.c = c;
    } else {
      ended_h.push_back(h);
      std::reverse(ended_h.begin(), ended_h.end());
      r.h = cat(ended_h, 0);
      if (lstm) {
        ended_c.push_back(c);
        std::reverse(ended_c.begin(), ended_c.end());
        r.c = cat(ended_c, 0);
      }
    }
  } else {
    int64_t rows = steps > 0 ? sizes.back() : h0.size(0);
    Tensor h = rows == h0.size(0) ? h0 : h0.narrow(0, 0, rows);
    Tensor c = !lstm || rows == c0.size(0) ? c0 : c0.narrow(0, 0, rows);
    for (int64_t t = steps - 1; t >= 0; --t) {
      const int64_t b = sizes[static_cast<size_t>(t)];
      if (b > rows) {
        h = cat({h, h0.narrow(0, rows, b - rows)}, 0);
        if (lstm) c = cat({c, c0.narrow(0, rows, b - rows)}, 0);
        rows = b;
      }
      run_step(t, h, c);
    }
    r.h = h;
    r.c = c;
  }
  return r;
}

// Every layer and direction. Padded (every step holds the whole batch): x is [T, N, in]
// and the output [T, N, dirs * out], each direction's steps stacked (LibTorch's nodes:
// StackBackward0, CatBackward0 across directions). Packed: x is [rows, in], step t's
// sizes[t] rows back to back, and so is the output [rows, dirs * out]. h0 is
// [layers * dirs, sizes[0], out], c0 likewise with hidden. Returns (output, h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> run_rows(Mode m, const char* op, const Tensor& x,
                                            const std::vector<int64_t>& sizes, bool padded,
                                            const Tensor& h0, const Tensor& c0, TensorList params,
                                            const Layout& lay, bool has_biases, int64_t num_layers,
                                            double dropout, bool train) {
  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = x;
  const int64_t steps = static_cast<int64_t>(sizes.size());
  const int64_t batch = h0.size(1);
  const int feature_dim = padded ? 2 : 1;
  for (int64_t l = 0; l < num_layers; ++l) {
    std::vector<Tensor> dir_outputs;
    const int64_t in = layer_input.size(feature_dim);
    const Tensor rows = padded ? layer_input.reshape({steps * batch, in}) : layer_input;
    for (int64_t d = 0; d < lay.dirs; ++d) {
      const LayerParams p = lay.at(params, l, d, has_biases);
      const int64_t gates = gate_count(m) * lay.hidden;
      NABLA_CHECK(p.w_ih.dim() == 2 && p.w_ih.size(0) == gates && p.w_ih.size(1) == in &&
                      p.w_hh.dim() == 2 && p.w_hh.size(0) == gates && p.w_hh.size(1) == lay.out &&
                      (!lay.proj || (p.w_hr.dim() == 2 && p.w_hr.size(0) == lay.out &&
                                     p.w_hr.size(1) == lay.hidden)),
                  op, ": layer ", l, " direction ", d, " weights ", p.w_ih.sizes(), " and ",
                  p.w_hh.sizes(), " do not fit input size ", in, " and hidden size ", lay.hidden,
                  lay.proj ? " with projections" : "");
      Sweep s = sweep(m, rows, sizes, d == 1, h0[l * lay.dirs + d],
                      m == Mode::Lstm ? c0[l * lay.dirs + d] : Tensor(), p);
      const TensorOptions o(x.scalar_type());
      if (steps == 0)
        dir_outputs.push_back(padded ? zeros({0, batch, lay.out}, o) : zeros({0, lay.out}, o));
      else
        dir_outputs.push_back(padded ? stack(s.outputs, 0) : cat(s.outputs, 0));
      h_n.push_back(s.h);
      if (m == Mode::Lstm) c_n.push_back(s.c);
    }
    layer_input = lay.dirs == 1 ? dir_outputs[0] : cat(dir_outputs, feature_dim);
    if (train && dropout > 0 && l + 1 < num_layers) layer_input = drop(layer_input, dropout);
  }
  return {layer_input, stack(h_n, 0), m == Mode::Lstm ? stack(c_n, 0) : Tensor()};
}

// h0 or c0 as given (its shape checked), or zeros when undefined.
Tensor state_or_zeros(const char* op, const char* what, const Tensor& s, std::vector<int64_t> want,
                      bool unbatched, ScalarType dtype) {
  if (!s.defined()) {
    if (unbatched) want.insert(want.begin() + 1, 1);
    return zeros(want, TensorOptions(dtype));
  }
  NABLA_CHECK(s.sizes().vec() == want, op, ": ", what, " has shape ", s.sizes(), ", expected ",
              want);
  return unbatched ? s.unsqueeze(1) : s;
}

std::tuple<Tensor, Tensor, Tensor> run(Mode m, const Tensor& input, const Tensor& h0_in,
                                       const Tensor& c0_in, TensorList params, bool has_biases,
                                       int64_t num_layers, double dropout, bool train,
                                       bool bidirectional, bool batch_first) {
  const char* op = mode_name(m);
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), op,
              ": input must be 2-d (unbatched) or 3-d, got ", input.defined() ? input.dim() : 0,
              " dims");
  const Layout lay = layout(m, op, params, has_biases, num_layers, dropout, bidirectional);
  const bool unbatched = input.dim() == 2;
  Tensor x =
      unbatched ? input.unsqueeze(1) : (batch_first ? input.transpose(0, 1) : input);  // [T, N, in]
  const int64_t steps = x.size(0), batch = x.size(1);
  auto want = [&](int64_t size) {
    return unbatched ? std::vector<int64_t>{num_layers * lay.dirs, size}
                     : std::vector<int64_t>{num_layers * lay.dirs, batch, size};
  };
  Tensor h0 = state_or_zeros(op, "h0", h0_in, want(lay.out), unbatched, input.scalar_type());
  Tensor c0;
  if (m == Mode::Lstm)
    c0 = state_or_zeros(op, "c0", c0_in, want(lay.hidden), unbatched, input.scalar_type());
  auto [output, hn, cn] = run_rows(m, op, x, std::vector<int64_t>(steps, batch), /*padded=*/true,
                                   h0, c0, params, lay, has_biases, num_layers, dropout, train);
  if (unbatched) output = output.squeeze(1);
  // LibTorch transposes lstm's output out of place and the others' in place (their nodes:
  // TransposeBackward0, TransposeBackward1).
  if (!unbatched && batch_first) {
    if (m == Mode::Lstm)
      output = output.transpose(0, 1);
    else
      output.transpose_(0, 1);
  }
  if (unbatched) {
    hn = hn.squeeze(1);
    if (cn.defined()) cn = cn.squeeze(1);
  }
  return {output, hn, cn};
}

// The packed form: data [rows, in] and batch_sizes (int64 on the CPU, decreasing).
std::tuple<Tensor, Tensor, Tensor> run_packed(Mode m, const Tensor& data, const Tensor& batch_sizes,
                                              const Tensor& h0_in, const Tensor& c0_in,
                                              TensorList params, bool has_biases,
                                              int64_t num_layers, double dropout, bool train,
                                              bool bidirectional) {
  const char* op = mode_name(m);
  NABLA_CHECK(data.defined() && data.dim() == 2, op, ": packed data must be 2-d, got ",
              data.defined() ? data.dim() : 0, " dims");
  NABLA_CHECK(batch_sizes.defined() && batch_sizes.dim() == 1 &&
                  batch_sizes.scalar_type() == kLong && batch_sizes.device().is_cpu(),
              op, ": batch_sizes must be a 1-d int64 tensor on the CPU");
  const Tensor bs = batch_sizes.contiguous();
  const int64_t* b = bs.data_ptr<int64_t>();
  std::vector<int64_t> sizes(b, b + bs.numel());
  int64_t total = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    NABLA_CHECK(sizes[t] > 0 && (t == 0 || sizes[t] <= sizes[t - 1]), op,
                ": batch_sizes must be positive and not increasing, got ", batch_sizes.sizes(),
                " with ", sizes[t], " at step ", t);
    total += sizes[t];
  }
  NABLA_CHECK(total == data.size(0), op, ": batch_sizes add up to ", total, " but data has ",
              data.size(0), " rows");
  const Layout lay = layout(m, op, params, has_biases, num_layers, dropout, bidirectional);
  const int64_t batch = sizes.empty() ? 0 : sizes[0];
  auto want = [&](int64_t size) {
    return std::vector<int64_t>{num_layers * lay.dirs, batch, size};
  };
  Tensor h0 = state_or_zeros(op, "h0", h0_in, want(lay.out), false, data.scalar_type());
  Tensor c0;
  if (m == Mode::Lstm)
    c0 = state_or_zeros(op, "c0", c0_in, want(lay.hidden), false, data.scalar_type());
  return run_rows(m, op, data, sizes, /*padded=*/false, h0, c0, params, lay, has_biases, num_layers,
                  dropout, train);
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

// The packed forms run untraced: a trace records the ops they are made of, for the
// batch sizes it saw.
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes,
                                        TensorList hx, TensorList params, bool has_biases,
                                        int64_t num_layers, double dropout, bool train,
                                        bool bidirectional) {
  NABLA_CHECK(hx.size() == 2 || hx.empty(), "lstm: hx must be {h0, c0} (or empty for zeros), got ",
              hx.size(), " tensors");
  return run_packed(Mode::Lstm, data, batch_sizes, hx.empty() ? Tensor() : hx[0],
                    hx.empty() ? Tensor() : hx[1], params, has_biases, num_layers, dropout, train,
                    bidirectional);
}

#define NABLA_SINGLE_STATE_PACKED_RNN(name, mode)                                                  \
  std::tuple<Tensor, Tensor> name(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx, \
                                  TensorList params, bool has_biases, int64_t num_layers,          \
                                  double dropout, bool train, bool bidirectional) {                \
    auto [out, h, c] = run_packed(mode, data, batch_sizes, hx, {}, params, has_biases, num_layers, \
                                  dropout, train, bidirectional);                                  \
    (void)c;                                                                                       \
    return {out, h};                                                                               \
  }
NABLA_SINGLE_STATE_PACKED_RNN(gru, Mode::Gru)
NABLA_SINGLE_STATE_PACKED_RNN(rnn_tanh, Mode::Tanh)
NABLA_SINGLE_STATE_PACKED_RNN(rnn_relu, Mode::Relu)
#undef NABLA_SINGLE_STATE_PACKED_RNN

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
