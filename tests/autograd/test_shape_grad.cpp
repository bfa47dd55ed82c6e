// Gradients of the copying shape ops and of clone / contiguous / to / copy_ / fill_
// (shape_ops.cpp, shape_join.cpp, tensor_basics.cpp): gradcheck / gradgradcheck in
// float64, node names as LibTorch 1.13 prints them, dtype of gradients across promotions,
// refused in-place writes.
#include <nabla/autograd/autograd.h>
#include <nabla/autograd/gradcheck.h>

#include "test_util.h"

using namespace nabla;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using nabla::testing::expect_error;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;

namespace {

struct Case {
  const char* label;
  std::vector<std::vector<int64_t>> shapes;
  std::function<Tensor(const variable_list&)> f;
  const char* node;
};

void check_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    variable_list in;
    for (const auto& s : c.shapes) in.push_back(rnd(s));
    auto fn = [&](const variable_list& xs) { return variable_list{c.f(xs)}; };
    EXPECT_NO_THROW(gradcheck(fn, in)) << c.label;
    EXPECT_NO_THROW(gradgradcheck(fn, in)) << c.label;
    if (c.node) {
      EXPECT_EQ(name_of(c.f(in)), c.node) << c.label;
    }
  }
}

}  // namespace

TEST(ShapeGrad, CopiesAndConversions) {
  manual_seed(30);
  check_cases({
      {"clone", {{2, 3}}, [](const variable_list& x) { return x[0].clone(); }, "CloneBackward0"},
      {"contiguous of t",
       {{2, 3}},
       [](const variable_list& x) { return x[0].t().contiguous(); },
       "CloneBackward0"},
      {"to copy",
       {{3}},
       [](const variable_list& x) { return x[0].to(kDouble, false, true); },
       "ToCopyBackward0"},
  });
  Tensor x = rnd({2, 3});
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_TRUE(x.to(kDouble).is_same(x));
  Tensor f = x.to(kFloat);
  EXPECT_EQ(name_of(f), "ToCopyBackward0");
  (f * 2).sum().backward();
  EXPECT_EQ(x.grad().scalar_type(), kDouble);  // cast back to the input dtype
  EXPECT_EQ(values(x.grad()), std::vector<double>(6, 2.0));
  EXPECT_FALSE(x.to(kLong).requires_grad());  // integral results carry no gradient
}

TEST(ShapeGrad, CatAndStack) {
  manual_seed(31);
  check_cases({
      {"cat 0",
       {{2, 3}, {1, 3}},
       [](const variable_list& x) {
         return cat({x[0], x[1]});
       },
       "CatBackward0"},
      {"cat -1 three",
       {{2, 1}, {2, 3}, {2, 0}},
       [](const variable_list& x) {
         return cat({x[0], x[1], x[2]}, -1);
       },
       "CatBackward0"},
      {"cat non-contiguous",
       {{3, 2}, {2, 2}},
       [](const variable_list& x) {
         return cat({x[0].t(), x[1]}, 1);
       },
       "CatBackward0"},
      {"cat with legacy empty",
       {{2, 3}, {0}},
       [](const variable_list& x) {
         return cat({x[1], x[0]}, 1);
       },
       "CatBackward0"},
      {"cat one", {{2}}, [](const variable_list& x) { return cat({x[0]}); }, "CatBackward0"},
      {"stack",
       {{2, 3}, {2, 3}},
       [](const variable_list& x) {
         return stack({x[0], x[1]}, 1);
       },
       "StackBackward0"},
      {"stack -1",
       {{2, 3}, {2, 3}},
       [](const variable_list& x) {
         return stack({x[0], x[1]}, -1);
       },
       "StackBackward0"},
      {"stack 0-d",
       {{}, {}},
       [](const variable_list& x) {
         return stack({x[0], x[1]});
       },
       "StackBackward0"},
      {"hstack",
       {{2, 3}, {2, 1}},
       [](const variable_list& x) {
         return hstack({x[0], x[1]});
       },
       "CatBackward0"},
      {"hstack 0-d",
       {{}, {}},
       [](const variable_list& x) {
         return hstack({x[0], x[1]});
       },
       "CatBackward0"},
      {"vstack 1-d",
       {{3}, {3}},
       [](const variable_list& x) {
         return vstack({x[0], x[1]});
       },
       "CatBackward0"},
  });
  // Promotion: each input gets its gradient in its own dtype.
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
  // Inputs without grad get none.
  Tensor d = cat({a, zeros({2}, kDouble)});
  EXPECT_FALSE(d.grad_fn()->next_edges()[1].is_valid());
}

TEST(ShapeGrad, RepeatFlipRollTriangles) {
  manual_seed(32);
  check_cases({
      {"repeat",
       {{2, 3}},
       [](const variable_list& x) {
         return x[0].repeat({2, 1, 3});
       },
       "RepeatBackward0"},
      {"repeat t",
       {{2, 3}},
       [](const variable_list& x) {
         return x[0].t().repeat({2, 2});
       },
       "RepeatBackward0"},
      {"repeat zero",
       {{2}},
       [](const variable_list& x) {
         return x[0].repeat({0, 2});
       },
       "RepeatBackward0"},
      {"repeat 0-d",
       {{}},
       [](const variable_list& x) { return x[0].repeat({}); },
       "RepeatBackward0"},
      {"flip",
       {{2, 3, 4}},
       [](const variable_list& x) {
         return x[0].flip({0, -1});
       },
       "FlipBackward0"},
      {"roll dims",
       {{3, 4}},
       [](const variable_list& x) {
         return x[0].roll({1, -5}, {0, 1});
       },
       "RollBackward0"},
      {"roll flat",
       {{3, 4}},
       [](const variable_list& x) { return x[0].t().roll({5}); },
       "RollBackward0"},
      {"tril", {{3, 4}}, [](const variable_list& x) { return tril(x[0]); }, "TrilBackward0"},
      {"tril batch",
       {{2, 3, 3}},
       [](const variable_list& x) { return tril(x[0], -1); },
       "TrilBackward0"},
      {"triu", {{4, 3}}, [](const variable_list& x) { return triu(x[0], 1); }, "TriuBackward0"},
  });
}

TEST(ShapeGrad, PaddingBroadcastMeshgrid) {
  manual_seed(33);
  check_cases({
      {"pad",
       {{2, 3}},
       [](const variable_list& x) {
         return constant_pad_nd(x[0], {1, 2, 0, 1}, 5);
       },
       "ConstantPadNdBackward0"},
      {"pad negative",
       {{3, 4}},
       [](const variable_list& x) {
         return constant_pad_nd(x[0], {-1, 2, -2, 0});
       },
       "ConstantPadNdBackward0"},
      {"pad crop all",
       {{2, 2}},
       [](const variable_list& x) {
         return constant_pad_nd(x[0], {-2, 1});
       },
       "ConstantPadNdBackward0"},
      {"broadcast_tensors",
       {{3, 1}, {4}},
       [](const variable_list& x) {
         auto r = broadcast_tensors({x[0], x[1]});
         return r[0] * r[1];
       },
       "MulBackward0"},
      {"meshgrid",
       {{3}, {2}},
       [](const variable_list& x) {
         auto g = meshgrid({x[0], x[1]}, "xy");
         return g[0] * g[1].exp();
       },
       "MulBackward0"},
  });
  Tensor a = rnd({3, 1}), b = rnd({4});
  auto r = broadcast_tensors({a, b, rnd({3, 4})});
  EXPECT_EQ(name_of(r[0]), "ExpandBackward0");
  EXPECT_EQ(name_of(r[1]), "ExpandBackward0");
  EXPECT_EQ(name_of(r[2]), "none");  // already the broadcast shape: returned itself
  auto m = meshgrid({rnd({3}), rnd({2})});
  EXPECT_EQ(name_of(m[0]), "ExpandBackward0");
  EXPECT_EQ(name_of(m[1]), "ExpandBackward0");
}

TEST(ShapeGrad, RepeatInterleaveComposite) {
  manual_seed(34);
  Tensor x = rnd({2, 3});
  // Composite over index_select, as LibTorch (IndexSelectBackward0).
  Tensor y = repeat_interleave(x, 2, 1);
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>(6, 2.0));
  Tensor z = repeat_interleave(x, 3);
  (z * 2).sum().backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>(6, 8.0));
}

TEST(ShapeGrad, CopyFillZeroInPlace) {
  manual_seed(35);
  // copy_ broadcasts and converts src; self's old value gets no gradient.
  check_cases({
      {"copy_",
       {{2, 3}, {3}},
       [](const variable_list& x) {
         Tensor y = x[0] * x[0];
         y.copy_(x[1].exp());
         return y * x[0];
       },
       "MulBackward0"},
      {"fill_ tensor",
       {{2, 3}, {}},
       [](const variable_list& x) {
         Tensor y = x[0] * 2;  // (exp would save its output, which fill_ overwrites)
         y.fill_(x[1] * 2);
         return y * x[0];
       },
       "MulBackward0"},
  });
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
