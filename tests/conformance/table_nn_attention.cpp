// Op-table entries for scaled_dot_product_attention. LibTorch 1.13 has no such function,
// so its side composes the attention from matmul, masked_fill and softmax (what LibTorch
// 2.x's math path does), with the weights of a fully masked query set to 0 as nabla's
// (and LibTorch 2.5's) are. nabla's side is one fused node (Note [Fused attention]); with
// a float mask that requires grad it composes too. Dropout is checked in
// tests/ops/test_attention.cpp (its draws are nabla's own).
#include <limits>

#include "table.h"

namespace conform {
namespace {

// The composed attention for either library: q k^T * scale, the causal or additive mask,
// softmax with zero weights for rows whose every key is masked, times v.
template <class T>
T composed(const T& q, const T& k, const T& v, const T& additive, bool causal, double scale) {
  const double inf = std::numeric_limits<double>::infinity();
  T s = matmul(q, k.transpose(-2, -1)) * scale;
  if (causal) {
    const int64_t L = q.size(-2), S = k.size(-2);
    s = s.masked_fill(s.new_ones({L, S}).triu(1).to(dtype_for(s, nabla::kBool)), -inf);
  }
  if (additive.defined()) s = s + additive;
  const T hidden = s.eq(-inf).all(-1, true);
  return matmul(softmax(s.masked_fill(hidden, 0), -1).masked_fill(hidden, 0), v);
}

// The additive form of a bool mask (true: attend).
template <class T>
T additive(const T& bool_mask, const T& like) {
  return like.new_zeros(bool_mask.sizes())
      .masked_fill(bool_mask.logical_not(), -std::numeric_limits<double>::infinity());
}

// (q [.., L, E], k [.., S, E], v [.., S, Ev]) triples: batched and head dims, L != S,
// Ev != E, 2-d, a single query, keys broadcast over the batch.
Gen qkv_samples() {
  return fixed({{{2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 3}},
                {{7, 4}, {9, 4}, {9, 2}},
                {{1, 2, 1, 3}, {1, 2, 4, 3}, {1, 2, 4, 3}},
                {{2, 3, 4, 2}, {1, 3, 5, 2}, {3, 5, 2}}});
}

// (q, k, v, bool mask) with masks of every broadcast: [L, S], key padding [B, 1, 1, S],
// per batch and head [B, H, L, S]; coin-flip masks hide whole rows now and then.
Gen bool_mask_samples() {
  return [](Rng& rng, nabla::ScalarType t) {
    Samples out;
    for (const Shape& m : {Shape{5, 6}, Shape{2, 1, 1, 6}, Shape{2, 3, 5, 6}})
      out.push_back(sample_of({make(rng, {2, 3, 5, 4}, t), make(rng, {2, 3, 6, 4}, t),
                               make(rng, {2, 3, 6, 3}, t), make_bool(rng, m)}));
    return out;
  };
}

std::vector<OpEntry> attention_entries() {
  const std::string g = "nn_attention";
  const std::string fused =
      "one fused node in nabla (LibTorch 1.13 has no scaled_dot_product_attention: its side "
      "composes matmul and softmax)";
  const Opt o = Opt().tol32(1e-4, 1e-5).node_name_differs(fused).gradgrad();
  const char* name = "scaled_dot_product_attention";
  return {
      op2(
          g, "sdpa", qkv_samples(),
          [](const auto& x) { return nabla::scaled_dot_product_attention(x[0], x[1], x[2]); },
          LIBTORCH([](const auto& x) {
            return composed(x[0], x[1], x[2], at::Tensor(), false, 1 / std::sqrt(x[0].size(-1)));
          }),
          Opt(o).call(name)),
      op2(
          g, "sdpa_causal_scale", qkv_samples(),
          [](const auto& x) {
            return nabla::scaled_dot_product_attention(x[0], x[1], x[2], nabla::nullopt, 0.0, true,
                                                       0.7);
          },
          LIBTORCH(
              [](const auto& x) { return composed(x[0], x[1], x[2], at::Tensor(), true, 0.7); }),
          Opt(o).call(name, {{"is_causal", true}, {"scale", 0.7}})),
      op2(
          g, "sdpa_bool_mask", bool_mask_samples(),
          [](const auto& x) { return nabla::scaled_dot_product_attention(x[0], x[1], x[2], x[3]); },
          LIBTORCH([](const auto& x) {
            return composed(x[0], x[1], x[2], additive(x[3], x[0]), false, 0.5);
          }),
          Opt(o).call(name)),
      // A float mask is differentiated too: nabla composes for it, with LibTorch's nodes.
      op2(
          g, "sdpa_float_mask",
          fixed({{{2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 3}, {5, 6}},
                 {{2, 3, 5, 4}, {2, 3, 6, 4}, {2, 3, 6, 3}, {2, 1, 5, 1}}}),
          [](const auto& x) { return nabla::scaled_dot_product_attention(x[0], x[1], x[2], x[3]); },
          LIBTORCH([](const auto& x) { return composed(x[0], x[1], x[2], x[3], false, 0.5); }),
          Opt().tol32(1e-4, 1e-5).gradgrad().call(name)),
      op2(
          g, "sdpa_bad_key_width", fixed({{{2, 5, 4}, {2, 6, 3}, {2, 6, 3}}}),
          [](const auto& x) { return nabla::scaled_dot_product_attention(x[0], x[1], x[2]); },
          LIBTORCH(
              [](const auto& x) { return composed(x[0], x[1], x[2], at::Tensor(), false, 0.5); }),
          Opt().throws("scaled_dot_product_attention").call(name)),
  };
}

}  // namespace

static const bool registered = add_entries(attention_entries());

}  // namespace conform
