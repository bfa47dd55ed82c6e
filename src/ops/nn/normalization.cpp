// batch_norm, layer_norm, group_norm, instance_norm. Each forward is one statistics
// kernel (KernelBackend::moments) and one or two affine passes (KernelBackend::channel_affine), run
// without recording; one node per op records the backward: a fused kernel
// (batch_norm_backward, group_norm_backward), or under create_graph formulas written with
// differentiable ops, so that second derivatives work.
#include "nabla/ops/normalization.h"
#include "nabla/ops/detail/op_impls.h"

#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

// ---- Shared pieces ---------------------------------------------------------------------

void check_input(const Tensor& input, const char* op) {
  ops::check_defined(input, op);
  NABLA_CHECK(input.is_floating_point(), op, ": expected a floating point input, got ",
              input.scalar_type());
}

// A per-channel parameter: undefined, or `numel` elements of a floating dtype.
void check_param(const Tensor& p, int64_t numel, const char* op, const char* what) {
  if (!p.defined()) return;
  NABLA_CHECK(p.numel() == numel && p.dim() == 1, op, ": ", what, " should have ", numel,
              " elements (one per channel) in a 1-d tensor, got sizes ", p.sizes());
}

// d(input) for y = xhat(x) with gh = dL/dxhat and statistics over `dims`:
// rstd * (gh - mean(gh) - xhat * mean(gh * xhat)).
Tensor normalized_input_grad(const Tensor& gh, const Tensor& xhat, const Tensor& rstd,
                             IntArrayRef dims) {
  return rstd * (gh - gh.mean(dims, true) - xhat * (gh * xhat).mean(dims, true));
}

// Under create_graph the statistics must be functions of x (the saved ones are
// constants); recomputed here with differentiable ops: (mean, rstd) over `dims`.
std::pair<Tensor, Tensor> differentiable_stats(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor m = x.mean(dims, true);
  return {m, ((x - m).square().mean(dims, true) + eps).rsqrt()};
}

Tensor contiguous_param(const Tensor& p, ScalarType t) { return p.to(t).contiguous(); }

/// What every normalization's backward reads: the input, the weight (or undefined), the
/// statistics of the forward ([C] for batch norm, one per normalized group otherwise)
/// and eps. Edges: (input, weight, bias).
struct NormSaved {
  SavedVariable input, weight, mean, rstd;
  double eps = 0;
};
template <class State>
auto norm_saved(State& s) {
  return std::tie(s.norm.input, s.norm.weight, s.norm.mean, s.norm.rstd);
}

// The backward of layer/group norm without create_graph: one fused kernel
// (KernelBackend::group_norm_backward) over x and g viewed as [N, C, S] with G groups.
template <class State>
variable_list fused_norm_backward(OpNode<State>& n, const Tensor& grad, int64_t N, int64_t C,
                                  int64_t G, int64_t S) {
  const NormSaved& s = n.state.norm;
  const Tensor x = n.get(s.input).contiguous(), w = n.get(s.weight);
  const Tensor g = grad.to(x.scalar_type()).contiguous();
  const Tensor wc = w.defined() ? contiguous_param(w, x.scalar_type()) : Tensor();
  Tensor gx = n.needs_input_grad(0) ? empty_like(x) : Tensor();
  Tensor gw = n.needs_input_grad(1) ? empty({C}, x.options()) : Tensor();
  Tensor gb = n.needs_input_grad(2) ? empty({C}, x.options()) : Tensor();
  backend_for(x.device())
      .group_norm_backward(gx, gw, gb, g, x, n.get(s.mean).contiguous(), n.get(s.rstd).contiguous(),
                           wc, N, C, G, S);
  return {gx, gw, gb};
}

// Records the node of a normalization with edges to (x, weight, bias).
template <class State>
std::shared_ptr<OpNode<State>> record(const NodeType<State>& type, const Tensor& out,
                                      const Tensor& x, const Tensor& w, const Tensor& b,
                                      const Tensor& mean, const Tensor& rstd, double eps) {
  auto node = autograd::record_node(type, {&x, &w, &b});
  if (!node) return node;
  node->state.norm = {autograd::save(x), autograd::save(w), autograd::save(mean),
                      autograd::save(rstd), eps};
  autograd::set_history(out, node);
  return node;
}

// ---- batch_norm ---------------------------------------------------------------------------

/// NativeBatchNormBackward0: statistics per channel ([C]: the batch's when training, the
/// running ones otherwise).
struct BatchNormState {
  NormSaved norm;
  bool training = false;
  auto saved() { return norm_saved(*this); }
};

variable_list batch_norm_backward(OpNode<BatchNormState>& n, const variable_list& g) {
  const NormSaved& s = n.state.norm;
  const bool training = n.state.training;
  Tensor x = n.get(s.input), w = n.get(s.weight);
  const int64_t N = x.size(0), C = x.size(1);
  if (!GradMode::is_enabled()) {  // one fused kernel (KernelBackend::batch_norm_backward)
    const Tensor xc = x.contiguous(), gc = g[0].to(x.scalar_type()).contiguous();
    Tensor gx = n.needs_input_grad(0) ? empty_like(xc) : Tensor();
    Tensor gw = n.needs_input_grad(1) ? empty({C}, x.options()) : Tensor();
    Tensor gb = n.needs_input_grad(2) ? empty({C}, x.options()) : Tensor();
    backend_for(x.device())
        .batch_norm_backward(gx, gw, gb, gc, xc, n.get(s.mean).contiguous(),
                             n.get(s.rstd).contiguous(),
                             w.defined() ? contiguous_param(w, x.scalar_type()) : Tensor(), N, C,
                             x.numel() / (N * C), training);
    return {gx, gw, gb};
  }
  Tensor x3 = x.reshape({N, C, -1}), g3 = g[0].reshape({N, C, -1});
  const std::vector<int64_t> dims = {0, 2};
  Tensor m = n.get(s.mean).view({1, C, 1}), r = n.get(s.rstd).view({1, C, 1});
  if (training) std::tie(m, r) = differentiable_stats(x3, dims, s.eps);
  Tensor xhat = (x3 - m) * r;
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    Tensor gh = w.defined() ? g3 * w.view({1, C, 1}) : g3;
    gx = (training ? normalized_input_grad(gh, xhat, r, dims) : gh * r).view(x.sizes());
  }
  if (n.needs_input_grad(1)) gw = (g3 * xhat).sum(dims);
  if (n.needs_input_grad(2)) gb = g3.sum(dims);
  return {gx, gw, gb};
}
constexpr NodeType<BatchNormState> kBatchNorm{"NativeBatchNormBackward0", batch_norm_backward};

// ---- layer_norm -------------------------------------------------------------------------

/// NativeLayerNormBackward0: M rows of K normalized elements (statistics [M]).
struct LayerNormState {
  NormSaved norm;
  int64_t rows = 0, row_size = 0;
  DimVector normalized_shape;
  auto saved() { return norm_saved(*this); }
};

variable_list layer_norm_backward(OpNode<LayerNormState>& n, const variable_list& g) {
  const LayerNormState& s = n.state;
  const IntArrayRef shape(s.normalized_shape.data(), s.normalized_shape.size());
  const int64_t M = s.rows, K = s.row_size;
  if (!GradMode::is_enabled()) {
    variable_list r = fused_norm_backward(n, g[0], M, K, 1, 1);
    if (r[1].defined()) r[1] = r[1].view(shape);
    if (r[2].defined()) r[2] = r[2].view(shape);
    return r;
  }
  Tensor x = n.get(s.norm.input), w = n.get(s.norm.weight);
  Tensor x2 = x.reshape({M, K}), g2 = g[0].reshape({M, K});
  const std::vector<int64_t> dims = {1};
  auto [m, r] = differentiable_stats(x2, dims, s.norm.eps);
  Tensor xhat = (x2 - m) * r;
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    Tensor gh = w.defined() ? g2 * w.reshape({1, K}) : g2;
    gx = normalized_input_grad(gh, xhat, r, dims).view(x.sizes());
  }
  if (n.needs_input_grad(1)) gw = (g2 * xhat).sum({0}).view(shape);
  if (n.needs_input_grad(2)) gb = g2.sum({0}).view(shape);
  return {gx, gw, gb};
}
constexpr NodeType<LayerNormState> kLayerNorm{"NativeLayerNormBackward0", layer_norm_backward};

// ---- group_norm -------------------------------------------------------------------------

/// NativeGroupNormBackward0: N samples of C channels in G groups (statistics [N G]).
struct GroupNormState {
  NormSaved norm;
  int64_t batch = 0, channels = 0, groups = 0;
  auto saved() { return norm_saved(*this); }
};

variable_list group_norm_backward(OpNode<GroupNormState>& n, const variable_list& g) {
  const GroupNormState& s = n.state;
  const int64_t N = s.batch, C = s.channels, G = s.groups;
  Tensor x = n.get(s.norm.input), w = n.get(s.norm.weight);
  if (x.numel() == 0)  // nothing to normalize; weight and bias get zero gradients
    return {n.needs_input_grad(0) ? zeros_like(x) : Tensor(),
            n.needs_input_grad(1) ? zeros({C}, x.options()) : Tensor(),
            n.needs_input_grad(2) ? zeros({C}, x.options()) : Tensor()};
  if (!GradMode::is_enabled()) return fused_norm_backward(n, g[0], N, C, G, x.numel() / (N * C));
  Tensor x3 = x.reshape({N, G, -1});
  const std::vector<int64_t> dims = {2};
  auto [m, r] = differentiable_stats(x3, dims, s.norm.eps);
  Tensor xhat = (x3 - m) * r;
  Tensor gc = g[0].reshape({N, C, -1});  // per channel
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    Tensor gh = (w.defined() ? gc * w.view({1, C, 1}) : gc).reshape({N, G, -1});
    gx = normalized_input_grad(gh, xhat, r, dims).view(x.sizes());
  }
  if (n.needs_input_grad(1)) gw = (gc * xhat.reshape({N, C, -1})).sum({0, 2});
  if (n.needs_input_grad(2)) gb = gc.sum({0, 2});
  return {gx, gw, gb};
}
constexpr NodeType<GroupNormState> kGroupNorm{"NativeGroupNormBackward0", group_norm_backward};

}  // namespace

Tensor ops::batch_norm_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Tensor& running_mean, const Tensor& running_var, bool training,
                            double momentum, double eps, bool cudnn_enabled) {
  const char* op = "batch_norm";
  check_input(input, op);
  NABLA_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims [N, C, *], got sizes ",
              input.sizes());
  const int64_t N = input.size(0), C = input.size(1);
  check_param(weight, C, op, "weight");
  check_param(bias, C, op, "bias");
  check_param(running_mean, C, op, "running_mean");
  check_param(running_var, C, op, "running_var");
  NABLA_CHECK(training || (running_mean.defined() && running_var.defined()), op,
              ": running_mean and running_var must be defined in evaluation mode (training=false)");
  const ScalarType t = input.scalar_type();
  if (input.numel() == 0) {
    // LibTorch's empty-input path: a copy (affine by the first weight and bias, which
    // keeps the graph connected); running stats untouched.
    Tensor out = input.clone();
    if (weight.defined() && C > 0) out = out * weight[0];
    if (bias.defined() && C > 0) out = out + bias[0];
    return out;
  }
  const int64_t S = input.numel() / (N * C);
  Tensor x = input.contiguous();
  Tensor mean, invstd, out;
  {
    NoGradGuard no_grad;
    if (training) {
      mean = ops::empty_tensor({C}, t, x.device());
      Tensor var = ops::empty_tensor({C}, t, x.device());
      backend_for(x).moments(mean, var, x, N, C, S);
      invstd = (var + eps).rsqrt();
      const double count = static_cast<double>(N * S);
      if (running_mean.defined()) running_mean.mul_(1 - momentum).add_(mean, momentum);
      if (running_var.defined())
        running_var.mul_(1 - momentum).add_(var * (count / (count - 1)), momentum);
    } else {
      mean = running_mean.to(t).clone().contiguous();  // later buffer updates must not reach it
      invstd = (running_var.to(t) + eps).rsqrt();
    }
    Tensor scale = weight.defined() ? invstd * weight.to(t) : invstd;
    Tensor shift = bias.defined() ? contiguous_param(bias, t) : zeros({C}, x.options().dtype(t));
    out = ops::empty_tensor(x.sizes(), t, x.device());
    backend_for(x).channel_affine(out, x, mean, scale.contiguous(), shift, N, C, S);
  }
  if (auto node = record(kBatchNorm, out, input, weight, bias, mean, invstd, eps))
    node->state.training = training;
  return out;
}

Tensor ops::layer_norm_impl(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                            const Tensor& bias, double eps, bool cudnn_enable) {
  const char* op = "layer_norm";
  check_input(input, op);
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  NABLA_CHECK(nd >= 1, op,
              ": expected normalized_shape to be at least 1-dimensional, i.e., "
              "containing at least one element, but got normalized_shape = ",
              normalized_shape);
  bool match = input.dim() >= nd;
  for (int64_t i = 0; match && i < nd; ++i)
    match = input.size(input.dim() - nd + i) == normalized_shape[i];
  NABLA_CHECK(match, op, ": given normalized_shape=", normalized_shape,
              ", expected input with shape [*", normalized_shape, "], but got input of size ",
              input.sizes());
  for (const auto& [p, what] :
       {std::pair<const Tensor*, const char*>{&weight, "weight"}, {&bias, "bias"}})
    NABLA_CHECK(!p->defined() || p->sizes() == normalized_shape, op, ": expected ", what,
                " to be of same shape as normalized_shape, but got ", what, " of shape ",
                p->sizes(), " and normalized_shape = ", normalized_shape);
  const ScalarType t = input.scalar_type();
  int64_t K = 1;
  for (int64_t s : normalized_shape) K *= s;
  const int64_t M = K == 0 ? 0 : input.numel() / K;
  Tensor x = input.contiguous();
  Tensor mean = ops::empty_tensor({M}, t, x.device()), rstd, out;
  {
    NoGradGuard no_grad;
    Tensor var = ops::empty_tensor({M}, t, x.device());
    out = ops::empty_tensor(x.sizes(), t, x.device());
    if (input.numel() > 0) {
      backend_for(x).moments(mean, var, x, 1, M, K);
      rstd = (var + eps).rsqrt();
      backend_for(x).channel_affine(out, x, mean, rstd, zeros_like(mean), 1, M, K);
      if (weight.defined() || bias.defined()) {
        Tensor w = weight.defined() ? contiguous_param(weight, t) : ones({K}, x.options().dtype(t));
        Tensor b = bias.defined() ? contiguous_param(bias, t) : zeros_like(w);
        backend_for(x).channel_affine(out, out, zeros_like(w).reshape({K}), w.reshape({K}),
                                      b.reshape({K}), M, K, 1);
      }
    } else {
      rstd = var;
    }
  }
  if (auto node = record(kLayerNorm, out, input, weight, bias, mean, rstd, eps)) {
    node->state.rows = M;
    node->state.row_size = K;
    node->state.normalized_shape = DimVector(normalized_shape.begin(), normalized_shape.end());
  }
  return out;
}

Tensor ops::group_norm_impl(const Tensor& input, int64_t num_groups, const Tensor& weight,
                            const Tensor& bias, double eps, bool cudnn_enabled) {
  const char* op = "group_norm";
  check_input(input, op);
  NABLA_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims [N, C, *], got sizes ",
              input.sizes());
  const int64_t N = input.size(0), C = input.size(1), G = num_groups;
  NABLA_CHECK(G > 0 && C % G == 0, op,
              ": expected number of channels in input to be divisible by "
              "num_groups, but got input of shape ",
              input.sizes(), " and num_groups=", G);
  check_param(weight, C, op, "weight");
  check_param(bias, C, op, "bias");
  const ScalarType t = input.scalar_type();
  const int64_t S = N * C == 0 ? 0 : input.numel() / (N * C);
  const int64_t K = (C / G) * S;
  Tensor x = input.contiguous();
  Tensor mean = ops::empty_tensor({N * G}, t, x.device()), rstd, out;
  {
    NoGradGuard no_grad;
    Tensor var = ops::empty_tensor({N * G}, t, x.device());
    out = ops::empty_tensor(x.sizes(), t, x.device());
    if (input.numel() > 0) {
      backend_for(x).moments(mean, var, x, 1, N * G, K);
      rstd = (var + eps).rsqrt();
      backend_for(x).channel_affine(out, x, mean, rstd, zeros_like(mean), 1, N * G, K);
      if (weight.defined() || bias.defined()) {
        Tensor w = weight.defined() ? contiguous_param(weight, t) : ones({C}, x.options().dtype(t));
        Tensor b = bias.defined() ? contiguous_param(bias, t) : zeros({C}, x.options().dtype(t));
        backend_for(x).channel_affine(out, out, zeros_like(w), w, b, N, C, S);
      }
    } else {
      rstd = var;
    }
  }
  if (auto node = record(kGroupNorm, out, input, weight, bias, mean, rstd, eps)) {
    node->state.batch = N;
    node->state.channels = C;
    node->state.groups = G;
  }
  return out;
}

Tensor ops::instance_norm_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                               const Tensor& running_mean, const Tensor& running_var,
                               bool use_input_stats, double momentum, double eps,
                               bool cudnn_enabled) {
  const char* op = "instance_norm";
  check_input(input, op);
  NABLA_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims [N, C, *], got sizes ",
              input.sizes());
  NABLA_CHECK(
      use_input_stats || (running_mean.defined() && running_var.defined()), op,
      ": expected running_mean and running_var to be defined when use_input_stats is false");
  const int64_t N = input.size(0), C = input.size(1);
  check_param(weight, C, op, "weight");
  check_param(bias, C, op, "bias");
  check_param(running_mean, C, op, "running_mean");
  check_param(running_var, C, op, "running_var");
  // Every (sample, channel) becomes a channel of a batch of one.
  std::vector<int64_t> shape = input.sizes().vec();
  shape[0] = 1;
  shape[1] = N * C;
  auto rep = [N](const Tensor& p) { return p.defined() ? p.repeat({N}) : Tensor(); };
  Tensor rm = rep(running_mean), rv = rep(running_var);
  Tensor out = batch_norm(input.reshape(shape), rep(weight), rep(bias), rm, rv, use_input_stats,
                          momentum, eps, cudnn_enabled);
  if (use_input_stats && N > 0) {
    NoGradGuard no_grad;
    if (running_mean.defined()) running_mean.copy_(rm.view({N, C}).mean({0}));
    if (running_var.defined()) running_var.copy_(rv.view({N, C}).mean({0}));
  }
  return out.view(input.sizes());
}

}  // namespace nabla
