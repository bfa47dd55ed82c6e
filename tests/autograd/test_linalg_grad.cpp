// Gradients of the linear algebra ops, what the op table (tests/conformance/table_linalg.cpp,
// values and first and second derivatives in float64) cannot say: the graph matmul and
// linear build, inputs without grad getting no edge, gradients of empty operands and in
// float32, addmm_ on a leaf and its version counter, a modified saved operand.
#include <nabla/autograd/autograd.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;

// N-d @ 2-d folds the batch into one product (an mm under the view); N-d @ N-d is a bmm;
// linear transposes its weight first, as LibTorch.
TEST(LinalgGrad, GraphAsLibTorch) {
  Tensor n = rnd({4, 5}), b3 = rnd({2, 3, 4}), c3 = rnd({2, 4, 5});
  EXPECT_EQ(b3.matmul(n).grad_fn()->next_edges()[0].function->name(), "MmBackward0");
  EXPECT_EQ(b3.matmul(c3).grad_fn()->next_edges()[0].function->name(), "BmmBackward0");
  Tensor x = rnd({3, 4}), w = rnd({5, 4}), bias = rnd({5});
  EXPECT_EQ(linear(x, w, bias).grad_fn()->next_edges()[2].function->name(), "TBackward0");
}

TEST(LinalgGrad, AddmmInPlace) {
  manual_seed(23);
  Tensor s = rnd({3, 5}), a = rnd({3, 4}), b = rnd({4, 5});
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

// The table skips gradient checks of empty inputs and differentiates in float64 only.
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
