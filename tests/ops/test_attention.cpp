// scaled_dot_product_attention, what the op table (tests/conformance/table_nn_attention.cpp)
// cannot say: sequences longer than the kernel's query and key blocks (64 and 128) with
// every kind of mask, against the composed ops in float64 and finite differences across
// block edges; GPT-2's strided q/k/v; fully masked rows; dropout (nabla's own draws);
// the node and the errors.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::values;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The attention composed from public ops (LibTorch 2.x's math path), weights 0 on rows
// whose every key is masked; `mask` additive or undefined.
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal,
                 double scale) {
  Tensor s = matmul(q, k.transpose(-2, -1)) * scale;
  if (causal) s = s.masked_fill(ones({q.size(-2), k.size(-2)}, kBool).triu(1), -kInf);
  if (mask.defined()) s = s + mask;
  const Tensor hidden = s.eq(-kInf).all(-1, true);
  return matmul(softmax(s.masked_fill(hidden, 0), -1).masked_fill(hidden, 0), v);
}

Tensor additive(const Tensor& bool_mask, ScalarType t) {
  return zeros(bool_mask.sizes(), t).masked_fill(bool_mask.logical_not(), -kInf);
}

double max_rel_diff(const Tensor& a, const Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a.to(kDouble) - b.to(kDouble)).abs().max().item<double>() / scale;
}

struct Case {
  const char* what;
  std::vector<int64_t> q, k, v;
  int mask;  // 0 none, 1 causal, 2 bool [L, S], 3 bool key padding [B, 1, 1, S], 4 float
};

// Values and gradients of the fused op against the composed reference, in `dtype`.
void check_case(const Case& c, ScalarType dtype, double tol) {
  SCOPED_TRACE(std::string(c.what) + (dtype == kFloat ? " float32" : " float64"));
  manual_seed(7);
  Tensor q = randn(c.q, dtype).requires_grad_(), k = randn(c.k, dtype).requires_grad_(),
         v = randn(c.v, dtype).requires_grad_();
  const int64_t L = c.q[c.q.size() - 2], S = c.k[c.k.size() - 2];
  Tensor bool_mask, float_mask;
  if (c.mask == 2) bool_mask = rand({L, S}).gt(0.3);
  if (c.mask == 3) bool_mask = rand({c.q[0], 1, 1, S}).gt(0.2);
  if (c.mask == 4) float_mask = randn({L, S}, dtype);
  optional<Tensor> mask;
  if (bool_mask.defined()) mask = bool_mask;
  if (float_mask.defined()) mask = float_mask;
  const double scale = 1 / std::sqrt(static_cast<double>(c.q.back()));
  Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, c.mask == 1);
  Tensor g = randn(out.sizes(), dtype);
  auto grads = autograd::grad({out}, {q, k, v}, {g});

  Tensor qd = q.detach().to(kDouble).requires_grad_(), kd = k.detach().to(kDouble).requires_grad_(),
         vd = v.detach().to(kDouble).requires_grad_();
  Tensor md = bool_mask.defined()    ? additive(bool_mask, kDouble)
              : float_mask.defined() ? float_mask.to(kDouble)
                                     : Tensor();
  Tensor ref = reference(qd, kd, vd, md, c.mask == 1, scale);
  auto ref_grads = autograd::grad({ref}, {qd, kd, vd}, {g.to(kDouble)});
  EXPECT_LT(max_rel_diff(out, ref), tol);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(grads[i].sizes(), ref_grads[i].sizes());
    EXPECT_LT(max_rel_diff(grads[i], ref_grads[i]), tol) << "gradient " << i;
  }
}

}  // namespace

// Past one block of queries (64) and keys (128), in both directions, with each mask.
TEST(Attention, LongSequencesMatchComposedOps) {
  const std::vector<Case> cases = {
      {"no mask", {2, 3, 150, 16}, {2, 3, 200, 16}, {2, 3, 200, 8}, 0},
      {"causal", {1, 2, 300, 32}, {1, 2, 300, 32}, {1, 2, 300, 32}, 1},
      {"causal, fewer keys", {1, 1, 140, 8}, {1, 1, 70, 8}, {1, 1, 70, 8}, 1},
      {"bool [L, S]", {2, 2, 100, 8}, {2, 2, 260, 8}, {2, 2, 260, 8}, 2},
      {"key padding", {3, 2, 65, 8}, {3, 2, 129, 8}, {3, 2, 129, 8}, 3},
      {"float [L, S]", {2, 70, 8}, {2, 131, 8}, {2, 131, 4}, 4},
      {"one query", {4, 1, 16}, {4, 300, 16}, {4, 300, 16}, 0},
  };
  for (const Case& c : cases) {
    check_case(c, kDouble, 1e-10);
    check_case(c, kFloat, 1e-5);
  }
}

// q, k and v as GPT-2 slices them from one [B, T, 3C] projection: strided heads.
TEST(Attention, StridedHeadsOfOnePackedProjection) {
  const int64_t B = 2, T = 80, H = 4, D = 16, C = H * D;
  Tensor qkv = randn({B, T, 3 * C}, kDouble).requires_grad_();
  auto heads = [&](int64_t i) {
    return qkv.slice(2, i * C, (i + 1) * C).view({B, T, H, D}).transpose(1, 2);
  };
  Tensor out = scaled_dot_product_attention(heads(0), heads(1), heads(2), nullopt, 0.0, true);
  Tensor ref = reference(heads(0), heads(1), heads(2), Tensor(), true, 0.25);
  EXPECT_LT(max_rel_diff(out, ref), 1e-12);
  Tensor g = randn(out.sizes(), kDouble);
  Tensor grad = autograd::grad({out}, {qkv}, {g})[0];
  Tensor ref_grad = autograd::grad({ref}, {qkv}, {g})[0];
  EXPECT_LT(max_rel_diff(grad, ref_grad), 1e-12);
}

// Central finite differences in float64 across block edges, each mask kind, and the
// second derivatives (the backward under create_graph composes differentiable ops).
TEST(Attention, FiniteDifferencesAndSecondDerivatives) {
  manual_seed(3);
  Tensor q = randn({1, 66, 2}, kDouble).requires_grad_();
  Tensor k = randn({1, 130, 2}, kDouble).requires_grad_();
  Tensor v = randn({1, 130, 2}, kDouble).requires_grad_();
  Tensor bool_mask = rand({66, 130}).gt(0.5);
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode);
    auto fn = [&](const autograd::variable_list& x) -> autograd::variable_list {
      if (mode == 2) return {scaled_dot_product_attention(x[0], x[1], x[2], bool_mask)};
      return {scaled_dot_product_attention(x[0], x[1], x[2], nullopt, 0.0, mode == 1)};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, {q, k, v}));
  }
  Tensor qs = randn({2, 5, 3}, kDouble).requires_grad_();
  Tensor ks = randn({2, 4, 3}, kDouble).requires_grad_();
  Tensor vs = randn({2, 4, 2}, kDouble).requires_grad_();
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const autograd::variable_list& x) -> autograd::variable_list {
        return {scaled_dot_product_attention(x[0], x[1], x[2], nullopt, 0.0, true)};
      },
      {qs, ks, vs}));
}

// A query whose every key is masked gets a zero row and zero gradients, not NaN.
TEST(Attention, FullyMaskedRowsGiveZeros) {
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor q = randn({2, 4, 8}, t).requires_grad_(), k = randn({2, 6, 8}, t).requires_grad_();
    Tensor v = randn({2, 6, 3}, t).requires_grad_();
    Tensor mask = ones({4, 6}, kBool);
    mask.select(0, 1).fill_(false);
    Tensor out = scaled_dot_product_attention(q, k, v, mask);
    EXPECT_EQ(out.select(1, 1).abs().sum().item<double>(), 0.0);
    EXPECT_FALSE(out.isnan().any().item<bool>());
    out.sum().backward();
    EXPECT_EQ(q.grad().select(1, 1).abs().sum().item<double>(), 0.0);
    EXPECT_FALSE(k.grad().isnan().any().item<bool>());
    EXPECT_FALSE(v.grad().isnan().any().item<bool>());
  }
}

// With v the identity, the output is the dropped-out weights themselves: every entry is 0
// or softmax / (1 - p), about p of them dropped, the same after the same seed, and the
// backward uses the forward's mask (finite differences under a reseeded generator).
TEST(Attention, DropoutDropsWeightsWithTheForwardsMaskInBackward) {
  const int64_t L = 64, S = 200;
  const double p = 0.3;
  Tensor q = randn({2, L, 8}, kDouble), k = randn({2, S, 8}, kDouble);
  Tensor eye_v = eye(S, kDouble).expand({2, S, S});
  manual_seed(11);
  Tensor w = scaled_dot_product_attention(q, k, eye_v, nullopt, p);
  manual_seed(11);
  Tensor again = scaled_dot_product_attention(q, k, eye_v, nullopt, p);
  EXPECT_TRUE(w.equal(again));
  Tensor soft = softmax(matmul(q, k.transpose(1, 2)) / std::sqrt(8.0), -1);
  Tensor kept = w.ne(0);
  EXPECT_LT((w - soft / (1 - p)).masked_fill(kept.logical_not(), 0).abs().max().item<double>(),
            1e-12);
  const double dropped = 1 - kept.to(kDouble).mean().item<double>();
  EXPECT_NEAR(dropped, p, 5 * std::sqrt(p * (1 - p) / (2 * L * S)));

  Tensor qs = randn({1, 6, 3}, kDouble).requires_grad_(),
         ks = randn({1, 7, 3}, kDouble).requires_grad_();
  Tensor vs = randn({1, 7, 2}, kDouble).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& x) -> autograd::variable_list {
        manual_seed(5);
        return {scaled_dot_product_attention(x[0], x[1], x[2], nullopt, 0.5)};
      },
      {qs, ks, vs}));
  // A backward that builds a graph would need the mask outside the kernel: refused, clearly.
  manual_seed(5);
  Tensor out = scaled_dot_product_attention(qs, ks, vs, nullopt, 0.5);
  expect_error([&] { autograd::grad({out.sum()}, {qs}, {}, true, true); },
               {"scaled_dot_product_attention", "dropout"});
}

TEST(Attention, NodeAndFunctionalSpelling) {
  Tensor q = randn({2, 3, 4}).requires_grad_();
  Tensor out = nn::functional::scaled_dot_product_attention(q, q, q);
  EXPECT_EQ(out.grad_fn()->name(), "ScaledDotProductAttentionBackward0");
  NoGradGuard no_grad;
  EXPECT_FALSE(scaled_dot_product_attention(q, q, q).requires_grad());
}

TEST(Attention, Errors) {
  Tensor q = randn({2, 5, 4}), k = randn({2, 6, 4}), v = randn({2, 6, 3});
  const char* op = "scaled_dot_product_attention";
  expect_error(
      [&] {
        scaled_dot_product_attention(q, randn({2, 6, 3}), v);
      },
      {op, "last dim", "4", "3"});
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, randn({2, 7, 3}));
      },
      {op, "as many positions"});
  expect_error([&] { scaled_dot_product_attention(q, k, v.to(kDouble)); }, {op, "Double"});
  expect_error([&] { scaled_dot_product_attention(q.to(kLong), k.to(kLong), v.to(kLong)); },
               {op, "floating"});
  expect_error([&] { scaled_dot_product_attention(randn({4}), k, v); }, {op, "at least 2"});
  expect_error([&] { scaled_dot_product_attention(q, k, v, nullopt, 1.5); }, {op, "dropout_p"});
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({5, 6}, kBool), 0.0, true);
      },
      {op, "is_causal", "attn_mask"});
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({5, 6}, kLong));
      },
      {op, "bool", "Long"});
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({4, 6}, kBool));
      },
      {op, "[4, 6]", "broadcast"});
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({3, 2, 5, 6}, kBool));
      },
      {op, "batch"});
  expect_error([&] { scaled_dot_product_attention(Tensor(), k, v); }, {op, "query"});
}
