// Note [Fused recurrent cells]
// An LSTM or GRU step is one product (rnn.cpp: addmm of the step's input projection with
// h W_hh^T) and a pointwise part of a dozen elementwise ops. The pointwise part is one
// node here: the backend's lstm_cell / gru_cell computes it in one pass and keeps the
// activated gates, and the node's backward (ThnnFusedLstmCellBackward0 /
// ThnnFusedGruCellBackward0, the names of LibTorch's fused CUDA cells) is one pass of
// lstm_cell_backward / gru_cell_backward over them. Under create_graph the backward is
// written with differentiable ops from the saved pre-activations instead (as LibTorch's
// _thnn_differentiable_*_cell_backward), so higher derivatives come from autograd; the node
// therefore saves its inputs as well as the activated gates.
//
// Everything else composes the step from differentiable ops: a device whose backend
// answers false (CUDA today), dtypes other than float and double, and tracing (a static
// graph records ops, and the fused node is none: its trace is the composed step's ops).
#include "ops/nn/rnn_cells.h"

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/op_utils.h"

namespace nabla::ops {

namespace {

bool may_fuse(const Tensor& t) {
  return !active_tracer() && (t.scalar_type() == kFloat || t.scalar_type() == kDouble);
}

// ---- LSTM -----------------------------------------------------------------------------

std::tuple<Tensor, Tensor> composed_lstm(const Tensor& gates, const Tensor& c_prev) {
  auto g = gates.chunk(4, 1);
  Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), cell = g[2].tanh(), o = g[3].sigmoid();
  Tensor c = f * c_prev + i * cell;
  return {o * c.tanh(), c};
}

// For grad_h gh and grad_c gc: dc = gc + gh o (1 - tanh(c)^2), grad_gates [B, 4H] =
// (dc g i (1 - i), dc c_prev f (1 - f), dc i (1 - g^2), gh tanh(c) o (1 - o)),
// grad_c_prev [B, H] = dc f; recomputed from the pre-activations (differentiable).
std::tuple<Tensor, Tensor> composed_lstm_backward(const Tensor& gates, const Tensor& c_prev,
                                                  const Tensor& gh, const Tensor& gc) {
  auto g = gates.chunk(4, 1);
  Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), cell = g[2].tanh(), o = g[3].sigmoid();
  Tensor tc = (f * c_prev + i * cell).tanh();
  Tensor dc = gc + gh * o * (1 - tc * tc);
  Tensor grad_gates = cat({dc * cell * i * (1 - i), dc * c_prev * f * (1 - f),
                           dc * i * (1 - cell * cell), gh * tc * o * (1 - o)},
                          1);
  return {grad_gates, dc * f};
}

/// ThnnFusedLstmCellBackward0: the inputs (for create_graph), the activated gates and c.
struct LstmCellState {
  SavedVariable gates, c_prev, act, c;
  auto saved() { return std::tie(gates, c_prev, act, c); }
};

variable_list lstm_cell_backward(OpNode<LstmCellState>& n, const variable_list& grads) {
  const LstmCellState& s = n.state;
  const Tensor gates = n.get(s.gates), c_prev = n.get(s.c_prev);
  Tensor grad_gates, grad_c_prev;
  bool fused = false;
  if (!GradMode::is_enabled()) {
    grad_gates = empty(gates.sizes(), gates.options());
    if (n.needs_input_grad(1)) grad_c_prev = empty(c_prev.sizes(), c_prev.options());
    fused = backend_for(gates).lstm_cell_backward(grad_gates, grad_c_prev, grads[0].contiguous(),
                                                  grads[1].contiguous(), n.get(s.act), c_prev,
                                                  n.get(s.c));
  }
  if (!fused)
    std::tie(grad_gates, grad_c_prev) = composed_lstm_backward(gates, c_prev, grads[0], grads[1]);
  return {n.needs_input_grad(0) ? grad_gates : Tensor(),
          n.needs_input_grad(1) ? grad_c_prev : Tensor()};
}
constexpr NodeType<LstmCellState> kLstmCell{"ThnnFusedLstmCellBackward0", lstm_cell_backward};

// ---- GRU ------------------------------------------------------------------------------

Tensor composed_gru(const Tensor& gi, const Tensor& gh, const Tensor& h_prev) {
  auto a = gi.chunk(3, 1), b = gh.chunk(3, 1);
  Tensor r = (a[0] + b[0]).sigmoid(), z = (a[1] + b[1]).sigmoid();
  Tensor n = (a[2] + r * b[2]).tanh();
  return (1 - z) * n + z * h_prev;
}

// For grad_h g: dn = g (1 - z) (1 - n^2), dz = g (h_prev - n) z (1 - z), dr = dn gh_n r
// (1 - r); grad_gi = (dr, dz, dn), grad_gh = (dr, dz, dn r), grad_h_prev = g z.
std::tuple<Tensor, Tensor, Tensor> composed_gru_backward(const Tensor& gi, const Tensor& gh,
                                                         const Tensor& h_prev, const Tensor& g) {
  auto a = gi.chunk(3, 1), b = gh.chunk(3, 1);
  Tensor r = (a[0] + b[0]).sigmoid(), z = (a[1] + b[1]).sigmoid();
  Tensor n = (a[2] + r * b[2]).tanh();
  Tensor dn = g * (1 - z) * (1 - n * n), dz = g * (h_prev - n) * z * (1 - z);
  Tensor dr = dn * b[2] * r * (1 - r);
  return {cat({dr, dz, dn}, 1), cat({dr, dz, dn * r}, 1), g * z};
}

/// ThnnFusedGruCellBackward0: the inputs (h_prev also for the fused backward) and
/// (r, z, n, gh_n).
struct GruCellState {
  SavedVariable gi, gh, h_prev, act;
  auto saved() { return std::tie(gi, gh, h_prev, act); }
};

variable_list gru_cell_backward(OpNode<GruCellState>& n, const variable_list& grads) {
  const GruCellState& s = n.state;
  const Tensor h_prev = n.get(s.h_prev);
  Tensor grad_gi, grad_gh, grad_h_prev;
  bool fused = false;
  if (!GradMode::is_enabled()) {
    const Tensor act = n.get(s.act);
    const int64_t rows = h_prev.size(0), hidden = h_prev.size(1);
    if (n.needs_input_grad(0)) grad_gi = empty({rows, 3 * hidden}, act.options());
    if (n.needs_input_grad(1)) grad_gh = empty({rows, 3 * hidden}, act.options());
    if (n.needs_input_grad(2)) grad_h_prev = empty(h_prev.sizes(), act.options());
    fused = backend_for(act).gru_cell_backward(grad_gi, grad_gh, grad_h_prev, grads[0].contiguous(),
                                               act, h_prev);
  }
  if (!fused)
    std::tie(grad_gi, grad_gh, grad_h_prev) =
        composed_gru_backward(n.get(s.gi), n.get(s.gh), h_prev, grads[0]);
  return {n.needs_input_grad(0) ? grad_gi : Tensor(), n.needs_input_grad(1) ? grad_gh : Tensor(),
          n.needs_input_grad(2) ? grad_h_prev : Tensor()};
}
constexpr NodeType<GruCellState> kGruCell{"ThnnFusedGruCellBackward0", gru_cell_backward};

}  // namespace

std::tuple<Tensor, Tensor> lstm_pointwise(const Tensor& gates, const Tensor& c_prev_in) {
  if (!may_fuse(gates) || c_prev_in.scalar_type() != gates.scalar_type())
    return composed_lstm(gates, c_prev_in);
  const Tensor c_prev = c_prev_in.contiguous();
  const bool wants_grad = autograd::any_requires_grad(gates, c_prev);
  Tensor h = empty(c_prev.sizes(), c_prev.options()), c = empty(c_prev.sizes(), c_prev.options());
  Tensor act = wants_grad ? empty(gates.sizes(), gates.options()) : Tensor();
  if (!backend_for(gates).lstm_cell(h, c, act, gates, c_prev)) return composed_lstm(gates, c_prev);
  if (auto node = autograd::record_node(kLstmCell, {&gates, &c_prev})) {
    node->state.gates = autograd::save(gates);
    node->state.c_prev = autograd::save(c_prev);
    node->state.act = autograd::save(act);
    autograd::set_history(h, node);
    autograd::set_history(c, node);
    node->state.c = autograd::save_output(c);
  }
  return {h, c};
}

Tensor gru_pointwise(const Tensor& gi, const Tensor& gh, const Tensor& h_prev_in) {
  if (!may_fuse(gi) || gh.scalar_type() != gi.scalar_type() ||
      h_prev_in.scalar_type() != gi.scalar_type())
    return composed_gru(gi, gh, h_prev_in);
  const Tensor h_prev = h_prev_in.contiguous();
  const bool wants_grad = autograd::any_requires_grad(gi, gh, h_prev);
  Tensor h = empty(h_prev.sizes(), h_prev.options());
  Tensor act =
      wants_grad ? empty({h_prev.size(0), 4 * h_prev.size(1)}, h_prev.options()) : Tensor();
  if (!backend_for(gi).gru_cell(h, act, gi, gh, h_prev)) return composed_gru(gi, gh, h_prev);
  if (auto node = autograd::record_node(kGruCell, {&gi, &gh, &h_prev})) {
    node->state.gi = autograd::save(gi);
    node->state.gh = autograd::save(gh);
    node->state.h_prev = autograd::save(h_prev);
    node->state.act = autograd::save(act);
    autograd::set_history(h, node);
  }
  return h;
}

}  // namespace nabla::ops
