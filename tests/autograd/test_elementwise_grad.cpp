#include <nabla/autograd/autograd.h>
#include <nabla/autograd/gradcheck.h>

#include "test_util.h"

using namespace nabla;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using nabla::testing::name_of;
using nabla::testing::rnd;

TEST(ElementwiseGrad, UnaryOpsGradcheck) {
  manual_seed(1);
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&)> f;
    double lo, hi;
  };
  std::vector<Case> cases = {
      {"neg", [](const Tensor& x) { return -x; }, -1, 1},
      {"abs", [](const Tensor& x) { return x.abs(); }, 0.1, 1},
      {"sqrt", [](const Tensor& x) { return x.sqrt(); }, 0.1, 2},
      {"rsqrt", [](const Tensor& x) { return x.rsqrt(); }, 0.1, 2},
      {"exp", [](const Tensor& x) { return x.exp(); }, -1, 1},
      {"exp2", [](const Tensor& x) { return x.exp2(); }, -1, 1},
      {"log", [](const Tensor& x) { return x.log(); }, 0.1, 2},
      {"log2", [](const Tensor& x) { return x.log2(); }, 0.1, 2},
      {"log10", [](const Tensor& x) { return x.log10(); }, 0.1, 2},
      {"log1p", [](const Tensor& x) { return x.log1p(); }, -0.5, 2},
      {"expm1", [](const Tensor& x) { return x.expm1(); }, -1, 1},
      {"sin", [](const Tensor& x) { return x.sin(); }, -2, 2},
      {"cos", [](const Tensor& x) { return x.cos(); }, -2, 2},
      {"tan", [](const Tensor& x) { return x.tan(); }, -1, 1},
      {"asin", [](const Tensor& x) { return x.asin(); }, -0.9, 0.9},
      {"acos", [](const Tensor& x) { return x.acos(); }, -0.9, 0.9},
      {"atan", [](const Tensor& x) { return x.atan(); }, -2, 2},
      {"sinh", [](const Tensor& x) { return x.sinh(); }, -1, 1},
      {"cosh", [](const Tensor& x) { return x.cosh(); }, -1, 1},
      {"tanh", [](const Tensor& x) { return x.tanh(); }, -2, 2},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }, -2, 2},
      {"relu", [](const Tensor& x) { return x.relu(); }, 0.1, 1},
      {"erf", [](const Tensor& x) { return x.erf(); }, -1, 1},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }, 0.5, 2},
      {"square", [](const Tensor& x) { return x.square(); }, -1, 1},
      {"pow3", [](const Tensor& x) { return x.pow(3); }, -1, 1},
      {"pow-0.5", [](const Tensor& x) { return x.pow(-0.5); }, 0.5, 2},
      {"clamp", [](const Tensor& x) { return x.clamp(-0.5, 0.5); }, -1, 1},
      {"clamp_min", [](const Tensor& x) { return x.clamp_min(0.2); }, -1, 1},
      {"frac", [](const Tensor& x) { return x.frac(); }, 0.1, 0.9},
      {"leaky_relu", [](const Tensor& x) { return leaky_relu(x, 0.2); }, -1, 1},
      {"elu", [](const Tensor& x) { return elu(x, 1.5); }, -1, 1},
      {"gelu", [](const Tensor& x) { return gelu(x); }, -2, 2},
      {"gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }, -2, 2},
      {"silu", [](const Tensor& x) { return silu(x); }, -2, 2},
      {"softplus", [](const Tensor& x) { return softplus(x, 2, 1); }, -1, 1},
  };
  for (auto& c : cases) {
    Tensor x = rnd({2, 3}, c.lo, c.hi);
    auto fn = [&](const variable_list& in) { return variable_list{c.f(in[0])}; };
    EXPECT_NO_THROW(gradcheck(fn, {x})) << c.name;
    EXPECT_NO_THROW(gradgradcheck(fn, {x})) << c.name;
  }
}

TEST(ElementwiseGrad, BinaryOpsWithBroadcasting) {
  manual_seed(2);
  std::vector<std::pair<const char*, std::function<Tensor(const Tensor&, const Tensor&)>>> cases = {
      {"add", [](const Tensor& a, const Tensor& b) { return a.add(b, 2.5); }},
      {"sub", [](const Tensor& a, const Tensor& b) { return a.sub(b, 0.5); }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"div", [](const Tensor& a, const Tensor& b) { return a / (b + 3); }},
      {"pow", [](const Tensor& a, const Tensor& b) { return (a + 2).pow(b); }},
      {"atan2", [](const Tensor& a, const Tensor& b) { return a.atan2(b + 3); }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return a.maximum(b); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return a.minimum(b); }},
      {"where", [](const Tensor& a, const Tensor& b) { return a.where(a > 0, b); }},
      {"scalar_ops", [](const Tensor& a, const Tensor& b) { return (2 - a) * 3 + b / 4 - 1; }},
  };
  for (auto& [name, f] : cases) {
    Tensor a = rnd({2, 3}), b = rnd({3});
    auto fn = [&](const variable_list& in) { return variable_list{f(in[0], in[1])}; };
    EXPECT_NO_THROW(gradcheck(fn, {a, b})) << name;
    EXPECT_NO_THROW(gradgradcheck(fn, {a, b})) << name;
  }
}

TEST(ElementwiseGrad, NodeNamesAsPyTorch) {
  Tensor x = ones({2}, requires_grad()), y = ones({2}, requires_grad());
  EXPECT_EQ((x + y).grad_fn()->name(), "AddBackward0");
  EXPECT_EQ((x + 1).grad_fn()->name(), "AddBackward1");
  EXPECT_EQ((x * y).grad_fn()->name(), "MulBackward0");
  EXPECT_EQ((x * 2).grad_fn()->name(), "MulBackward1");
  EXPECT_EQ((x / y).grad_fn()->name(), "DivBackward0");
  EXPECT_EQ((x - y).grad_fn()->name(), "SubBackward0");
  EXPECT_EQ((1 - x).grad_fn()->name(), "RsubBackward1");
  EXPECT_EQ(x.tanh().grad_fn()->name(), "TanhBackward0");
  EXPECT_EQ(x.pow(2).grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(x.pow(y).grad_fn()->name(), "PowBackward1");
  EXPECT_EQ(x.relu().grad_fn()->name(), "ReluBackward0");
  EXPECT_EQ(x.exp().grad_fn()->name(), "ExpBackward0");
  auto edges = (x * y).grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0].function->name(), "AccumulateGrad");
  EXPECT_EQ(edges[0].input_nr, 0u);
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE((x * y).is_leaf());
  EXPECT_TRUE((x * y).requires_grad());
}
