// scaled_dot_product_attention (include/nabla/ops/attention.h).
//
// Note [Fused attention]
// The op is one node: the backend's attention_forward computes the output and each query's
// log-sum-exp without ever holding the L x S matrix of weights (blocks of scores with an
// online softmax, src/backend/cpu/kernels/attention.cpp), and attention_backward
// recomputes each block's weights from the log-sum-exp. The node saves q, k, v, the mask,
// the output and the log-sum-exp: O(L (E + Ev)) per batch, not O(L S). Dropout draws each
// weight's fate from Philox at its position (AttentionParams), so the backward regenerates
// the forward's mask from a seed instead of storing one.
//
// Everything else composes the attention from differentiable ops: a device whose backend
// answers false (CUDA today), a float mask that requires grad, and the backward under
// create_graph (its formulas are written with matmul and softmax, so second derivatives
// come from autograd). Both forms mask the same way: a bool mask becomes an additive one
// (0 or -inf), the causal mask hides key j from query i when j > i, and a query with every
// key hidden gets weights 0.
#include "nabla/ops/attention.h"

#include <cmath>
#include <limits>
#include <tuple>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/generator.h"
#include "nabla/ops/activation.h"
#include "nabla/ops/dropout.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The operands as the kernels take them: leading dims broadcast to one batch shape, a
// unit stride in each last dim, the mask additive of q's dtype and expanded to
// [batch..., L, S] (undefined without one).
struct AttentionOperands {
  Tensor q, k, v, mask;
  DimVector batch;
};

Tensor unit_last_stride(const Tensor& t) {
  return t.size(-1) > 1 && t.stride(-1) != 1 ? t.contiguous() : t;
}

Tensor with_batch(const Tensor& t, const DimVector& batch) {
  DimVector sizes = batch;
  sizes.push_back(t.size(-2));
  sizes.push_back(t.size(-1));
  return t.sizes() == IntArrayRef(sizes) ? t : t.expand(sizes);
}

AttentionOperands prepare(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
  auto leading = [](const Tensor& t) { return t.sizes().slice(0, t.dim() - 2); };
  DimVector batch = ops::broadcast_shapes(leading(q), leading(k), kOp);
  batch = ops::broadcast_shapes(batch, leading(v), kOp);
  if (mask.defined() && mask.dim() > 2) {
    const IntArrayRef mask_lead = leading(mask);
    const DimVector b = ops::broadcast_shapes(batch, mask_lead, kOp);
    NABLA_CHECK(IntArrayRef(b) == IntArrayRef(batch), kOp, ": attn_mask of sizes ", mask.sizes(),
                " has more batch dims than query, key and value (batch ", IntArrayRef(batch), ")");
  }
  AttentionOperands o;
  o.q = unit_last_stride(with_batch(q, batch));
  o.k = unit_last_stride(with_batch(k, batch));
  o.v = unit_last_stride(with_batch(v, batch));
  if (mask.defined()) {
    DimVector sizes = batch;
    sizes.push_back(q.size(-2));
    sizes.push_back(k.size(-2));
    o.mask = mask.expand(sizes);
  }
  o.batch = std::move(batch);
  return o;
}

// The scores scale * q k^T + mask with the causal mask applied: [batch..., L, S].
Tensor composed_scores(const AttentionOperands& o, const AttentionParams& p) {
  Tensor s = matmul(o.q, o.k.transpose(-2, -1)) * p.scale;
  if (p.causal) {
    const int64_t L = o.q.size(-2), S = o.k.size(-2);
    s = s.masked_fill(ones({L, S}, TensorOptions(kBool).device(s.device())).triu(1), -kInfinity);
  }
  return o.mask.defined() ? s + o.mask : s;
}

// softmax over the keys, with weights 0 for a query whose every key is masked.
Tensor safe_softmax(const Tensor& scores, bool may_mask_rows) {
  if (!may_mask_rows) return softmax(scores, -1);
  const Tensor hidden = scores.eq(-kInfinity).all(-1, true);
  return softmax(scores.masked_fill(hidden, 0), -1).masked_fill(hidden, 0);
}

Tensor composed_forward(const AttentionOperands& o, const AttentionParams& p) {
  Tensor w = safe_softmax(composed_scores(o, p), o.mask.defined());
  if (p.dropout_p > 0) w = dropout(w, p.dropout_p, true);
  return matmul(w, o.v);
}

/// ScaledDotProductAttentionBackward0: the inputs as given (the backward prepares them
/// again), the additive mask, the output and each query's log-sum-exp.
struct AttentionState {
  SavedVariable query, key, value, mask, out, lse;
  AttentionParams params;
  auto saved() { return std::tie(query, key, value, mask, out, lse); }
};

// The gradients with differentiable ops (create_graph), for grad_out g:
//   gv = W^T g, dW = g v^T, dS = W * (dW - sum_j(dW * W)), gq = scale dS k, gk = scale dS^T q.
std::tuple<Tensor, Tensor, Tensor> composed_backward(const AttentionOperands& o,
                                                     const AttentionParams& p, const Tensor& g) {
  NABLA_CHECK(p.dropout_p == 0, kOp,
              ": double backward with dropout_p > 0 is not supported (the fused op draws its "
              "dropout mask inside the kernel); use dropout_p = 0 or compose the attention");
  const Tensor w = safe_softmax(composed_scores(o, p), o.mask.defined());
  const Tensor dw = matmul(g, o.v.transpose(-2, -1));
  const Tensor ds = w * (dw - (dw * w).sum({-1}, true));
  return {matmul(ds, o.k) * p.scale, matmul(ds.transpose(-2, -1), o.q) * p.scale,
          matmul(w.transpose(-2, -1), g)};
}

Tensor reduce_to(const Tensor& grad, const Tensor& input) {
  if (!grad.defined() || grad.sizes() == input.sizes()) return grad;
  return grad.sum_to_size(input.sizes());
}

variable_list attention_backward(OpNode<AttentionState>& n, const variable_list& grads) {
  const AttentionState& s = n.state;
  const Tensor query = n.get(s.query), key = n.get(s.key), value = n.get(s.value);
  const AttentionOperands o = prepare(query, key, value, n.get(s.mask));
  const Tensor g = grads[0].to(o.q.scalar_type());
  Tensor gq, gk, gv;
  bool fused = false;
  if (!GradMode::is_enabled()) {
    const TensorOptions opts = o.q.options();
    if (n.needs_input_grad(0)) gq = empty(o.q.sizes(), opts);
    if (n.needs_input_grad(1)) gk = empty(o.k.sizes(), opts);
    if (n.needs_input_grad(2)) gv = empty(o.v.sizes(), opts);
    fused = backend_for(o.q).attention_backward(gq, gk, gv, unit_last_stride(g), n.get(s.out),
                                                n.get(s.lse), o.q, o.k, o.v, o.mask, s.params);
  }
  if (!fused) std::tie(gq, gk, gv) = composed_backward(o, s.params, g);
  return {n.needs_input_grad(0) ? reduce_to(gq, query) : Tensor(),
          n.needs_input_grad(1) ? reduce_to(gk, key) : Tensor(),
          n.needs_input_grad(2) ? reduce_to(gv, value) : Tensor()};
}
constexpr NodeType<AttentionState> kAttention{"ScaledDotProductAttentionBackward0",
                                              attention_backward};

void check_args(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                double dropout_p, bool is_causal) {
  ops::check_defined(q, "scaled_dot_product_attention: query");
  ops::check_defined(k, "scaled_dot_product_attention: key");
  ops::check_defined(v, "scaled_dot_product_attention: value");
  NABLA_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, kOp,
              ": expected query [..., L, E], key [..., S, E] and value [..., S, Ev] of at least "
              "2 dims, got sizes ",
              q.sizes(), ", ", k.sizes(), " and ", v.sizes());
  NABLA_CHECK(q.is_floating_point() && q.scalar_type() == k.scalar_type() &&
                  q.scalar_type() == v.scalar_type(),
              kOp, ": expected query, key and value of one floating dtype, got ", q.scalar_type(),
              ", ", k.scalar_type(), " and ", v.scalar_type());
  ops::check_same_device(q, k, kOp);
  ops::check_same_device(q, v, kOp);
  NABLA_CHECK(q.size(-1) == k.size(-1), kOp, ": query's last dim (", q.size(-1),
              ") must equal key's (", k.size(-1), "); got sizes ", q.sizes(), " and ", k.sizes());
  NABLA_CHECK(k.size(-2) == v.size(-2), kOp, ": key and value must have as many positions, got ",
              k.sizes(), " and ", v.sizes());
  NABLA_CHECK(dropout_p >= 0 && dropout_p <= 1, kOp,
              ": dropout_p has to be between 0 and 1, but got ", dropout_p);
  if (!mask.defined()) return;
  NABLA_CHECK(!is_causal, kOp,
              ": is_causal = true with an explicit attn_mask is ambiguous; pass one of them");
  NABLA_CHECK(mask.scalar_type() == kBool || mask.scalar_type() == q.scalar_type(), kOp,
              ": expected attn_mask of dtype bool or the query's (", q.scalar_type(), "), got ",
              mask.scalar_type());
  ops::check_same_device(q, mask, kOp);
  NABLA_CHECK(mask.dim() >= 1, kOp, ": attn_mask must broadcast to [..., L, S] = [..., ",
              q.size(-2), ", ", k.size(-2), "], got a 0-d tensor");
  const int64_t L = q.size(-2), S = k.size(-2);
  const int64_t ml = mask.dim() >= 2 ? mask.size(-2) : 1, ms = mask.size(-1);
  NABLA_CHECK((ml == 1 || ml == L) && (ms == 1 || ms == S), kOp, ": attn_mask of sizes ",
              mask.sizes(), " does not broadcast to [..., L, S] = [..., ", L, ", ", S, "]");
}

// A bool mask as 0 / -inf of q's dtype; a float mask as given.
Tensor additive_mask(const Tensor& mask, const Tensor& q) {
  if (!mask.defined() || mask.scalar_type() != kBool) return mask;
  return zeros(mask.sizes(), q.options()).masked_fill(mask.logical_not(), -kInfinity);
}

// The dropout stream: a seed from the CPU generator, or counters reserved on a Philox one.
void draw_dropout_stream(AttentionParams& p, const Tensor& q, int64_t weights) {
  if (p.dropout_p <= 0 || weights == 0) return;
  Generator& gen = default_generator(q.device());
  if (q.is_cpu()) {
    p.seed = gen.random64();
  } else {
    std::tie(p.seed, p.offset) = gen.reserve(static_cast<uint64_t>(weights));
  }
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const optional<Tensor>& attn_mask, double dropout_p,
                                    bool is_causal, optional<double> scale) {
  const Tensor given_mask = attn_mask ? *attn_mask : Tensor();
  NABLA_TRACED(kOp, ops::call_inputs({query, key, value, given_mask}), {"dropout_p", dropout_p},
               {"is_causal", is_causal}, {"scale", scale});
  check_args(query, key, value, given_mask, dropout_p, is_causal);
  if (isReducedFloatingType(query.scalar_type())) [[unlikely]] {  // Note [16-bit compute]
    auto wide = [](const Tensor& t) {
      return t.defined() && isReducedFloatingType(t.scalar_type()) ? t.to(kFloat) : t;
    };
    const Tensor m = wide(given_mask);
    return scaled_dot_product_attention(wide(query), wide(key), wide(value),
                                        m.defined() ? optional<Tensor>(m) : nullopt, dropout_p,
                                        is_causal, scale)
        .to(query.scalar_type());
  }
  const Tensor mask = additive_mask(given_mask, query);
  AttentionParams p;
  p.scale = scale ? *scale : 1 / std::sqrt(static_cast<double>(query.size(-1)));
  p.causal = is_causal;
  p.dropout_p = dropout_p;
  const AttentionOperands o = prepare(query, key, value, mask);
  const int64_t L = o.q.size(-2), S = o.k.size(-2);
  if (mask.defined() && mask.requires_grad() && GradMode::is_enabled())
    return composed_forward(o, p);

  const bool wants_grad = GradMode::is_enabled() &&
                          (query.requires_grad() || key.requires_grad() || value.requires_grad());
  DimVector out_sizes = o.batch, lse_sizes = o.batch;
  out_sizes.push_back(L);
  out_sizes.push_back(o.v.size(-1));
  lse_sizes.push_back(L);
  Tensor out = empty(out_sizes, o.q.options());
  Tensor lse = wants_grad ? empty(lse_sizes, o.q.options()) : Tensor();
  draw_dropout_stream(p, o.q, out.numel() / std::max<int64_t>(1, out.size(-1)) * S);
  if (!backend_for(o.q).attention_forward(out, lse, o.q, o.k, o.v, o.mask, p))
    return composed_forward(o, p);
  if (auto node = autograd::record_node(kAttention, {&query, &key, &value})) {
    node->state.query = autograd::save(query);
    node->state.key = autograd::save(key);
    node->state.value = autograd::save(value);
    node->state.mask = autograd::save(mask);
    node->state.lse = autograd::save(lse);
    node->state.params = p;
    autograd::set_history(out, node);
    node->state.out = autograd::save_output(out);
  }
  return out;
}

// ---- Registry -------------------------------------------------------------------------------

void ops::registry::add_nn_attention_ops(std::vector<OpSchema>& t) {
  // query, key, value, optional attn_mask
  t.push_back(
      op(kOp, 3, 4,
         {attr("dropout_p", AttrType::Double, 0.0), attr("is_causal", AttrType::Bool, false),
          optional_attr("scale", AttrType::Double)},
         [](const Inputs& x, const AttrReader& a) -> Inputs {
           const Tensor mask = optional_input(x, 3);
           optional<double> scale;
           if (a.has("scale")) scale = a.d("scale");
           return {scaled_dot_product_attention(x[0], x[1], x[2],
                                                mask.defined() ? optional<Tensor>(mask) : nullopt,
                                                a.d("dropout_p"), a.b("is_causal"), scale)};
         }));
}

}  // namespace nabla
