// Gradients of the copying shape ops and of clone / contiguous / to / copy_ / fill_, what
// the op table (table_views_grad.cpp, table_shape_index.cpp: values, first and second
// derivatives in float64, node names of ops called by name) cannot say: results that are
// the input itself, gradients in each input's own dtype, inputs without grad getting no
// edge, the nodes of in-place writes, refused writes, a modified saved tensor.
#include <nabla/autograd/autograd.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;

// contiguous() of a contiguous tensor and to() its own dtype return it; an integral result
// carries no gradient.
TEST(ShapeGrad, IdentitiesAndIntegralResults) {
  Tensor x = rnd({2, 3});
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_TRUE(x.to(kDouble).is_same(x));
  EXPECT_FALSE(x.to(kLong).requires_grad());
}

// Promotion: each input gets its gradient in its own dtype (the table differentiates in
// float64 only); inputs without grad get no edge.
TEST(ShapeGrad, CatAndStackGradientDtypes) {
  Tensor a = rnd({2}), b = ones({3}, kFloat).requires_grad_();
  Tensor c = cat({a, b});
  EXPECT_EQ(c.scalar_type(), kDouble);
  (c * arange(5, kDouble)).sum().backward();
  EXPECT_EQ(a.grad().scalar_type(), kDouble);
  EXPECT_EQ(b.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{2, 3, 4}));
  Tensor s = stack({b, a.narrow(0, 0, 1).expand({3})});
  s.sum().backward();
  EXPECT_EQ(b.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(a.grad()), (std::vector<double>{3, 1}));
  Tensor d = cat({a, zeros({2}, kDouble)});
  EXPECT_FALSE(d.grad_fn()->next_edges()[1].is_valid());
}

// The nodes of in-place writes (not called by name in the table, so their names are only
// listed there), copy_ converting its source's gradient back, and refused writes.
TEST(ShapeGrad, CopyFillZeroInPlace) {
  Tensor x = rnd({3});
  Tensor y = zeros({2, 3}, kFloat);
  y.copy_(x);
  EXPECT_EQ(name_of(y), "torch::autograd::CopyBackwards");
  y.sum().backward();
  EXPECT_EQ(x.grad().scalar_type(), kDouble);
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, 2, 2}));

  Tensor w = rnd({2, 2});
  Tensor h = w * 3;
  h.fill_(1.5);
  EXPECT_EQ(name_of(h), "FillBackward2");
  Tensor h2 = w * 3;
  h2.fill_(scalar_tensor(2.0, kDouble));
  EXPECT_EQ(name_of(h2), "FillBackward3");
  Tensor h3 = w * 3;
  h3.zero_();
  EXPECT_EQ(name_of(h3), "ZeroBackward0");
  (h + h2 + h3 + w).sum().backward();
  EXPECT_EQ(values(w.grad()), std::vector<double>(4, 1.0));  // only through `+ w`
  // fill_ with a tensor: the value gets the sum of the gradient.
  Tensor v = rnd({});
  Tensor k = zeros({2, 3}, kDouble);
  k.fill_(v);
  (k * 2).sum().backward();
  EXPECT_DOUBLE_EQ(v.grad().item<double>(), 12.0);

  // Refused: in-place on a leaf that requires grad.
  expect_error(
      [&] {
        w.copy_(ones({2, 2}, kDouble));
      },
      {"copy_", "leaf Variable that requires grad"});
  expect_error([&] { w.fill_(1); }, {"fill_", "leaf"});
  expect_error([&] { w.zero_(); }, {"zero_", "leaf"});
  {
    NoGradGuard g;
    w.zero_();  // fine under no_grad
  }
  EXPECT_EQ(values(w), std::vector<double>(4, 0.0));
  // Writes without grad record nothing.
  Tensor plain = zeros({2});
  plain.fill_(3);
  EXPECT_TRUE(plain.is_leaf());
  EXPECT_FALSE(plain.requires_grad());
}

// Version counters: an in-place write after a save is caught at backward.
TEST(ShapeGrad, SavedTensorModifiedInPlaceIsAnError) {
  Tensor x = rnd({3});
  Tensor y = x * 1;
  Tensor z = y.exp();  // saves its output
  z.copy_(ones({3}, kDouble));
  Tensor e = y * 1;
  Tensor u = (x * 2).sin();  // saves x*2
  EXPECT_NO_THROW(e.sum().backward());
  Tensor a = x * 2;
  Tensor s = a.sin();
  a.zero_();
  expect_error([&] { s.sum().backward(); }, {"modified by an inplace operation"});
}
