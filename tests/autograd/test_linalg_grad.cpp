// Gradients of the linear algebra ops: gradcheck / gradgradcheck for every matmul case,
// addmm (broadcast self, beta / alpha, in place), linear, and LibTorch's node names.
#include <nabla/autograd/autograd.h>
#include <nabla/autograd/gradcheck.h>

#include <functional>

#include "test_util.h"

using namespace nabla;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;

namespace {

// gradcheck perturbs its (contiguous) inputs; non-contiguous operands are made inside
// the checked function (x.t(), slices), which also runs their views' backward.

using Fn2 = std::function<Tensor(const Tensor&, const Tensor&)>;

void check2(const char* name, const Fn2& f, const Tensor& a, const Tensor& b) {
  auto fn = [&](const variable_list& in) { return variable_list{f(in[0], in[1])}; };
  EXPECT_TRUE(fn({a, b})[0].requires_grad()) << name;  // gradcheck skips graphless outputs
  EXPECT_NO_THROW(gradcheck(fn, {a, b})) << name;
  EXPECT_NO_THROW(gradgradcheck(fn, {a, b})) << name;
}

}  // namespace

TEST(LinalgGrad, MmBmmMvDotOuter) {
  manual_seed(20);
  Fn2 mm = [](const Tensor& a, const Tensor& b) { return a.mm(b); };
  check2("mm", mm, rnd({3, 4}), rnd({4, 2}));
  check2(
      "mm_transposed", [](const Tensor& a, const Tensor& b) { return a.t().mm(b.t()); },
      rnd({4, 3}), rnd({2, 4}));
  check2(
      "mm_sliced", [](const Tensor& a, const Tensor& b) { return a.slice(1, 0, 8, 2).mm(b); },
      rnd({3, 8}), rnd({4, 2}));
  check2(
      "bmm", [](const Tensor& a, const Tensor& b) { return a.bmm(b); }, rnd({2, 3, 4}),
      rnd({2, 4, 5}));
  check2(
      "bmm_transposed",
      [](const Tensor& a, const Tensor& b) { return a.transpose(1, 2).bmm(b.transpose(0, 1)); },
      rnd({2, 4, 3}), rnd({4, 2, 5}));
  check2(
      "mv", [](const Tensor& a, const Tensor& v) { return a.t().mv(v); }, rnd({4, 3}), rnd({4}));
  check2(
      "dot", [](const Tensor& a, const Tensor& b) { return a.dot(b.slice(0, 0, 10, 2)); }, rnd({5}),
      rnd({10}));
  check2(
      "outer", [](const Tensor& a, const Tensor& b) { return a.outer(b); }, rnd({3}), rnd({4}));
}

TEST(LinalgGrad, MatmulAllCases) {
  manual_seed(21);
  Fn2 mat = [](const Tensor& a, const Tensor& b) { return a.matmul(b); };
  struct Shapes {
    const char* name;
    std::vector<int64_t> a, b;
  };
  std::vector<Shapes> cases = {
      {"1x1", {4}, {4}},
      {"2x1", {3, 4}, {4}},
      {"1x2", {4}, {4, 3}},
      {"2x2", {3, 4}, {4, 2}},
      {"3x2_fold", {2, 3, 4}, {4, 5}},
      {"3x1_fold", {2, 3, 4}, {4}},
      {"1x3", {4}, {2, 4, 3}},
      {"2x3", {3, 4}, {2, 4, 5}},
      {"3x3", {2, 3, 4}, {2, 4, 5}},
      {"4x3_broadcast", {2, 1, 3, 4}, {3, 4, 5}},
      {"3x4_broadcast", {1, 3, 4}, {2, 2, 4, 3}},
  };
  for (const auto& c : cases) check2(c.name, mat, rnd(c.a), rnd(c.b));
  // A transposed batch does not fold: the batched path with a non-contiguous operand.
  check2(
      "3x2_nonfoldable",
      [](const Tensor& a, const Tensor& b) { return a.transpose(0, 1).matmul(b.t()); },
      rnd({3, 2, 4}), rnd({5, 4}));
  check2(
      "3x3_transposed",
      [](const Tensor& a, const Tensor& b) { return a.transpose(1, 2).matmul(b); }, rnd({2, 4, 3}),
      rnd({2, 4, 5}));
}

TEST(LinalgGrad, MatmulNodeNamesAsLibTorch) {
  Tensor m = rnd({3, 4}), n = rnd({4, 5}), v = rnd({4}), w = rnd({4}), u = rnd({3});
  Tensor b3 = rnd({2, 3, 4}), c3 = rnd({2, 4, 5});
  EXPECT_EQ(name_of(m.mm(n)), "MmBackward0");
  EXPECT_EQ(name_of(b3.bmm(c3)), "BmmBackward0");
  EXPECT_EQ(name_of(m.matmul(n)), "MmBackward0");
  EXPECT_EQ(name_of(v.matmul(w)), "DotBackward0");
  EXPECT_EQ(name_of(m.matmul(v)), "MvBackward0");
  EXPECT_EQ(name_of(v.matmul(n)), "SqueezeBackward3");
  EXPECT_EQ(name_of(u.matmul(m)), "SqueezeBackward3");
  EXPECT_EQ(name_of(b3.matmul(n)), "UnsafeViewBackward0");
  EXPECT_EQ(name_of(b3.matmul(v)), "UnsafeViewBackward0");
  EXPECT_EQ(name_of(b3.matmul(c3)), "UnsafeViewBackward0");
  EXPECT_EQ(name_of(v.matmul(c3)), "UnsafeViewBackward0");
  EXPECT_EQ(name_of(m.mv(v)), "MvBackward0");
  EXPECT_EQ(name_of(v.dot(w)), "DotBackward0");
  EXPECT_EQ(name_of(v.outer(w)), "MulBackward0");
  EXPECT_EQ(b3.matmul(n).grad_fn()->next_edges()[0].function->name(), "MmBackward0");
  EXPECT_EQ(b3.matmul(c3).grad_fn()->next_edges()[0].function->name(), "BmmBackward0");
}

TEST(LinalgGrad, AddmmBroadcastBetaAlpha) {
  manual_seed(22);
  using Fn3 = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
  auto check3 = [](const char* name, const Fn3& f, const Tensor& s, const Tensor& a,
                   const Tensor& b) {
    auto fn = [&](const variable_list& in) { return variable_list{f(in[0], in[1], in[2])}; };
    EXPECT_NO_THROW(gradcheck(fn, {s, a, b})) << name;
    EXPECT_NO_THROW(gradgradcheck(fn, {s, a, b})) << name;
  };
  Fn3 plain = [](const Tensor& s, const Tensor& a, const Tensor& b) { return s.addmm(a, b); };
  Fn3 scaled = [](const Tensor& s, const Tensor& a, const Tensor& b) {
    return s.addmm(a, b, 0.5, -2);
  };
  Fn3 beta0 = [](const Tensor& s, const Tensor& a, const Tensor& b) {
    return addmm(s, a, b, 0, 1.5);
  };
  check3("full_self", plain, rnd({3, 5}), rnd({3, 4}), rnd({4, 5}));
  check3(
      "row_self_transposed",
      [](const Tensor& s, const Tensor& a, const Tensor& b) { return s.addmm(a.t(), b.t()); },
      rnd({5}), rnd({4, 3}), rnd({5, 4}));
  check3("col_self", scaled, rnd({3, 1}), rnd({3, 4}), rnd({4, 5}));
  check3("scalar_self", scaled, rnd({}), rnd({3, 4}), rnd({4, 5}));
  check3("beta0", beta0, rnd({1, 5}), rnd({3, 4}), rnd({4, 5}));
  Tensor s = rnd({3, 5}), a = rnd({3, 4}), b = rnd({4, 5});
  EXPECT_EQ(name_of(s.addmm(a, b)), "AddmmBackward0");
  EXPECT_EQ(name_of(rnd({5}).addmm(a, b, 0.5, 2)), "AddmmBackward0");
}

TEST(LinalgGrad, AddmmValues) {
  // grad_self = beta * sum_to(g), grad_m1 = alpha g m2^T, grad_m2 = alpha m1^T g.
  Tensor s = zeros({2}, dtype(kDouble).requires_grad(true));
  Tensor a = tensor(std::vector<double>{1, 2, 3, 4}, kDouble).view({2, 2}).requires_grad_();
  Tensor b = tensor(std::vector<double>{5, 6, 7, 8}, kDouble).view({2, 2}).requires_grad_();
  s.addmm(a, b, 3, 2).sum().backward();
  EXPECT_EQ(values(s.grad()), (std::vector<double>{6, 6}));
  EXPECT_EQ(values(a.grad()), (std::vector<double>{22, 30, 22, 30}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{8, 8, 12, 12}));
}

TEST(LinalgGrad, AddmmInPlace) {
  manual_seed(23);
  Tensor s = rnd({3, 5}), a = rnd({3, 4}), b = rnd({4, 5});
  auto fn = [](const variable_list& in) {
    Tensor t = in[0] * 1;  // a non-leaf, so it may be written in place
    t.addmm_(in[1], in[2], 0.5, 2);
    return variable_list{t};
  };
  EXPECT_NO_THROW(gradcheck(fn, {s, a, b}));
  EXPECT_NO_THROW(gradgradcheck(fn, {s, a, b}));
  Tensor t = s * 1;
  auto version = t._version();
  t.addmm_(a, b);
  EXPECT_EQ(name_of(t), "AddmmBackward0");
  EXPECT_GT(t._version(), version);
  // A leaf that requires grad cannot be written in place.
  nabla::testing::expect_error([&] { s.addmm_(a, b); }, {"addmm_", "leaf"});
  // Without autograd the in-place kernel path is unchanged.
  Tensor plain = zeros({3, 5}, kDouble);
  plain.addmm_(a.detach(), b.detach());
  EXPECT_EQ(plain.grad_fn(), nullptr);
  EXPECT_TRUE(plain.allclose(a.detach().mm(b.detach())));
}

TEST(LinalgGrad, Linear) {
  manual_seed(24);
  using Fn3 = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
  Fn3 lin = [](const Tensor& x, const Tensor& w, const Tensor& b) { return linear(x, w, b); };
  struct Case {
    const char* name;
    Tensor x;
    std::function<Tensor(const Tensor&)> prep;
  };
  auto same = [](const Tensor& x) { return x; };
  for (auto& c : std::vector<Case>{
           {"2d", rnd({3, 4}), same},
           {"3d", rnd({2, 3, 4}), same},
           {"1d", rnd({4}), same},
           {"3d_nonfoldable", rnd({3, 2, 4}), [](const Tensor& x) { return x.transpose(0, 1); }}}) {
    Tensor w = rnd({5, 4}), b = rnd({5});
    auto fn = [&](const variable_list& in) {
      return variable_list{lin(c.prep(in[0]), in[1], in[2])};
    };
    EXPECT_NO_THROW(gradcheck(fn, {c.x, w, b})) << c.name;
    EXPECT_NO_THROW(gradgradcheck(fn, {c.x, w, b})) << c.name;
    auto fn_nobias = [&](const variable_list& in) {
      return variable_list{linear(c.prep(in[0]), in[1])};
    };
    EXPECT_NO_THROW(gradcheck(fn_nobias, {c.x, w})) << c.name;
  }
  Tensor x = rnd({3, 4}), w = rnd({5, 4}), b = rnd({5});
  EXPECT_EQ(name_of(linear(x, w, b)), "AddmmBackward0");
  EXPECT_EQ(name_of(linear(x, w)), "MmBackward0");
  EXPECT_EQ(name_of(linear(rnd({2, 3, 4}), w)), "UnsafeViewBackward0");
  EXPECT_EQ(name_of(linear(rnd({2, 3, 4}), w, b)), "ViewBackward0");
  EXPECT_EQ(name_of(linear(rnd({4}), w, b)), "AddBackward0");
  EXPECT_EQ(linear(x, w, b).grad_fn()->next_edges()[2].function->name(), "TBackward0");
}

TEST(LinalgGrad, OnlyWeightsRequireGrad) {
  // The usual training case: the input is data; its gradient is neither computed nor
  // kept, and the weight and bias gradients are exact.
  Tensor x = tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, kDouble).view({2, 3});
  Tensor w = tensor(std::vector<double>{1, 0, -1, 2, 1, 0}, kDouble).view({2, 3}).requires_grad_();
  Tensor b = zeros({2}, dtype(kDouble).requires_grad(true));
  Tensor y = linear(x, w, b);
  auto edges = y.grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 3u);
  EXPECT_FALSE(edges[1].is_valid());  // input: no edge
  y.sum().backward();
  EXPECT_FALSE(x.grad().defined());
  EXPECT_EQ(values(w.grad()), (std::vector<double>{5, 7, 9, 5, 7, 9}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{2, 2}));
}

TEST(LinalgGrad, EmptyAndDtypes) {
  Tensor a = zeros({0, 3}, dtype(kDouble).requires_grad(true));
  Tensor b = rnd({3, 2});
  a.mm(b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(values(b.grad()), std::vector<double>(6, 0.0));
  Tensor k0a = zeros({2, 0}, dtype(kDouble).requires_grad(true));
  Tensor k0b = zeros({0, 3}, dtype(kDouble).requires_grad(true));
  k0a.mm(k0b).sum().backward();
  EXPECT_EQ(k0a.grad().sizes(), IntArrayRef({2, 0}));
  // float32 training path.
  Tensor f = ones({2, 3}, dtype(kFloat).requires_grad(true));
  Tensor g = ones({3, 4}, dtype(kFloat).requires_grad(true));
  f.matmul(g).sum().backward();
  EXPECT_EQ(f.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(f.grad()), std::vector<double>(6, 4.0));
}

TEST(LinalgGrad, ModifiedSavedOperandIsDetected) {
  Tensor a = rnd({2, 3}), b = rnd({3, 4});
  Tensor a2 = a * 1;
  Tensor y = a2.mm(b);  // saves a2 for b's gradient
  a2.add_(1);
  nabla::testing::expect_error([&] { y.sum().backward(); }, {"MmBackward0", "inplace"});
}
