// Custom functions and retained gradients as LibTorch defines them: tensor-list
// arguments, dirty inputs, non-differentiable outputs keeping their slot, retain_grad
// across in-place ops, and the empty-inputs errors of grad and backward.
#include <nabla/nabla.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace nabla::testing {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

// (a, b) -> a + b + a * b, taking its inputs as one list.
struct ListSum : autograd::Function<ListSum> {
  static Tensor forward(AutogradContext* ctx, TensorList xs, double scale) {
    ctx->save_for_backward(variable_list(xs.begin(), xs.end()));
    ctx->saved_data["scale"] = scale;
    return (xs[0] + xs[1] + xs[0] * xs[1]) * scale;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto s = ctx->get_saved_variables();
    const double scale = ctx->saved_data["scale"].toDouble();
    // One gradient per list element, then one (none) for `scale`.
    return {g[0] * (1 + s[1]) * scale, g[0] * (1 + s[0]) * scale, Tensor()};
  }
};

TEST(FunctionSemantics, EachTensorOfAListArgumentIsAnInput) {
  Tensor a = rnd({3}), b = rnd({3});
  std::vector<Tensor> both = {a, b};
  ListSum::apply(TensorList(both), 2.0).sum().backward();
  EXPECT_TRUE(allclose(a.grad(), (1 + b.detach()) * 2));
  EXPECT_TRUE(allclose(b.grad(), (1 + a.detach()) * 2));
  auto f = [](const autograd::variable_list& in) -> autograd::variable_list {
    return {ListSum::apply(TensorList(in), 0.5)};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {rnd({4}), rnd({4})}));
}

struct DoubleInPlace : autograd::Function<DoubleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

TEST(FunctionSemantics, ADirtyInputGetsANewVersion) {
  Tensor x = rnd({2, 2}).clone();
  const auto before = x._version();
  Tensor y = DoubleInPlace::apply(x);
  EXPECT_GT(x._version(), before);
  Tensor leaf = ones({2}).requires_grad_();
  Tensor z = leaf.clone();
  DoubleInPlace::apply(z).sum().backward();
  EXPECT_TRUE(allclose(leaf.grad(), full({2}, 2.0)));
}

// Returns (input + 1, non-differentiable; input + 2).
struct MixedOutputs : autograd::Function<MixedOutputs> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    Tensor a = x + 1, b = x + 2;
    ctx->mark_non_differentiable({a});
    return {a, b};
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    // The non-differentiable output's gradient arrives as zeros in its own slot.
    EXPECT_TRUE(equal(g[0], zeros_like(g[1])));
    return {g[1] * 3};
  }
};

TEST(FunctionSemantics, NonDifferentiableOutputsKeepTheirSlot) {
  Tensor x = rnd({2, 3});
  auto out = MixedOutputs::apply(x);
  EXPECT_FALSE(out[0].requires_grad());
  EXPECT_TRUE(out[1].requires_grad());
  out[1].sum().backward();
  EXPECT_TRUE(allclose(x.grad(), full_like(x, 3.0)));
}

TEST(FunctionSemantics, RetainGradFollowsInPlaceOps) {
  Tensor a = ones({3}).requires_grad_().clone();
  int old_version_calls = 0;
  a.register_hook([&](const Tensor& g) {
    ++old_version_calls;
    EXPECT_TRUE(allclose(g, full({3}, 4.0)));
  });
  a.retain_grad();
  a.mul_(2);
  a.mul_(2);
  (a + 1).sum().backward();
  EXPECT_EQ(old_version_calls, 1);
  EXPECT_TRUE(a.retains_grad());
  EXPECT_TRUE(allclose(a.grad(), ones({3})));  // the newest version's gradient
}

TEST(FunctionSemantics, EmptyInputListsAreErrors) {
  Tensor x = ones({1}).requires_grad_();
  expect_error([&] { autograd::grad({x * 2}, {}, {x}); }, {"grad requires non-empty inputs"});
  Tensor z = x * x;
  expect_error([&] { z.backward(ones({1}), false, false, std::vector<Tensor>{}); },
               {"backward", "cannot be empty"});
  z.backward(ones({1}), false, false, std::vector<Tensor>{x});
  EXPECT_TRUE(allclose(x.grad(), full({1}, 2.0)));
}

// needs_input_grad over ranges of arguments, and UndefinedGrad's undefined gradients.
struct RangeCheck : autograd::Function<RangeCheck> {
  static Tensor forward(AutogradContext*, Tensor a, Tensor b) { return a * b; }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    EXPECT_TRUE(ctx->needs_input_grad({autograd::IndexRange{0, 1}}));
    EXPECT_FALSE(ctx->needs_input_grad({autograd::IndexRange{1, 2}}));
    EXPECT_TRUE(ctx->needs_input_grad({autograd::IndexRange{1, 2}, autograd::IndexRange{0, 1}}));
    return {g[0], Tensor()};
  }
};

TEST(FunctionSemantics, NeedsInputGradOverRangesAndUndefinedGrad) {
  Tensor a = rnd({2});
  RangeCheck::apply(a, ones({2}, kDouble)).sum().backward();
  EXPECT_TRUE(a.grad().defined());
  Tensor b = rnd({2});
  autograd::UndefinedGrad().apply({b * 2})[0].sum().backward();
  EXPECT_FALSE(b.grad().defined());
}

// Each backward starts another until x reaches 0: thousands of nested engine passes
// (Note [Reentrant backward]) without exhausting the stack.
struct DeepReentry : autograd::Function<DeepReentry> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    {
      AutoGradMode on(true);
      ctx->saved_data["x"] = autograd::make_variable(x.tensor_data(), true) - 1;
    }
    return ctx->saved_data["x"].toTensor().detach();
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    if (!native::is_nonzero(ctx->saved_data["x"].toTensor())) return g;
    AutoGradMode on(true);
    apply(ctx->saved_data["x"].toTensor()).sum().backward();
    return g;
  }
};

TEST(FunctionSemantics, DeeplyReentrantBackwardDoesNotOverflowTheStack) {
  Tensor v = tensor({3000.0f}).requires_grad_();
  DeepReentry::apply(v).sum().backward();
  EXPECT_TRUE(allclose(v.grad(), ones({1})));
}

// needs_input_grad inside backward says what the running pass needs: grad() with one
// input asks for that input's gradient only.
struct Product : autograd::Function<Product> {
  static inline std::vector<bool> seen;
  static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    return a * b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    seen = {ctx->needs_input_grad(0), ctx->needs_input_grad(1)};
    auto s = ctx->get_saved_variables();
    return {ctx->needs_input_grad(0) ? g[0] * s[1] : Tensor(),
            ctx->needs_input_grad(1) ? g[0] * s[0] : Tensor()};
  }
};

TEST(FunctionSemantics, NeedsInputGradFollowsTheRunningPass) {
  Tensor a = rnd({3}), b = rnd({3});
  Tensor ga = autograd::grad({Product::apply(a, b).sum()}, {a})[0];
  EXPECT_EQ(Product::seen, (std::vector<bool>{true, false}));
  EXPECT_TRUE(allclose(ga, b.detach()));
  Tensor gb = autograd::grad({Product::apply(a, b).sum()}, {b})[0];
  EXPECT_EQ(Product::seen, (std::vector<bool>{false, true}));
  EXPECT_TRUE(allclose(gb, a.detach()));
  Product::apply(a, b).sum().backward();
  EXPECT_EQ(Product::seen, (std::vector<bool>{true, true}));
}

struct CollectWarnings : WarningHandler {
  std::vector<std::string> messages;
  void process(const SourceLocation&, const std::string& msg, bool) override {
    messages.push_back(msg);
  }
};

// In anomaly mode a failing node warns with its forward trace, then with the trace of the
// node whose backward created it (a double backward); check_nan off skips the NaN check.
TEST(FunctionSemantics, AnomalyModeWarnsWithTheForwardTraces) {
  autograd::DetectAnomalyGuard anomaly;
  auto second_derivative_at_zero = [] {
    Tensor x = tensor({0.0}, kDouble).requires_grad_();
    Tensor y = x.pow(1.5);
    auto g = autograd::grad({y}, {x}, {}, true, /*create_graph=*/true);
    return autograd::grad({g[0]}, {x}, {tensor({0.0}, kDouble)});
  };
  {
    CollectWarnings c;
    WarningUtils::WarningHandlerGuard guard(&c);
    expect_error(second_derivative_at_zero, {"returned nan"});
    ASSERT_EQ(c.messages.size(), 2u);
    EXPECT_NE(c.messages[0].find("Traceback of forward call that caused the error"),
              std::string::npos);
    EXPECT_NE(c.messages[1].find("Traceback of forward call that induced the previous calculation"),
              std::string::npos);
  }
  {
    autograd::DetectAnomalyGuard no_nan_check(/*check_nan=*/false);
    EXPECT_FALSE(autograd::AnomalyMode::should_check_nan());
    EXPECT_NO_THROW(second_derivative_at_zero());
  }
  EXPECT_TRUE(autograd::AnomalyMode::should_check_nan());
  // An in-place change of a saved tensor: one warning, with the trace.
  CollectWarnings c;
  WarningUtils::WarningHandlerGuard guard(&c);
  Tensor x = tensor({5.0}, kDouble).requires_grad_();
  Tensor y = x * x;
  Tensor z = y * y;
  y.add_(1);
  expect_error([&] { z.backward(); }, {"inplace"});
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_NE(c.messages[0].find("Traceback of forward"), std::string::npos);
}

}  // namespace
}  // namespace nabla::testing
