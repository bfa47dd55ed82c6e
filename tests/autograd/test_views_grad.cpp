// Gradients of the view ops (views_reshape.cpp, views_transpose.cpp, views_select.cpp) and
// of in-place writes into views (Note [Views and in-place], views_backward.h): gradcheck /
// gradgradcheck against central differences in float64, node names as LibTorch 1.13 prints
// them, and the refused cases.
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

// One-input view op: the function, the input shape, the expected node name.
struct Case {
  const char* label;
  std::vector<int64_t> shape;
  std::function<Tensor(const Tensor&)> f;
  const char* node;
};

void check_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    Tensor x = rnd(c.shape);
    auto fn = [&](const variable_list& in) { return variable_list{c.f(in[0])}; };
    EXPECT_NO_THROW(gradcheck(fn, {x})) << c.label;
    EXPECT_NO_THROW(gradgradcheck(fn, {x})) << c.label;
    if (c.node) {
      EXPECT_EQ(name_of(c.f(x)), c.node) << c.label;
    }
  }
}

}  // namespace

TEST(ViewsGrad, ReshapingViews) {
  manual_seed(10);
  check_cases({
      {"view",
       {2, 3, 4},
       [](const Tensor& x) {
         return x.view({6, -1});
       },
       "ViewBackward0"},
      {"view_as", {2, 3}, [](const Tensor& x) { return x.view_as(x); }, "ViewBackward0"},
      {"view 0-d",
       {},
       [](const Tensor& x) {
         return x.view({1, 1});
       },
       "ViewBackward0"},
      {"reshape view",
       {2, 3, 4},
       [](const Tensor& x) {
         return x.reshape({4, 6});
       },
       "ReshapeAliasBackward0"},
      {"reshape copy",
       {2, 3, 4},
       [](const Tensor& x) { return x.transpose(0, 2).reshape({-1}); },
       "UnsafeViewBackward0"},
      {"reshape 0-d", {}, [](const Tensor& x) { return x.reshape({1}); }, "ReshapeAliasBackward0"},
      {"flatten", {2, 3, 4}, [](const Tensor& x) { return x.flatten(1); }, "ReshapeAliasBackward0"},
      {"flatten t", {3, 4}, [](const Tensor& x) { return x.t().flatten(); }, "UnsafeViewBackward0"},
      {"unflatten",
       {2, 6},
       [](const Tensor& x) {
         return x.unflatten(-1, {3, 2});
       },
       "ViewBackward0"},
      {"squeeze", {2, 1, 3, 1}, [](const Tensor& x) { return x.squeeze(); }, "SqueezeBackward0"},
      {"squeeze dim", {2, 1, 3}, [](const Tensor& x) { return x.squeeze(-2); }, "SqueezeBackward1"},
      {"squeeze non-1 dim",
       {2, 3},
       [](const Tensor& x) { return x.squeeze(0); },
       "SqueezeBackward1"},
      {"unsqueeze", {2, 3}, [](const Tensor& x) { return x.unsqueeze(-1); }, "UnsqueezeBackward0"},
      {"unsqueeze 0-d", {}, [](const Tensor& x) { return x.unsqueeze(0); }, "UnsqueezeBackward0"},
  });
  Tensor x = rnd({2, 3});
  // A reshape that copies is _unsafe_view(clone()), as in LibTorch.
  Tensor r = x.t().reshape({6});
  EXPECT_EQ(name_of(r), "UnsafeViewBackward0");
  EXPECT_EQ(r.grad_fn()->next_edges()[0].function->name(), "CloneBackward0");
  EXPECT_TRUE(x.flatten(1, 1).is_same(x));  // LibTorch returns the input itself
}

TEST(ViewsGrad, PermutingAndSlicingViews) {
  manual_seed(11);
  check_cases({
      {"transpose",
       {2, 3, 4},
       [](const Tensor& x) { return x.transpose(-1, 0); },
       "TransposeBackward0"},
      {"t", {2, 3}, [](const Tensor& x) { return x.t(); }, "TBackward0"},
      {"t 1-d", {3}, [](const Tensor& x) { return x.t(); }, "TBackward0"},
      {"permute",
       {2, 3, 4},
       [](const Tensor& x) {
         return x.permute({2, -3, 1});
       },
       "PermuteBackward0"},
      {"movedim", {2, 3, 4}, [](const Tensor& x) { return x.movedim(0, -1); }, "PermuteBackward0"},
      {"narrow", {4, 5}, [](const Tensor& x) { return x.narrow(1, -3, 2); }, "SliceBackward0"},
      {"narrow empty", {4, 5}, [](const Tensor& x) { return x.narrow(0, 1, 0); }, "SliceBackward0"},
      {"slice step",
       {7, 2},
       [](const Tensor& x) { return x.slice(0, 1, -1, 2); },
       "SliceBackward0"},
      {"select", {3, 4}, [](const Tensor& x) { return x.select(1, -1); }, "SelectBackward0"},
      {"operator[]", {3, 4}, [](const Tensor& x) { return x[1]; }, "SelectBackward0"},
      {"select of t",
       {3, 4},
       [](const Tensor& x) { return x.t().select(0, 2); },
       "SelectBackward0"},
      {"diagonal", {3, 4}, [](const Tensor& x) { return x.diagonal(); }, "DiagonalBackward0"},
      {"diagonal offset",
       {3, 4, 2},
       [](const Tensor& x) { return x.diagonal(1, 0, 1); },
       "DiagonalBackward0"},
      {"diagonal neg offset",
       {3, 4, 2},
       [](const Tensor& x) { return x.diagonal(-1, -1, 0); },
       "DiagonalBackward0"},
      {"index slice",
       {4, 3},
       [](const Tensor& x) {
         return x.index({indexing::Slice(1, 3), 0});
       },
       "SelectBackward0"},
  });
}

TEST(ViewsGrad, ExpandAndAsStrided) {
  manual_seed(12);
  check_cases({
      {"expand",
       {3, 1},
       [](const Tensor& x) {
         return x.expand({2, 3, 4});
       },
       "ExpandBackward0"},
      {"expand -1",
       {1, 3},
       [](const Tensor& x) {
         return x.expand({5, -1});
       },
       "ExpandBackward0"},
      {"expand same",
       {2, 3},
       [](const Tensor& x) {
         return x.expand({2, 3});
       },
       "ExpandBackward0"},
      {"expand 0-d", {}, [](const Tensor& x) { return x.expand({3}); }, "ExpandBackward0"},
      {"expand_as",
       {3},
       [](const Tensor& x) {
         return x.expand_as(ones({2, 3}));
       },
       "ExpandBackward0"},
      {"as_strided",
       {3, 4},
       [](const Tensor& x) {
         return x.as_strided({2, 2}, {1, 4}, 1);
       },
       "AsStridedBackward0"},
      {"as_strided of slice",
       {4, 4},
       [](const Tensor& x) {
         return x.slice(1, 1, 3).as_strided({3, 2}, {4, 1}, 5);
       },
       "AsStridedBackward0"},
      {"as_strided of t",
       {3, 4},
       [](const Tensor& x) {
         return x.t().as_strided({2, 3}, {1, 4});
       },
       "AsStridedBackward0"},
      // Output elements sharing an input element: their gradients add up.
      {"as_strided overlapping",
       {5},
       [](const Tensor& x) {
         return x.as_strided({3, 2}, {1, 1});
       },
       "AsStridedBackward0"},
  });
  Tensor x = rnd({4});
  x.as_strided({3, 2}, {1, 1}).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 2, 2, 1}));
  // The input of a differentiable as_strided must not overlap itself.
  Tensor e = rnd({3}).expand({2, 3});
  expect_error([&] { e.as_strided({3}, {1}); }, {"as_strided", "overlap"});
}

TEST(ViewsGrad, MultiOutputViews) {
  manual_seed(13);
  Tensor x = rnd({4, 5});
  struct Multi {
    const char* label;
    std::function<std::vector<Tensor>(const Tensor&)> f;
    const char* node;
  };
  std::vector<Multi> cases = {
      {"unbind", [](const Tensor& t) { return t.unbind(1); }, "UnbindBackward0"},
      {"unbind neg", [](const Tensor& t) { return t.unbind(-2); }, "UnbindBackward0"},
      {"split", [](const Tensor& t) { return t.split(2, -1); }, "SplitBackward0"},
      {"split_with_sizes",
       [](const Tensor& t) {
         return t.split_with_sizes({1, 3}, 0);
       },
       "SplitWithSizesBackward0"},
      {"split sizes",
       [](const Tensor& t) {
         return t.split(IntArrayRef{2, 0, 3}, 1);
       },
       "SplitWithSizesBackward0"},
      {"chunk", [](const Tensor& t) { return t.chunk(3, 1); }, "SplitBackward0"},
      {"free split", [](const Tensor& t) { return split(t.t(), 3, 0); }, "SplitBackward0"},
  };
  for (auto& c : cases) {
    auto fn = [&](const variable_list& in) { return c.f(in[0]); };
    EXPECT_NO_THROW(gradcheck(fn, {x})) << c.label;
    EXPECT_NO_THROW(gradgradcheck(fn, {x})) << c.label;
    auto outs = c.f(x);
    for (size_t i = 0; i < outs.size(); ++i) {
      EXPECT_EQ(name_of(outs[i]), c.node) << c.label;
      EXPECT_EQ(outs[i].output_nr(), i) << c.label;
      EXPECT_TRUE(outs[i].grad_fn() == outs[0].grad_fn()) << c.label;  // one node
    }
  }
  // Only some outputs used: the others count as zero.
  Tensor y = rnd({6});
  auto parts = y.split(2);
  (parts[1] * 3).sum().backward();
  EXPECT_EQ(values(y.grad()), (std::vector<double>{0, 0, 3, 3, 0, 0}));
}

TEST(ViewsGrad, InPlaceViewOps) {
  manual_seed(14);
  auto fn = [](const variable_list& in) {
    Tensor y = in[0] * 1;
    y.unsqueeze_(1);
    Tensor a = y.clone();
    a.squeeze_(-2);
    Tensor b = y.clone();
    b.squeeze_();
    return variable_list{y, a, b};
  };
  Tensor x = rnd({3, 1});
  EXPECT_NO_THROW(gradcheck(fn, {x}));
  EXPECT_NO_THROW(gradgradcheck(fn, {x}));
  Tensor y = x * 1;
  y.unsqueeze_(0);
  EXPECT_EQ(name_of(y), "UnsqueezeBackward1");
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 3, 1}));
  y.squeeze_(0);
  EXPECT_EQ(name_of(y), "SqueezeBackward3");
  y.squeeze_();
  EXPECT_EQ(name_of(y), "SqueezeBackward2");
  EXPECT_EQ(y.sizes(), IntArrayRef({3}));
  expect_error([&] { x.unsqueeze_(0); }, {"unsqueeze_", "leaf Variable that requires grad"});
  expect_error([&] { x.squeeze_(); }, {"squeeze_", "leaf"});
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 1}));  // unchanged by the refused op
  {
    NoGradGuard g;
    x.squeeze_();  // allowed without grad
  }
  EXPECT_EQ(x.sizes(), IntArrayRef({3}));
}

TEST(ViewsGrad, DetachHasNoGraph) {
  Tensor x = rnd({2, 3});
  Tensor d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_FALSE(d.view({6}).requires_grad());
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
}

TEST(ViewsGrad, ViewsUnderNoGradRecordNothing) {
  Tensor x = rnd({2, 3});
  NoGradGuard g;
  EXPECT_FALSE(x.view({6}).requires_grad());
  EXPECT_FALSE(x.t().requires_grad());
  EXPECT_FALSE(x.unbind(0)[0].requires_grad());
}

// ---- In-place writes into views (CopySlices) ----------------------------------------

TEST(ViewsGrad, InPlaceOnViewRewritesBaseHistory) {
  manual_seed(20);
  Tensor x = rnd({3, 4});
  auto fn = [](const variable_list& in) {
    // (Writes whose out-of-place form saves `self`, such as pow_ or mul_ by a tensor
    // that requires grad, fail at backward: the saved self was overwritten.)
    Tensor y = in[0] * 1;
    y[0].mul_(2);                                            // y[0] = 2 x[0]
    y.narrow(1, 1, 2).add_(in[0][2].narrow(0, 0, 2).exp());  // adds other elements of x
    y.select(1, 3).copy_(in[0].select(1, 0).sin());
    return variable_list{y * y};
  };
  EXPECT_NO_THROW(gradcheck(fn, {x}));
  EXPECT_NO_THROW(gradgradcheck(fn, {x}));

  Tensor y = x * 1;
  Tensor v = y[0];
  v.mul_(2);
  EXPECT_EQ(name_of(y), "torch::autograd::CopySlices");
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  EXPECT_EQ(v.grad_fn()->next_edges()[0].function, y.grad_fn());
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(ViewsGrad, CopyIntoViewRoutesGradientToSource) {
  manual_seed(21);
  Tensor x = rnd({3, 4}), z = rnd({2, 4});
  auto fn = [](const variable_list& in) {
    Tensor y = in[0] * in[0];
    y.narrow(0, 0, 2).copy_(in[1] * 3);  // rows 0-1 replaced: x gets nothing there
    return variable_list{y * y};
  };
  EXPECT_NO_THROW(gradcheck(fn, {x, z}));
  EXPECT_NO_THROW(gradgradcheck(fn, {x, z}));

  Tensor y = x * 1;
  y.narrow(0, 0, 2).copy_(z);
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(values(z.grad()), std::vector<double>(8, 1.0));
}

TEST(ViewsGrad, InPlaceOnViewOfBaseWithoutGrad) {
  manual_seed(22);
  Tensor z = rnd({3});
  auto fn = [](const variable_list& in) {
    Tensor y = zeros({2, 3}, kDouble);
    Tensor other = y[1];  // made before the write: must see it
    y[0].copy_(in[0]);
    other.copy_(in[0].exp());
    return variable_list{y * y, other};
  };
  EXPECT_NO_THROW(gradcheck(fn, {z}));
  EXPECT_NO_THROW(gradgradcheck(fn, {z}));
  Tensor y = zeros({2, 3}, kDouble);
  Tensor later = y.t();
  y[0].copy_(z);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(name_of(y), "torch::autograd::CopySlices");
  EXPECT_TRUE(later.requires_grad());  // a view made before the write follows the base
  (later * 2).sum().backward();
  EXPECT_EQ(values(z.grad()), (std::vector<double>{2, 2, 2}));
}

TEST(ViewsGrad, ViewsMadeBeforeAWriteFollowTheBase) {
  manual_seed(23);
  Tensor x = rnd({4});
  // A view of the base made before an in-place write through another view.
  auto fn1 = [](const variable_list& in) {
    Tensor y = in[0] * 1;
    Tensor v2 = y.narrow(0, 0, 2);
    y[0].mul_(3);
    return variable_list{v2 * 1};
  };
  EXPECT_NO_THROW(gradcheck(fn1, {x}));
  EXPECT_NO_THROW(gradgradcheck(fn1, {x}));
  // A view made before an in-place write on the base itself.
  auto fn2 = [](const variable_list& in) {
    Tensor y = in[0].sin();
    Tensor v = y[1];
    y.add_(in[0] * in[0]);
    return variable_list{v * 1};
  };
  EXPECT_NO_THROW(gradcheck(fn2, {x}));
  EXPECT_NO_THROW(gradgradcheck(fn2, {x}));
  Tensor y = x * 1;
  Tensor v = y[0];
  y.mul_(2);
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  v.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, 0, 0, 0}));
}

TEST(ViewsGrad, FillAndZeroOnViews) {
  manual_seed(24);
  Tensor x = rnd({2, 3});
  auto fn = [](const variable_list& in) {
    Tensor y = in[0] * in[0];
    y.select(1, 0).fill_(2.5);
    y[1].narrow(0, 1, 1).zero_();
    return variable_list{y};
  };
  EXPECT_NO_THROW(gradcheck(fn, {x}));
  EXPECT_NO_THROW(gradgradcheck(fn, {x}));
}

TEST(ViewsGrad, RefusedInPlaceWrites) {
  Tensor x = rnd({2, 3});
  expect_error([&] { x[0].mul_(2); }, {"mul_", "a view of a leaf Variable that requires grad"});
  expect_error([&] { x.t().copy_(zeros({3, 2}, kDouble)); }, {"copy_", "view of a leaf"});
  expect_error([&] { x.narrow(0, 0, 1).fill_(1); }, {"fill_", "view of a leaf"});
  {
    NoGradGuard g;
    x[0].mul_(2);  // fine without grad
  }
  // A view made under no_grad of a tensor that requires grad, written with grad on.
  Tensor y = x * 1;
  Tensor v;
  {
    NoGradGuard g;
    v = y[0];
  }
  expect_error([&] { v.mul_(2); }, {"mul_", "created in no_grad mode"});
  expect_error([&] { v.copy_(x[1]); }, {"copy_", "created in no_grad mode"});
  // Outputs of split / unbind may not be written with grad.
  expect_error([&] { y.split(1, 0)[0].mul_(2); }, {"mul_", "SplitBackward0", "multiple views"});
  expect_error([&] { y.unbind(1)[2].add_(1); }, {"add_", "UnbindBackward0"});
  expect_error([&] { y.chunk(2, 1)[1].zero_(); }, {"zero_", "SplitBackward0"});
  // Writing an expanded view: several elements share memory.
  Tensor e = (x * 1).select(0, 0).expand({4, 3});
  expect_error([&] { e.copy_(ones({4, 3}, kDouble)); }, {"copy_", "single memory location"});
}
