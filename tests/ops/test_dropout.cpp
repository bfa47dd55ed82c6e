// Dropout, what the op table cannot say (the table checks masks and scaling;
// tests/libtorch/test_random_streams.cpp compares the masks with LibTorch's bit for bit):
// reproducibility from manual_seed, aliasing in eval mode, moments, F:: spellings,
// in-place forms, gradients of a fixed mask, messages.
#include <cmath>

#include "test_util.h"

using namespace nabla;
namespace F = nabla::nn::functional;
using autograd::variable_list;
using nabla::testing::expect_error;
using nabla::testing::name_of;
using nabla::testing::rnd;
using nabla::testing::values;

TEST(Dropout, ReproducibleFromSeed) {
  Tensor x = randn({50, 40});
  manual_seed(7);
  Tensor a = dropout(x, 0.5, true);
  manual_seed(7);
  Tensor b = dropout(x, 0.5, true);
  EXPECT_TRUE(a.equal(b));
  Tensor c = dropout(x, 0.5, true);  // the stream moved on
  EXPECT_FALSE(a.equal(c));
}

// Eval mode and p = 0 return the input itself (the table compares values only); an empty
// input in training mode (the table's random entries take large inputs).
TEST(Dropout, EdgeCases) {
  Tensor x = randn({4, 5});
  EXPECT_TRUE(dropout(x, 0.5, false).is_same(x));  // eval: the input itself
  EXPECT_TRUE(dropout(x, 0.0, true).is_same(x));
  EXPECT_EQ(dropout(randn({0, 3}), 0.5, true).sizes(), IntArrayRef({0, 3}));
}

// The fraction of channels dropped; dropout2d on unbatched input drops along dim 0.
TEST(Dropout, FeatureDropoutDropsWholeChannels) {
  manual_seed(3);
  Tensor x = rand({16, 32, 4, 4}) + 0.5;
  Tensor y = feature_dropout(x, 0.5, true);
  Tensor dropped = (y == 0).to(kDouble).mean({2, 3});
  EXPECT_NEAR(dropped.mean().item<double>(), 0.5, 0.1);
  // F::dropout2d on batched and unbatched input; dropout3d.
  EXPECT_EQ(F::dropout2d(x, F::Dropout2dFuncOptions().p(0.2)).sizes(), x.sizes());
  Tensor u = F::dropout2d(rand({8, 3, 3}) + 0.5, F::Dropout2dFuncOptions().p(0.5));
  Tensor ud = (u == 0).to(kDouble).mean({1, 2});
  for (double v : values(ud)) EXPECT_TRUE(v == 0 || v == 1);
  EXPECT_EQ(F::dropout3d(rand({2, 3, 2, 2, 2}), F::Dropout3dFuncOptions().p(0.5)).sizes(),
            IntArrayRef({2, 3, 2, 2, 2}));
  expect_error([] { feature_dropout(randn({5}), 0.5, true); }, {"feature_dropout", "2 dimensions"});
}

TEST(Dropout, AlphaDropoutKeepsMoments) {
  manual_seed(5);
  Tensor x = randn({400, 250}, kDouble);
  Tensor y = alpha_dropout(x, 0.2, true);
  EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(y.std().item<double>(), 1.0, 0.02);
  Tensor f = feature_alpha_dropout(randn({64, 64, 8}, kDouble), 0.3, true);
  EXPECT_NEAR(f.mean().item<double>(), 0.0, 0.1);
  EXPECT_TRUE(F::alpha_dropout(x).is_same(x));  // training defaults to false
  EXPECT_FALSE(F::alpha_dropout(x, F::AlphaDropoutFuncOptions().training(true)).equal(x));
  EXPECT_FALSE(F::feature_alpha_dropout(randn({4, 3, 2}),
                                        F::FeatureAlphaDropoutFuncOptions().p(0.5).training(true))
                   .equal(zeros({4, 3, 2})));
}

TEST(Dropout, InplaceAndFunctional) {
  manual_seed(2);
  Tensor x = ones({100});
  Tensor r = F::dropout(x, F::DropoutFuncOptions().p(0.5).inplace(true));
  EXPECT_TRUE(r.is_same(x));
  for (double v : values(x)) EXPECT_TRUE(v == 0 || v == 2);
  Tensor y = ones({100});
  dropout_(y, 0.5, false);
  EXPECT_TRUE(y.equal(ones({100})));
  Tensor z = ones({4, 6, 3});
  F::dropout2d(z, F::Dropout2dFuncOptions().p(0.5).inplace(true));
  for (double v : values((z == 0).to(kDouble).mean({2}))) EXPECT_TRUE(v == 0 || v == 1);
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  // In place on a graph value keeps the mask in the gradient.
  Tensor leaf = ones({50}, kDouble).requires_grad_();
  Tensor h = leaf * 3;
  manual_seed(9);
  dropout_(h, 0.5, true);
  h.sum().backward();
  for (int64_t i = 0; i < 50; ++i)
    EXPECT_DOUBLE_EQ(leaf.grad()[i].item<double>(), h[i].item<double>() == 0 ? 0.0 : 6.0);
}

// Derivatives through a random mask, reseeded per call (the table differentiates the
// deterministic cases only), and the node LibTorch records on the CPU.
TEST(Dropout, Gradients) {
  Tensor x = rnd({3, 4});
  EXPECT_EQ(name_of(dropout(x, 0.5, true)), "MulBackward0");  // LibTorch on the CPU
  for (auto f : std::vector<std::function<Tensor(const Tensor&)>>{
           [](const Tensor& t) { return dropout(t, 0.4, true); },
           [](const Tensor& t) {
             return feature_dropout(t.view({3, 2, 2}), 0.4, true);
           },
           [](const Tensor& t) { return alpha_dropout(t, 0.4, true); },
           [](const Tensor& t) { return dropout(t, 1.0, true); }}) {
    // The same mask on every call: reseed inside the function.
    auto g = [&](const variable_list& in) -> variable_list {
      manual_seed(11);
      return {f(in[0])};
    };
    EXPECT_TRUE(autograd::gradcheck(g, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(g, {x}));
  }
  // Backward is the mask multiply: grad = y / x elementwise.
  manual_seed(4);
  Tensor a = (rand({20}, kDouble) + 1).requires_grad_();
  Tensor y = dropout(a, 0.5, true);
  y.sum().backward();
  for (int64_t i = 0; i < 20; ++i)
    EXPECT_NEAR(a.grad()[i].item<double>(), y[i].item<double>() / a[i].item<double>(), 1e-12);
}

// Messages beyond the op's name (the table's dropout_bad_p checks the name).
TEST(Dropout, Errors) {
  for (double p : {-0.1, 1.5}) {
    expect_error([p] { dropout(randn({3}), p, true); }, {"dropout", "between 0 and 1"});
    expect_error([p] { alpha_dropout(randn({3}), p, false); },
                 {"alpha_dropout", "between 0 and 1"});
    expect_error(
        [p] {
          F::dropout2d(randn({2, 3, 4}), F::Dropout2dFuncOptions().p(p));
        },
        {"dropout2d"});
  }
  expect_error([] { dropout(tensor({1, 2}), 0.5, true); }, {"dropout", "floating"});
  expect_error([] { dropout(Tensor(), 0.5, true); }, {"dropout"});
}
