// Gradients of the view ops and of in-place writes into views (Note [Views and in-place],
// shape/views_backward.h), what the op table (table_views_grad.cpp, table_factories_views.cpp:
// values, strides, first and second derivatives, node names) cannot say: the graph behind
// the top node, which results are the input itself, in-place view ops (unsqueeze_,
// squeeze_), detach and no_grad, views made before a write, and the refused writes.
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

// A reshape that copies is _unsafe_view(clone()), as in LibTorch; a flatten of one dim
// returns the input itself.
TEST(ViewsGrad, ReshapeGraphAndIdentity) {
  Tensor x = rnd({2, 3});
  Tensor r = x.t().reshape({6});
  EXPECT_EQ(name_of(r), "UnsafeViewBackward0");
  EXPECT_EQ(r.grad_fn()->next_edges()[0].function->name(), "CloneBackward0");
  EXPECT_TRUE(x.flatten(1, 1).is_same(x));  // LibTorch returns the input itself
}

// The input of a differentiable as_strided must not overlap itself.
TEST(ViewsGrad, AsStridedOfOverlappingInputIsRefused) {
  Tensor e = rnd({3}).expand({2, 3});
  expect_error([&] { e.as_strided({3}, {1}); }, {"as_strided", "overlap"});
}

// One node for all outputs, each output its own output_nr; outputs left unused count as
// zero.
TEST(ViewsGrad, MultiOutputViews) {
  Tensor x = rnd({4, 5});
  struct Multi {
    const char* label;
    std::function<std::vector<Tensor>(const Tensor&)> f;
  };
  std::vector<Multi> cases = {
      {"unbind", [](const Tensor& t) { return t.unbind(1); }},
      {"split", [](const Tensor& t) { return t.split(2, -1); }},
      {"split_with_sizes",
       [](const Tensor& t) {
         return t.split_with_sizes({1, 3}, 0);
       }},
      {"chunk", [](const Tensor& t) { return t.chunk(3, 1); }},
  };
  for (auto& c : cases) {
    auto outs = c.f(x);
    for (size_t i = 0; i < outs.size(); ++i) {
      EXPECT_EQ(outs[i].output_nr(), i) << c.label;
      EXPECT_TRUE(outs[i].grad_fn() == outs[0].grad_fn()) << c.label;  // one node
    }
  }
  Tensor y = rnd({6});
  auto parts = y.split(2);
  (parts[1] * 3).sum().backward();
  EXPECT_EQ(values(y.grad()), (std::vector<double>{0, 0, 3, 3, 0, 0}));
}

// unsqueeze_ and squeeze_ change self's shape in place, with their own nodes, refused on a
// leaf that requires grad.
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

// As LibTorch: a view made under no_grad records no node, but reports requires_grad as its
// base does (a leaf), and a gradient reaching it goes nowhere.
TEST(ViewsGrad, ViewsUnderNoGradRecordNothing) {
  Tensor x = rnd({2, 3});
  Tensor v;
  {
    NoGradGuard g;
    v = x.view({6});
    EXPECT_TRUE(v.requires_grad());
    EXPECT_TRUE(x.t().requires_grad());
    EXPECT_TRUE(x.unbind(0)[0].requires_grad());
    EXPECT_FALSE(v.grad_fn());
  }
  EXPECT_TRUE(v.is_leaf());
  Tensor y = v * 2;
  EXPECT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_FALSE(v.grad().defined());
  EXPECT_FALSE(x.grad().defined());
  x.requires_grad_(false);
  EXPECT_FALSE(v.requires_grad());  // it follows its base
  Tensor plain = ones({2});
  NoGradGuard g;
  EXPECT_FALSE(plain.view({2}).requires_grad());
}

// ---- In-place writes into views (CopySlices) ----------------------------------------

// A write through a view makes the base's history CopySlices; the view's own node is
// regenerated from it.
TEST(ViewsGrad, InPlaceOnViewRewritesBaseHistory) {
  Tensor x = rnd({3, 4});
  Tensor y = x * 1;
  Tensor v = y[0];
  v.mul_(2);
  EXPECT_EQ(name_of(y), "torch::autograd::CopySlices");
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  EXPECT_EQ(v.grad_fn()->next_edges()[0].function, y.grad_fn());
}

// A base without grad takes the history of what is written into it, and a view made
// before the write follows the base.
TEST(ViewsGrad, InPlaceOnViewOfBaseWithoutGrad) {
  Tensor z = rnd({3});
  Tensor y = zeros({2, 3}, kDouble);
  Tensor later = y.t();
  y[0].copy_(z);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(name_of(y), "torch::autograd::CopySlices");
  EXPECT_TRUE(later.requires_grad());  // a view made before the write follows the base
  (later * 2).sum().backward();
  EXPECT_EQ(values(z.grad()), (std::vector<double>{2, 2, 2}));
}

// A view made before a write on its base is regenerated from the base's new history.
TEST(ViewsGrad, ViewsMadeBeforeAWriteFollowTheBase) {
  Tensor x = rnd({4});
  Tensor y = x * 1;
  Tensor v = y[0];
  y.mul_(2);
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  v.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{2, 0, 0, 0}));
}

// Writes autograd cannot record, with their messages.
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
