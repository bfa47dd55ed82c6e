// Gradients of the reductions, what the op table (tests/conformance/table_reductions.cpp,
// first and second derivatives in float64 against LibTorch and finite differences) cannot
// say: a gradient left undefined (as LibTorch leaves it), empty inputs, the gradient's
// dtype, one node per op, outputs without a graph, no_grad, a modified saved input, and
// which overload a braced dim list picks.
#include <nabla/autograd/autograd.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::rnd;
using nabla::testing::values;

namespace {

Tensor leaf(std::initializer_list<double> v) {
  return tensor(std::vector<double>(v), kDouble).requires_grad_();
}

}  // namespace

// p = 0 counts nonzeros: no gradient at all (LibTorch leaves grad undefined; the table
// reads an undefined gradient as zeros).
TEST(ReduceGrad, NormZeroLeavesGradUndefined) {
  Tensor c = leaf({1, -3, 0});
  c.norm(0).backward();
  EXPECT_FALSE(c.grad().defined());
}

// The table skips gradient checks of empty inputs.
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

// The table differentiates in float64 only.
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

// One node per op: var's graph leads straight to the leaf (the table compares the top node's
// name only).
TEST(ReduceGrad, OneNodePerOp) {
  Tensor x = rnd({3, 4});
  auto edges = x.var().grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].function->name(), "AccumulateGrad");
}

// The table skips integer and bool outputs instead of checking they have no graph.
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

// C++ overload resolution, of the free functions too (the table calls methods).
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
