// Note [Fused recurrent layers]
// Run step by step, an LSTM or GRU layer is T products h W_hh^T, T cell nodes and, in
// backward, T weight-gradient products [G, B] x [B, H] added one by one into W_hh's
// gradient: at the sizes people train (B ~ 100, H ~ 128) those small products and the
// autograd bookkeeping around them cost about as much as the work itself. When every step
// holds the whole batch (padded input, or packed sequences of one length), the CPU runs a
// layer in one direction as one node (LstmLayerBackward0, GruLayerBackward0), as LibTorch
// 2.x's oneDNN layer does. For an LSTM (G = 4H, bias = b_ih + b_hh):
//
//   forward:  Z = x W_ih^T + bias (one product over all T*B rows), then per step
//             Z_t += h_{t-1} W_hh^T (in place) and the fused cell writes h_t, c_t and the
//             activated gates;
//   backward: per step, last first, the fused cell backward writes dZ_t from dh_t (the
//             output's gradient plus dZ_{t+1} W_hh) and dc_t; then one product each for
//             dx = dZ W_ih, dW_ih = dZ^T x, dW_hh = dZ^T [h_{t-1}] (K = T*B instead of T
//             products with K = B) and db = the column sums of dZ.
//
// A GRU (G = 3H) keeps its two projections apart, as its new gate needs r (h W_hn^T +
// b_hn): per step gh = h_{t-1} W_hh^T + b_hh goes to the cell with the step's rows of
// x W_ih^T + b_ih, and the backward's dgi and dgh give the input's and the recurrent
// weights' gradients, each by one product over all steps.
//
// The node's outputs are the T steps' h (separate tensors: the caller stacks them, so
// LibTorch's StackBackward0 stays the output's node) and, for an LSTM, the last c. Under
// create_graph the backward recomputes the layer from its inputs with the composed step
// (the products and the fused cell node, each differentiable) and differentiates that (a
// reentrant backward), so higher derivatives come from autograd. Anything else — a device
// whose backend has no fused cell, other dtypes, tracing, projections, shrinking packed
// batches — goes step by step (rnn.cpp).
#include <optional>
#include <utility>
#include <vector>

#include "nabla/autograd/autograd.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/rnn_cells.h"
#include "ops/op_utils.h"

namespace nabla::ops {

namespace {

// The rows of step t: [t * batch, (t + 1) * batch).
Tensor rows_of(const Tensor& all, int64_t t, int64_t batch) {
  return all.narrow(0, t * batch, batch);
}

// The step that runs after step t (reverse: the one before), and the first to run.
int64_t next_step(int64_t t, bool reverse) { return reverse ? t - 1 : t + 1; }
int64_t first_step(int64_t steps, bool reverse) { return reverse ? steps - 1 : 0; }

// The node's inputs, by position.
enum Input : size_t { kX, kWIh, kBIh, kWHh, kBHh, kH0, kC0, kInputs };

/// LstmLayerBackward0 / GruLayerBackward0: the inputs, the cells' saved activations
/// [T*B, 4H] (LSTM: the activated gates; GRU: r, z, n, gh_n), an LSTM's cells [T*B, H]
/// and the steps' outputs.
struct RnnLayerState {
  SavedVariable in[kInputs], act, cells;
  std::vector<SavedVariable> outputs;
  bool lstm = false, reverse = false;
  auto saved() {
    return std::tie(in[0], in[1], in[2], in[3], in[4], in[5], in[6], act, cells, outputs);
  }
};

// The layer composed from differentiable ops (products and the fused cell nodes): its T
// outputs and, for an LSTM, the last c, as the fused node returns them.
std::pair<std::vector<Tensor>, Tensor> composed_layer(bool lstm, const Tensor (&in)[kInputs],
                                                      int64_t steps, bool reverse) {
  const int64_t batch = in[kH0].size(0);
  const Tensor gi =
      in[kBIh].defined() ? addmm(in[kBIh], in[kX], in[kWIh].t()) : in[kX].mm(in[kWIh].t());
  const Tensor w_hh_t = in[kWHh].t();
  std::vector<Tensor> ys(static_cast<size_t>(steps));
  Tensor h = in[kH0], c = in[kC0];
  for (int64_t s = 0, t = first_step(steps, reverse); s < steps; ++s, t = next_step(t, reverse)) {
    const Tensor gi_t = rows_of(gi, t, batch);
    if (lstm) {
      std::tie(h, c) = lstm_pointwise(addmm(gi_t, h, w_hh_t), c);
    } else {
      const Tensor gh = in[kBHh].defined() ? addmm(in[kBHh], h, w_hh_t) : h.mm(w_hh_t);
      h = gru_pointwise(gi_t, gh, h);
    }
    ys[static_cast<size_t>(t)] = h;
  }
  return {ys, c};
}

// Under create_graph: recompute with composed_layer and differentiate it (reentrant), so
// the gradients are functions of the inputs that autograd can differentiate again.
variable_list differentiable_backward(OpNode<RnnLayerState>& n, const variable_list& grads) {
  RnnLayerState& s = n.state;
  Tensor in[kInputs];
  for (size_t i = 0; i < kInputs; ++i) in[i] = n.get(s.in[i]);
  const auto steps = static_cast<int64_t>(s.outputs.size());
  auto [ys, c] = composed_layer(s.lstm, in, steps, s.reverse);
  variable_list roots = ys, root_grads(grads.begin(), grads.begin() + steps);
  if (s.lstm) {
    roots.push_back(c);
    root_grads.push_back(grads[static_cast<size_t>(steps)]);
  }
  variable_list wanted;
  std::vector<size_t> where;
  for (size_t i = 0; i < kInputs; ++i)
    if (n.needs_input_grad(i) && autograd::requires_grad(in[i])) {
      wanted.push_back(in[i]);
      where.push_back(i);
    }
  variable_list result(kInputs);
  if (wanted.empty()) return result;
  variable_list g = autograd::grad(roots, wanted, root_grads, /*retain_graph=*/true,
                                   /*create_graph=*/true, /*allow_unused=*/true);
  for (size_t k = 0; k < where.size(); ++k) result[where[k]] = g[k];
  return result;
}

// Each step's previous h, in the steps' row order: h0 for the first step to run.
Tensor previous_h(OpNode<RnnLayerState>& n, const Tensor& h0) {
  const auto steps = static_cast<int64_t>(n.state.outputs.size());
  const int64_t batch = h0.size(0);
  const bool reverse = n.state.reverse;
  Tensor h_prev = empty({steps * batch, h0.size(1)}, h0.options());
  for (int64_t t = 0; t < steps; ++t)
    rows_of(h_prev, t, batch)
        .copy_(t == first_step(steps, reverse)
                   ? h0
                   : n.get(n.state.outputs[static_cast<size_t>(next_step(t, !reverse))]));
  return h_prev;
}

// The gradients of x, w_ih and b_ih from dgi [T*B, G], the input projection's gradient.
void input_gradients(OpNode<RnnLayerState>& n, const Tensor& dgi, variable_list& out) {
  if (n.needs_input_grad(kX)) out[kX] = dgi.mm(n.get(n.state.in[kWIh]));
  if (n.needs_input_grad(kWIh)) out[kWIh] = dgi.t().mm(n.get(n.state.in[kX]));
  if (n.needs_input_grad(kBIh)) out[kBIh] = dgi.sum(0);
}

variable_list lstm_layer_backward(OpNode<RnnLayerState>& n, const variable_list& grads) {
  RnnLayerState& s = n.state;
  const Tensor w_hh = n.get(s.in[kWHh]), h0 = n.get(s.in[kH0]), c0 = n.get(s.in[kC0]);
  const Tensor act = n.get(s.act), cells = n.get(s.cells);
  const auto steps = static_cast<int64_t>(s.outputs.size());
  const int64_t batch = h0.size(0);
  const bool reverse = s.reverse;
  KernelBackend& be = backend_for(act);
  const Tensor dz = empty(act.sizes(), act.options());
  // dh and the two dc buffers are the node's own: the incoming gradients are not written.
  Tensor dh = empty(h0.sizes(), h0.options()), dc = empty(h0.sizes(), h0.options());
  Tensor dc_prev = empty(h0.sizes(), h0.options());
  dc.copy_(grads[static_cast<size_t>(steps)]);
  // The steps in backward order: the last to run first.
  for (int64_t k = 0, t = first_step(steps, !reverse); k < steps; ++k, t = next_step(t, !reverse)) {
    // dh_t = the output's gradient + (the step after t's dZ) W_hh.
    dh.copy_(grads[static_cast<size_t>(t)]);
    if (k > 0) be.gemm(dh, rows_of(dz, next_step(t, reverse), batch), w_hh, 1, 1);
    const Tensor c_prev = k == steps - 1 ? c0 : rows_of(cells, next_step(t, !reverse), batch);
    be.lstm_cell_backward(rows_of(dz, t, batch), dc_prev, dh, dc, rows_of(act, t, batch), c_prev,
                          rows_of(cells, t, batch));
    std::swap(dc, dc_prev);
  }
  variable_list out(kInputs);
  input_gradients(n, dz, out);
  if (n.needs_input_grad(kWHh)) out[kWHh] = dz.t().mm(previous_h(n, h0));
  if (n.needs_input_grad(kH0)) out[kH0] = rows_of(dz, first_step(steps, reverse), batch).mm(w_hh);
  if (n.needs_input_grad(kC0)) out[kC0] = dc;
  return out;
}

variable_list gru_layer_backward(OpNode<RnnLayerState>& n, const variable_list& grads) {
  RnnLayerState& s = n.state;
  const Tensor w_hh = n.get(s.in[kWHh]), h0 = n.get(s.in[kH0]), act = n.get(s.act);
  const auto steps = static_cast<int64_t>(s.outputs.size());
  const int64_t batch = h0.size(0), hidden = h0.size(1);
  const bool reverse = s.reverse;
  const Tensor h_prev = previous_h(n, h0);
  KernelBackend& be = backend_for(act);
  const Tensor dgi = empty({steps * batch, 3 * hidden}, act.options());
  const Tensor dgh = empty(dgi.sizes(), act.options());
  // dh: h_t's gradient from the steps after it; the output's gradient is added per step.
  Tensor dh = empty(h0.sizes(), h0.options()), dh_prev = empty(h0.sizes(), h0.options());
  for (int64_t k = 0, t = first_step(steps, !reverse); k < steps; ++k, t = next_step(t, !reverse)) {
    if (k == 0)
      dh.copy_(grads[static_cast<size_t>(t)]);
    else
      dh.add_(grads[static_cast<size_t>(t)]);
    const Tensor dgh_t = rows_of(dgh, t, batch);
    be.gru_cell_backward(rows_of(dgi, t, batch), dgh_t, dh_prev, dh, rows_of(act, t, batch),
                         rows_of(h_prev, t, batch));
    be.gemm(dh_prev, dgh_t, w_hh, 1, 1);  // the path through the step's product
    std::swap(dh, dh_prev);
  }
  variable_list out(kInputs);
  input_gradients(n, dgi, out);
  if (n.needs_input_grad(kWHh)) out[kWHh] = dgh.t().mm(h_prev);
  if (n.needs_input_grad(kBHh)) out[kBHh] = dgh.sum(0);
  if (n.needs_input_grad(kH0)) out[kH0] = dh;
  return out;
}

variable_list layer_backward(OpNode<RnnLayerState>& n, const variable_list& grads) {
  if (GradMode::is_enabled()) return differentiable_backward(n, grads);
  return n.state.lstm ? lstm_layer_backward(n, grads) : gru_layer_backward(n, grads);
}
constexpr NodeType<RnnLayerState> kLstmLayer{"LstmLayerBackward0", layer_backward};
constexpr NodeType<RnnLayerState> kGruLayer{"GruLayerBackward0", layer_backward};

// x W_ih^T + b into a new [rows, G] tensor (one product; the bias copied in first).
Tensor projection(KernelBackend& be, const Tensor& x, const Tensor& w, const Tensor& b,
                  int64_t rows) {
  const Tensor out = empty({rows, w.size(0)}, x.options());
  if (b.defined()) out.copy_(b.expand(out.sizes()));
  be.gemm(out, x, w.t(), b.defined() ? 1 : 0, 1);
  return out;
}

}  // namespace

std::optional<RnnLayerResult> rnn_layer(bool lstm, const Tensor& x_in, const Tensor& w_ih,
                                        const Tensor& b_ih, const Tensor& w_hh, const Tensor& b_hh,
                                        const Tensor& h0_in, const Tensor& c0_in, int64_t steps,
                                        bool reverse) {
  const ScalarType dtype = x_in.scalar_type();
  if (active_tracer() || steps <= 0 || (dtype != kFloat && dtype != kDouble)) return std::nullopt;
  for (const Tensor* t : {&w_ih, &b_ih, &w_hh, &b_hh, &h0_in, &c0_in})
    if (t->defined() && (t->scalar_type() != dtype || t->device() != x_in.device()))
      return std::nullopt;
  const Tensor x = x_in.contiguous(), h0 = h0_in.contiguous();
  const Tensor c0 = lstm ? c0_in.contiguous() : Tensor();
  const int64_t batch = h0.size(0), hidden = h0.size(1);
  if (batch == 0) return std::nullopt;
  const bool wants_grad = autograd::any_requires_grad(x, w_ih, b_ih, w_hh, b_hh, h0, c0);
  KernelBackend& be = backend_for(x);
  const TensorOptions o = x.options();
  const Tensor cells = lstm ? empty({steps * batch, hidden}, o) : Tensor();
  const Tensor act = wants_grad ? empty({steps * batch, 4 * hidden}, o) : Tensor();
  std::vector<Tensor> ys(static_cast<size_t>(steps));
  {
    NoGradGuard no_grad;  // the products below are the node's own work
    const Tensor gi = projection(be, x, w_ih, b_ih, steps * batch);
    const Tensor w_hh_t = w_hh.t();
    const Tensor gh = lstm ? Tensor() : empty({batch, 3 * hidden}, o);
    Tensor h = h0, c = c0;
    for (int64_t s = 0, t = first_step(steps, reverse); s < steps; ++s, t = next_step(t, reverse)) {
      const Tensor y = empty({batch, hidden}, o), gi_t = rows_of(gi, t, batch);
      const Tensor act_t = act.defined() ? rows_of(act, t, batch) : Tensor();
      bool fused;
      if (lstm) {
        be.gemm(gi_t, h, w_hh_t, 1, 1);  // gi_t becomes the step's gates
        const Tensor c_prev = c;
        c = rows_of(cells, t, batch);
        fused = be.lstm_cell(y, c, act_t, gi_t, c_prev);
      } else {
        if (b_hh.defined()) gh.copy_(b_hh.expand(gh.sizes()));
        be.gemm(gh, h, w_hh_t, b_hh.defined() ? 1 : 0, 1);
        fused = be.gru_cell(y, act_t, gi_t, gh, h);
      }
      if (!fused) return std::nullopt;  // no fused cell on this device: nothing recorded yet
      ys[static_cast<size_t>(t)] = y;
      h = y;
    }
  }
  Tensor c_last = lstm ? rows_of(cells, first_step(steps, !reverse), batch).clone() : Tensor();
  if (auto node = autograd::record_node(lstm ? kLstmLayer : kGruLayer,
                                        {&x, &w_ih, &b_ih, &w_hh, &b_hh, &h0, &c0})) {
    RnnLayerState& st = node->state;
    const Tensor* in[kInputs] = {&x, &w_ih, &b_ih, &w_hh, &b_hh, &h0, &c0};
    for (size_t i = 0; i < kInputs; ++i) st.in[i] = autograd::save(*in[i]);
    st.act = autograd::save(act);
    st.cells = autograd::save(cells);
    st.lstm = lstm;
    st.reverse = reverse;
    for (Tensor& y : ys) autograd::set_history(y, node);
    if (lstm) autograd::set_history(c_last, node);
    for (const Tensor& y : ys) st.outputs.push_back(autograd::save_output(y));
  }
  return RnnLayerResult{std::move(ys), std::move(c_last)};
}

}  // namespace nabla::ops
