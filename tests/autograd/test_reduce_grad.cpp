// Gradients of the reductions: gradcheck / gradgradcheck over a table of cases, PyTorch's
// node names, the tie and zero rules, and the classic scenarios built on sum.
#include <nabla/autograd/autograd.h>
#include <nabla/autograd/gradcheck.h>

#include <cmath>
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

// Distinct values (no ties), so max / sort are differentiable everywhere.
Tensor distinct(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor perm = randperm(n, kLong).to(kDouble);
  return (perm / static_cast<double>(n) - 0.5).view(shape).detach().requires_grad_();
}
Tensor leaf(std::initializer_list<double> v) {
  return tensor(std::vector<double>(v), kDouble).requires_grad_();
}

// gradcheck perturbs its (contiguous) input; `view` makes the operand the op sees, e.g.
// a transpose or a slice, so non-contiguous inputs are covered too.
struct Case {
  const char* name;
  std::function<Tensor(const Tensor&)> f;
  std::function<Tensor()> input;
  std::function<Tensor(const Tensor&)> view = nullptr;
  bool second_order = true;
};

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    Tensor x = c.input();
    auto fn = [&](const variable_list& in) {
      return variable_list{c.f(c.view ? c.view(in[0]) : in[0])};
    };
    // gradcheck skips outputs without a graph, so check that one was recorded.
    EXPECT_TRUE(fn({x})[0].requires_grad()) << c.name;
    EXPECT_NO_THROW(gradcheck(fn, {x})) << c.name;
    if (c.second_order) {
      EXPECT_NO_THROW(gradgradcheck(fn, {x})) << c.name;
    }
  }
}

// Inputs for a [3, 4] operand seen through a transpose, and a [3, 2] one through a slice.
Tensor r43() { return rnd({4, 3}); }
Tensor r35() { return rnd({3, 5}); }
Tensor tr(const Tensor& x) { return x.t(); }
Tensor sl(const Tensor& x) { return x.slice(1, 1, 5, 2); }

}  // namespace

TEST(ReduceGrad, SumMeanGradcheck) {
  manual_seed(10);
  check_cases({
      {"sum", [](const Tensor& x) { return x.sum(); },
       [] {
         return rnd({3, 4});
       }},
      {"sum_t", [](const Tensor& x) { return x.sum(); }, r43, tr},
      {"sum_dim", [](const Tensor& x) { return x.sum({1}); }, r43, tr},
      {"sum_neg_dim_keep", [](const Tensor& x) { return x.sum({-1}, true); }, r35, sl},
      {"sum_dims",
       [](const Tensor& x) {
         return x.sum({0, 2});
       },
       [] {
         return rnd({2, 3, 4});
       }},
      {"sum_dims_keep",
       [](const Tensor& x) {
         return x.sum({-1, 0}, true);
       },
       [] {
         return rnd({2, 3, 4});
       }},
      {"sum_empty_list", [](const Tensor& x) { return x.sum(IntArrayRef{}); },
       [] {
         return rnd({2, 3});
       }},
      {"sum_0d", [](const Tensor& x) { return x.sum(); }, [] { return rnd({}); }},
      {"sum_0d_dim", [](const Tensor& x) { return x.sum({0}, true); }, [] { return rnd({}); }},
      {"sum_dtype", [](const Tensor& x) { return x.sum(kDouble); }, [] { return rnd({3}); }},
      {"mean", [](const Tensor& x) { return x.mean(); }, r43, tr},
      {"mean_dim", [](const Tensor& x) { return x.mean({-2}); },
       [] {
         return rnd({2, 3, 4});
       }},
      {"mean_dims_keep",
       [](const Tensor& x) {
         return x.mean({0, 2}, true);
       },
       [] {
         return rnd({2, 3, 4});
       }},
  });
}

TEST(ReduceGrad, ProdGradcheck) {
  manual_seed(11);
  check_cases({
      {"prod", [](const Tensor& x) { return x.prod(); },
       [] {
         return rnd({2, 3}, 0.5, 1.5);
       }},
      {"prod_dim", [](const Tensor& x) { return x.prod(1); },
       [] {
         return rnd({3, 4}, -1.5, -0.5);
       }},
      {"prod_neg_keep", [](const Tensor& x) { return x.prod(-1, true); }, r43, tr},
      {"prod_0d", [](const Tensor& x) { return x.prod(); }, [] { return rnd({}); }},
      // prod is multilinear, so central differences are exact even at zeros.
      {"prod_one_zero", [](const Tensor& x) { return x.prod(); },
       [] {
         return leaf({2, 0, 3, -1});
       }},
      {"prod_two_zeros", [](const Tensor& x) { return x.prod(); },
       [] {
         return leaf({2, 0, 0, -1});
       }},
      {"prod_three_zeros", [](const Tensor& x) { return x.prod(); },
       [] {
         return leaf({0, 0, 0, 2});
       }},
      {"prod_dim_zeros", [](const Tensor& x) { return x.prod(1); },
       [] {
         return tensor(std::vector<double>{2, 0, 3, 0, 0, 1, 1, 2, 3}, kDouble)
             .view({3, 3})
             .requires_grad_();
       }},
  });
}

TEST(ReduceGrad, ProdWithZerosMatchesPyTorch) {
  // Values from LibTorch 1.13.
  Tensor a = leaf({2, 0, 3});
  a.prod().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 6, 0}));
  Tensor b = leaf({2, 0, 0});
  b.prod().backward();
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0, 0, 0}));
  Tensor c =
      tensor(std::vector<double>{2, 0, 3, 0, 0, 1, 1, 2, 3}, kDouble).view({3, 3}).requires_grad_();
  c.prod(1).sum().backward();
  EXPECT_EQ(values(c.grad()), (std::vector<double>{0, 6, 0, 0, 0, 0, 6, 3, 2}));
  Tensor d = leaf({2, 4});
  d.prod().backward();
  EXPECT_EQ(values(d.grad()), (std::vector<double>{4, 2}));
}

TEST(ReduceGrad, MaxMinGradcheck) {
  manual_seed(12);
  auto d34 = [] { return distinct({3, 4}); };
  check_cases({
      {"max", [](const Tensor& x) { return x.max(); }, d34},
      {"min", [](const Tensor& x) { return x.min(); }, d34},
      {"max_dim", [](const Tensor& x) { return std::get<0>(x.max(1)); }, d34},
      {"min_dim_keep", [](const Tensor& x) { return std::get<0>(x.min(-2, true)); }, d34},
      {"max_dim_t", [](const Tensor& x) { return std::get<0>(x.t().max(0)); }, d34},
      {"max_0d", [](const Tensor& x) { return std::get<0>(x.max(0)); }, [] { return rnd({}); }},
      {"amax", [](const Tensor& x) { return x.amax({1}); }, d34},
      {"amin_keep",
       [](const Tensor& x) {
         return x.amin({-1, 0}, true);
       },
       d34},
      {"amax_all", [](const Tensor& x) { return x.amax({}); }, d34},
  });
}

TEST(ReduceGrad, TiesFollowPyTorch) {
  // max() and amax share the gradient evenly among ties; max(dim) gives it to the index.
  Tensor a = leaf({1, 3, 3, 2});
  a.max().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 0.5, 0.5, 0}));
  Tensor b = leaf({1, 3, 3, 2}).view({1, 4}).detach().requires_grad_();
  std::get<0>(b.max(1)).sum().backward();
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0, 1, 0, 0}));
  Tensor c = leaf({1, 3, 3, 2}).view({1, 4}).detach().requires_grad_();
  c.amax({1}).sum().backward();
  EXPECT_EQ(values(c.grad()), (std::vector<double>{0, 0.5, 0.5, 0}));
  Tensor d = leaf({4, 1, 1, 4, 1});
  d.min().backward();
  EXPECT_NEAR(values(d.grad())[1], 1.0 / 3, 1e-15);
  EXPECT_EQ(values(d.grad())[0], 0);
  Tensor e = leaf({2, 7, 7});
  std::get<0>(e.max(0, true)).backward(ones({1}, kDouble));
  EXPECT_EQ(values(e.grad()), (std::vector<double>{0, 1, 0}));
}

TEST(ReduceGrad, VarStdGradcheck) {
  manual_seed(13);
  check_cases({
      {"var", [](const Tensor& x) { return x.var(); }, r43, tr},
      {"var_biased", [](const Tensor& x) { return x.var(false); }, [] { return rnd({5}); }},
      {"var_dim", [](const Tensor& x) { return x.var({1}, true); }, r35, sl},
      {"var_dims_keep",
       [](const Tensor& x) {
         return x.var({0, -1}, true, true);
       },
       [] {
         return rnd({2, 3, 4});
       }},
      {"std", [](const Tensor& x) { return x.std(); }, r43, tr},
      {"std_dim_biased", [](const Tensor& x) { return x.std({0}, false); },
       [] {
         return rnd({3, 4});
       }},
      {"std_dim_keep", [](const Tensor& x) { return x.std({-1}, true, true); },
       [] {
         return rnd({2, 5});
       }},
  });
}

TEST(ReduceGrad, StdOfConstantHasZeroGradient) {
  Tensor a = tensor(std::vector<double>{1, 1, 1, 2}, kDouble).view({2, 2}).requires_grad_();
  a.std({1}, true).sum().backward();
  auto g = values(a.grad());
  EXPECT_EQ(g[0], 0);
  EXPECT_EQ(g[1], 0);
  EXPECT_NEAR(g[2], -std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(g[3], std::sqrt(0.5), 1e-12);
}

TEST(ReduceGrad, NormGradcheck) {
  manual_seed(14);
  auto away_from_zero = [] {
    Tensor r = rand({3, 4}, kDouble) + 0.2;
    Tensor s = rand({3, 4}, kDouble) > 0.5;
    return r.where(s, -r).detach().requires_grad_();
  };
  // Distinct nonzero |x| for the ±inf norms (no ties, no zero).
  auto distinct_abs = [] {
    Tensor mag = (randperm(12, kLong).to(kDouble) + 1) / 13;
    Tensor sign = (arange(12, kDouble).remainder(2) * 2 - 1);
    return (mag * sign).view({3, 4}).detach().requires_grad_();
  };
  std::vector<Case> cases;
  for (double p : {2.0, 1.0, 3.0, 1.5, 0.5}) {
    cases.push_back({"norm_p", [p](const Tensor& x) { return x.norm(p); }, away_from_zero});
    cases.push_back(
        {"norm_p_dim", [p](const Tensor& x) { return x.norm(p, {1}); }, away_from_zero});
    cases.push_back({"norm_p_dims_keep",
                     [p](const Tensor& x) {
                       return x.norm(p, {-1, 0}, true);
                     },
                     away_from_zero});
  }
  cases.push_back({"norm_inf", [](const Tensor& x) { return x.norm(INFINITY); }, distinct_abs});
  cases.push_back(
      {"norm_-inf_dim", [](const Tensor& x) { return x.norm(-INFINITY, {0}); }, distinct_abs});
  cases.push_back({"norm_inf_dim_keep", [](const Tensor& x) { return x.norm(INFINITY, {1}, true); },
                   distinct_abs});
  cases.push_back(
      {"norm_default_dim", [](const Tensor& x) { return x.norm(nullopt, {1}); }, r43, tr});
  check_cases(cases);
}

TEST(ReduceGrad, NormAtZero) {
  // p = 2: gradient 0 at the origin, not NaN (LibTorch).
  for (double p : {2.0, 1.0, 3.0, 0.5}) {
    Tensor a = zeros({3}, dtype(kDouble).requires_grad(true));
    a.norm(p).backward();
    EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 0, 0})) << p;
  }
  Tensor r = zeros({2, 3}, dtype(kDouble).requires_grad(true));
  r.norm(2, {1}).sum().backward();
  EXPECT_EQ(values(r.grad()), std::vector<double>(6, 0.0));
  // Ties of |x| for the inf norm share the gradient, with the sign of x.
  Tensor b = leaf({1, -3, 3});
  b.norm(INFINITY).backward();
  EXPECT_EQ(values(b.grad()), (std::vector<double>{0, -0.5, 0.5}));
  // p = 0 counts nonzeros: no gradient at all (LibTorch leaves grad undefined).
  Tensor c = leaf({1, -3, 0});
  c.norm(0).backward();
  EXPECT_FALSE(c.grad().defined());
}

TEST(ReduceGrad, LogsumexpAndCumsumGradcheck) {
  manual_seed(15);
  check_cases({
      {"logsumexp", [](const Tensor& x) { return x.logsumexp({1}); }, r43, tr},
      {"logsumexp_keep",
       [](const Tensor& x) {
         return x.logsumexp({0, -1}, true);
       },
       [] {
         return rnd({2, 3, 4});
       }},
      {"logsumexp_0d", [](const Tensor& x) { return x.logsumexp({0}); }, [] { return rnd({}); }},
      {"cumsum", [](const Tensor& x) { return x.cumsum(1); }, r43, tr},
      {"cumsum_neg", [](const Tensor& x) { return x.cumsum(-2); },
       [] {
         return rnd({2, 3, 4});
       }},
      {"cumsum_0d", [](const Tensor& x) { return x.cumsum(0); }, [] { return rnd({}); }},
      {"cumsum_dtype", [](const Tensor& x) { return x.cumsum(0, kDouble); },
       [] { return rnd({4}); }},
  });
}

TEST(ReduceGrad, LogsumexpIsStable) {
  // exp(1000) overflows; the gradient is the softmax and stays finite.
  Tensor a = leaf({1000, 1000, 999});
  a.logsumexp({0}).backward();
  auto g = values(a.grad());
  double e = std::exp(-1.0), s = 2 + e;
  EXPECT_NEAR(g[0], 1 / s, 1e-12);
  EXPECT_NEAR(g[2], e / s, 1e-12);
}

TEST(ReduceGrad, SortTopkGradcheck) {
  manual_seed(16);
  auto d34 = [] { return distinct({3, 4}); };
  check_cases({
      {"sort", [](const Tensor& x) { return std::get<0>(x.sort(1)); }, d34},
      {"sort_desc_neg", [](const Tensor& x) { return std::get<0>(x.sort(-2, true)); }, d34},
      {"sort_t", [](const Tensor& x) { return std::get<0>(x.t().sort(0)); }, d34},
      {"sort_0d", [](const Tensor& x) { return std::get<0>(x.sort(0)); }, [] { return rnd({}); }},
      {"topk", [](const Tensor& x) { return std::get<0>(x.topk(2, 1)); }, d34},
      {"topk_smallest", [](const Tensor& x) { return std::get<0>(x.topk(2, 0, false)); }, d34},
  });
  Tensor a = leaf({1, 5, 3});
  std::get<0>(a.topk(2)).backward(tensor(std::vector<double>{10, 20}, kDouble));
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 10, 20}));
}

TEST(ReduceGrad, EmptyInputs) {
  Tensor a = zeros({0, 3}, dtype(kDouble).requires_grad(true));
  a.sum({0}).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({0, 3}));
  Tensor b = zeros({2, 0}, dtype(kDouble).requires_grad(true));
  b.sum().backward();
  EXPECT_EQ(b.grad().sizes(), IntArrayRef({2, 0}));
  Tensor c = zeros({0}, dtype(kDouble).requires_grad(true));
  c.prod().backward();
  EXPECT_EQ(c.grad().numel(), 0);
  Tensor d = zeros({3, 0}, dtype(kDouble).requires_grad(true));
  d.mean({0}).sum().backward();
  EXPECT_EQ(d.grad().sizes(), IntArrayRef({3, 0}));
  Tensor e = zeros({2, 0}, dtype(kDouble).requires_grad(true));
  e.cumsum(1).sum().backward();
  EXPECT_EQ(e.grad().sizes(), IntArrayRef({2, 0}));
}

TEST(ReduceGrad, SumWithDtypeGivesGradientInInputDtype) {
  Tensor x = ones({2, 3}, dtype(kFloat).requires_grad(true));
  Tensor y = x.sum(kDouble);
  EXPECT_EQ(y.scalar_type(), kDouble);
  y.backward();
  EXPECT_EQ(x.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(x.grad()), std::vector<double>(6, 1.0));
  Tensor z = ones({3}, dtype(kFloat).requires_grad(true));
  z.cumsum(0, kDouble).sum().backward();
  EXPECT_EQ(z.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(z.grad()), (std::vector<double>{3, 2, 1}));
}

TEST(ReduceGrad, NodeNamesAsPyTorch) {
  Tensor x = rnd({3, 4});
  auto name = [](const Tensor& t) {
    return t.grad_fn() ? t.grad_fn()->name() : std::string("none");
  };
  EXPECT_EQ(name(x.sum()), "SumBackward0");
  EXPECT_EQ(name(x.sum(kFloat)), "SumBackward0");
  EXPECT_EQ(name(x.sum({1})), "SumBackward1");
  EXPECT_EQ(name(x.sum({1}, true)), "SumBackward1");
  EXPECT_EQ(name(x.mean()), "MeanBackward0");
  EXPECT_EQ(name(x.mean({0})), "MeanBackward1");
  EXPECT_EQ(name(x.prod()), "ProdBackward0");
  EXPECT_EQ(name(x.prod(1)), "ProdBackward1");
  EXPECT_EQ(name(x.max()), "MaxBackward1");
  EXPECT_EQ(name(x.min()), "MinBackward1");
  EXPECT_EQ(name(std::get<0>(x.max(1))), "MaxBackward0");
  EXPECT_EQ(name(std::get<0>(x.min(1))), "MinBackward0");
  EXPECT_EQ(name(x.amax({1})), "AmaxBackward0");
  EXPECT_EQ(name(x.amin({1})), "AminBackward0");
  EXPECT_EQ(name(x.var()), "VarBackward0");
  EXPECT_EQ(name(x.var({1}, true)), "VarBackward0");
  EXPECT_EQ(name(x.std()), "StdBackward0");
  EXPECT_EQ(name(x.std({1}, true)), "StdBackward0");
  EXPECT_EQ(name(x.norm()), "NormBackward0");
  EXPECT_EQ(name(x.norm(1)), "NormBackward0");
  EXPECT_EQ(name(x.norm(2, {1})), "NormBackward1");
  EXPECT_EQ(name(x.logsumexp({1})), "LogsumexpBackward0");
  EXPECT_EQ(name(x.cumsum(1)), "CumsumBackward0");
  EXPECT_EQ(name(std::get<0>(x.sort(1))), "SortBackward0");
  EXPECT_EQ(name(std::get<0>(x.topk(2, 1))), "TopkBackward0");
  Tensor s = rnd({});
  EXPECT_EQ(name(s.sum()), "SumBackward0");
  EXPECT_EQ(name(std::get<0>(s.max(0))), "MaxBackward0");
  // One node per op: var's graph leads straight to the leaf.
  auto edges = x.var().grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].function->name(), "AccumulateGrad");
}

TEST(ReduceGrad, NonDifferentiableOutputsHaveNoGraph) {
  Tensor x = rnd({3, 4});
  for (const Tensor& t : {x.argmax(), x.argmin(1), x.argmax(0, true), x.all(), x.any(1),
                          std::get<1>(x.max(1)), std::get<1>(x.min(0)), std::get<1>(x.sort(1)),
                          std::get<1>(x.topk(2)), x.argsort(1), (x > 0).sum()}) {
    EXPECT_FALSE(t.requires_grad());
    EXPECT_EQ(t.grad_fn(), nullptr);
  }
}

TEST(ReduceGrad, NoGraphWithoutGrad) {
  Tensor x = rand({3, 4}, kDouble);
  EXPECT_EQ(x.sum().grad_fn(), nullptr);
  Tensor y = rnd({3, 4});
  {
    NoGradGuard no_grad;
    EXPECT_EQ(y.sum().grad_fn(), nullptr);
    EXPECT_EQ(y.var().grad_fn(), nullptr);
    EXPECT_FALSE(y.norm().requires_grad());
  }
}

// ---- Classic scenarios ------------------------------------------------------------------

TEST(ReduceGrad, SquareSumGivesTwoX) {
  Tensor x = tensor(std::vector<double>{1, -2, 3.5}, kDouble).requires_grad_();
  Tensor y = (x * x).sum();
  y.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, -4, 7}));
  EXPECT_EQ(y.item<double>(), 1 + 4 + 12.25);
}

TEST(ReduceGrad, BranchesAccumulate) {
  // x used twice: d/dx (sum(x * 2) + sum(x * x) + mean(x)) = 2 + 2x + 1/n.
  Tensor x = tensor(std::vector<double>{1, 2, 3, 4}, kDouble).requires_grad_();
  Tensor y = (x * 2).sum() + (x * x).sum() + x.mean();
  y.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{4.25, 6.25, 8.25, 10.25}));
  // A second backward accumulates into .grad.
  (x * 3).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{7.25, 9.25, 11.25, 13.25}));
}

TEST(ReduceGrad, DiamondGraph) {
  // a feeds b and c, which meet again in d: the gradients of both paths add up.
  Tensor x = rnd({2, 3});
  Tensor a = x * 3;
  Tensor d = (a.sum({1}) * a.amax({1})).sum();
  d.backward();
  auto fn = [](const variable_list& in) {
    Tensor a = in[0] * 3;
    return variable_list{(a.sum({1}) * a.amax({1})).sum()};
  };
  EXPECT_NO_THROW(gradcheck(fn, {x}));
}

TEST(ReduceGrad, SecondDerivativeOfSum) {
  // d2/dx2 sum(x^3) = 6x, through SumBackward0 with create_graph.
  Tensor x = tensor(std::vector<double>{1, -2, 0.5}, kDouble).requires_grad_();
  Tensor y = x.pow(3).sum();
  Tensor g = autograd::grad({y}, {x}, {}, true, true)[0];
  EXPECT_EQ(values(g), (std::vector<double>{3, 12, 0.75}));
  Tensor h = autograd::grad({g.sum()}, {x})[0];
  EXPECT_EQ(values(h), (std::vector<double>{6, -12, 3}));
}

TEST(ReduceGrad, SmallMlpMatchesFiniteDifferences) {
  // loss = mean(relu(x W1^T + b1) W2^T + b2)^2 summed: matmul, relu and reductions.
  manual_seed(17);
  Tensor x = rand({5, 4}, kDouble);
  Tensor w1 = rnd({6, 4}), b1 = rnd({6}), w2 = rnd({3, 6}), b2 = rnd({3});
  auto fn = [&](const variable_list& p) {
    Tensor h = (x.matmul(p[0].t()) + p[1]).relu();
    Tensor out = h.matmul(p[2].t()) + p[3];
    return variable_list{(out * out).sum({1}).mean()};
  };
  EXPECT_NO_THROW(gradcheck(fn, {w1, b1, w2, b2}));
  EXPECT_NO_THROW(gradgradcheck(fn, {w1, b1, w2, b2}));
  // And the same loss through backward() into .grad.
  fn({w1, b1, w2, b2})[0].backward();
  EXPECT_EQ(w1.grad().sizes(), w1.sizes());
  EXPECT_EQ(b2.grad().sizes(), b2.sizes());
}

TEST(ReduceGrad, ModifiedSavedInputIsDetected) {
  Tensor x = rnd({2, 3});
  Tensor x2 = x * 1;
  Tensor y = x2.prod();
  x2.mul_(2);
  nabla::testing::expect_error([&] { y.backward(); }, {"ProdBackward0", "inplace"});
  // sum saves nothing, so modifying its input afterwards is fine.
  Tensor x3 = x * 1;
  Tensor s = x3.sum();
  x3.mul_(2);
  EXPECT_NO_THROW(s.backward());
}

TEST(ReduceGrad, BracedDimListPicksTheDimsOverload) {
  // x.var({1}) reduces dim 1, as LibTorch, rather than binding var(bool unbiased).
  Tensor a = tensor(std::vector<double>{1, 1, 1, 2}, kDouble).view({2, 2}).requires_grad_();
  EXPECT_EQ(a.var({1}).sizes(), IntArrayRef({2}));
  EXPECT_EQ(a.std({1}).sizes(), IntArrayRef({2}));
  EXPECT_EQ(nabla::var(a, {1}).sizes(), IntArrayRef({2}));
  EXPECT_EQ(nabla::std(a, {0}).sizes(), IntArrayRef({2}));
  EXPECT_EQ(a.var().dim(), 0);
  EXPECT_EQ(a.var(false).dim(), 0);
  a.std({1}).sum().backward();
  EXPECT_EQ(values(a.grad())[0], 0);  // the constant row
}
