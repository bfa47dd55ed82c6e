// Activations, what the op table (tests/conformance/table_nn_activation.cpp) cannot say:
// float32 gradients at extremes, nn::functional's option structs, in-place aliasing,
// random ones (rrelu, gumbel_softmax), and error messages beyond the op's name.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace nabla;
namespace F = nabla::nn::functional;
using nabla::testing::expect_error;
using nabla::testing::expect_values;
using nabla::testing::rnd;
using nabla::testing::values;
using V = std::vector<double>;

namespace {

using Fn = std::function<Tensor(const Tensor&)>;

void expect_derivatives(const Fn& f, const Tensor& x) {
  auto g = [&](const autograd::variable_list& in) -> autograd::variable_list { return {f(in[0])}; };
  EXPECT_TRUE(autograd::gradcheck(g, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(g, {x}));
}

}  // namespace

// The table differentiates in float64 only, and its tolerance cannot see log_sigmoid's tail.
TEST(Activation, Extremes) {
  Tensor x = tensor({-1000.0, -100.0, -30.0, 30.0, 100.0, 1000.0}, kFloat).requires_grad_();
  for (const Fn& f : std::vector<Fn>{
           [](const Tensor& t) { return log_sigmoid(t); },
           [](const Tensor& t) { return softplus(t); }, [](const Tensor& t) { return t.sigmoid(); },
           [](const Tensor& t) { return mish(t); }, [](const Tensor& t) { return selu(t); },
           [](const Tensor& t) { return gelu(t); }, [](const Tensor& t) { return gelu(t, "tanh"); },
           [](const Tensor& t) { return softsign(t); }}) {
    x.mutable_grad() = Tensor();
    Tensor y = f(x);
    for (double v : values(y)) EXPECT_TRUE(std::isfinite(v));
    y.sum().backward();
    for (double v : values(x.grad())) EXPECT_TRUE(std::isfinite(v));
  }
  // log_sigmoid is exact in the tails: x for very negative x, -exp(-x) for large x.
  V l = values(log_sigmoid(tensor({-100.0, 40.0}, kDouble)));
  EXPECT_DOUBLE_EQ(l[0], -100.0);
  EXPECT_NEAR(l[1], -std::exp(-40.0), 1e-30);
}

// The table's hardsigmoid and celu entries are marked differs() (LibTorch's float64
// backward rounds through float), which would also hide a finite-difference failure.
TEST(Activation, DerivativesOfEntriesMarkedDiffers) {
  Tensor x = rnd({2, 6}, -4, 4);
  expect_derivatives([](const Tensor& t) { return hardsigmoid(t * 2); }, x);
  expect_derivatives([](const Tensor& t) { return celu(t, 0.6); }, x);
}

TEST(Activation, FunctionalOptions) {
  Tensor x = tensor({-2.0, -0.5, 0.5, 3.0});
  expect_values(F::relu(x), {0, 0, 0.5, 3});
  expect_values(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)),
                {-0.4, -0.1, 0.5, 3});
  expect_values(F::elu(x, F::ELUFuncOptions().alpha(2)),
                {2 * (std::exp(-2.0) - 1), 2 * (std::exp(-0.5) - 1), 0.5, 3});
  expect_values(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1).max_val(2)),
                {-1, -0.5, 0.5, 2});
  expect_values(F::relu6(x * 3), {0, 0, 1.5, 6});
  expect_values(F::threshold(x, F::ThresholdFuncOptions(0.0, 5.0)), {5, 5, 0.5, 3});
  expect_values(F::hardshrink(x, F::HardshrinkFuncOptions().lambda(1.0)), {-2, 0, 0, 3});
  expect_values(F::softshrink(x, F::SoftshrinkFuncOptions(1.0)), {-1, 0, 0, 2});
  expect_values(F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(1)),
                {std::log1p(std::exp(-4.0)) / 2, std::log1p(std::exp(-1.0)) / 2,
                 std::log1p(std::exp(1.0)) / 2, 3});
  expect_values(F::gelu(x, F::GELUFuncOptions().approximate("tanh")), values(gelu(x, "tanh")));
  expect_values(F::celu(x, F::CELUFuncOptions().alpha(0.5)), values(celu(x, 0.5)));
  expect_values(F::selu(x), values(selu(x)));
  expect_values(F::silu(x), values(silu(x)));
  expect_values(F::mish(x), values(mish(x)));
  expect_values(F::logsigmoid(x), values(log_sigmoid(x)));
  expect_values(F::softsign(x), values(softsign(x)));
  expect_values(F::tanhshrink(x), values(tanhshrink(x)));
  expect_values(F::glu(x, F::GLUFuncOptions(0)), values(glu(x, 0)));
  expect_values(F::prelu(x, tensor({0.5})), {-1, -0.25, 0.5, 3});
  expect_values(F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3)), {-0.4, -0.1, 0.5, 3});
  Tensor m = tensor({{1.0, 2.0}, {3.0, 3.0}});
  expect_values(F::softmax(m, F::SoftmaxFuncOptions(1)), values(softmax(m, 1)));
  expect_values(F::softmin(m, F::SoftminFuncOptions(0)), values(softmin(m, 0)));
  expect_values(F::log_softmax(m, F::LogSoftmaxFuncOptions(1).dtype(kDouble)),
                values(log_softmax(m, 1)));
  EXPECT_EQ(F::log_softmax(tensor({1.0f, 2.0f}), F::LogSoftmaxFuncOptions(0).dtype(kDouble))
                .scalar_type(),
            kDouble);
}

TEST(Activation, InplaceOptions) {
  Tensor x = tensor({-2.0, 0.5, 3.0});
  Tensor r = F::relu(x, F::ReLUFuncOptions().inplace(true));
  EXPECT_TRUE(r.is_same(x));
  expect_values(x, {0, 0.5, 3});
  Tensor y = tensor({-2.0, 0.5, 8.0});
  F::hardtanh(y, F::HardtanhFuncOptions().inplace(true));
  expect_values(y, {-1, 0.5, 1});
  Tensor z = tensor({-2.0, 0.5, 8.0});
  F::leaky_relu(z, F::LeakyReLUFuncOptions().negative_slope(0.5).inplace(true));
  expect_values(z, {-1, 0.5, 8});
  Tensor w = tensor({-2.0, 0.5, 8.0});
  F::threshold(w, F::ThresholdFuncOptions(1.0, 0.0).inplace(true));
  expect_values(w, {0, 0, 8});
  Tensor e = tensor({-1.0, 1.0});
  F::elu(e, F::ELUFuncOptions().inplace(true));
  expect_values(e, {std::exp(-1.0) - 1, 1});
  Tensor c = tensor({-1.0, 1.0});
  F::celu(c, F::CELUFuncOptions().inplace(true));
  expect_values(c, {std::exp(-1.0) - 1, 1});
  Tensor s = tensor({-1.0, 1.0});
  F::selu(s, F::SELUFuncOptions(true));
  expect_values(s, values(selu(tensor({-1.0, 1.0}))));
  Tensor six = tensor({-1.0, 9.0});
  F::relu6(six, F::ReLU6FuncOptions(true));
  expect_values(six, {0, 6});
  // In place on a non-leaf keeps the graph: d/dx of relu6_(2x) at x = 1 is 2.
  Tensor leaf = tensor({1.0, 5.0}).requires_grad_();
  Tensor t = leaf * 2;
  relu6_(t);
  t.sum().backward();
  expect_values(leaf.grad(), {2, 0});
  // A leaf that requires grad is refused.
  expect_error([&] { hardtanh_(leaf); }, {"hardtanh_"});
}

TEST(Activation, RreluTraining) {
  manual_seed(3);
  Tensor x = -ones({10000}, kDouble);
  Tensor y = rrelu(x, 0.1, 0.3, true);
  V v = values(y);
  double mean = 0;
  for (double s : v) {
    EXPECT_GE(-s, 0.1);
    EXPECT_LE(-s, 0.3);
    mean += -s / v.size();
  }
  EXPECT_NEAR(mean, 0.2, 0.01);
  // Positive inputs pass unchanged; the same seed gives the same slopes.
  expect_values(rrelu(ones({3}), 0.1, 0.3, true), {1, 1, 1});
  manual_seed(3);
  EXPECT_TRUE(rrelu(x, 0.1, 0.3, true).equal(y));
  Tensor z = -ones({4});
  F::rrelu(z, F::RReLUFuncOptions().training(true).inplace(true));
  for (double s : values(z)) EXPECT_TRUE(s <= -1.0 / 8 + 1e-7 && s >= -1.0 / 3 - 1e-7);
}

TEST(Activation, GumbelSoftmax) {
  manual_seed(0);
  Tensor logits = tensor({{1.0, 2.0, 3.0}, {0.0, 0.0, 0.0}}, kDouble).requires_grad_();
  Tensor soft = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.5));
  expect_values(soft.sum(1), {1, 1}, 1e-12);
  Tensor hard = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().hard(true));
  for (double v : values(hard)) EXPECT_TRUE(std::abs(v) < 1e-12 || std::abs(v - 1) < 1e-12);
  expect_values(hard.sum(1), {1, 1}, 1e-12);
  (hard * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();  // straight-through gradient
  EXPECT_TRUE(logits.grad().defined());
  // The sampled class follows the logits: class 2 of row 0 is picked most often.
  int wins = 0;
  for (int i = 0; i < 200; ++i)
    wins += F::gumbel_softmax(logits.detach(), F::GumbelSoftmaxFuncOptions().hard(true))[0][2]
                .item<double>() > 0.5;
  EXPECT_GT(wins, 100);
}

TEST(Activation, Errors) {
  expect_error([] { glu(randn({2, 3}), 1); }, {"glu", "even", "3"});
  expect_error([] { prelu(randn({2, 3}), ones({2})); }, {"prelu", "2", "3"});
  expect_error([] { softshrink(randn({2}), -1); }, {"softshrink", "lambda"});
  expect_error([] { hardtanh(randn({2}), 2, 1); }, {"hardtanh", "min_val"});
  expect_error([] { celu(randn({2}), 0); }, {"celu", "alpha"});
  expect_error([] { rrelu(randn({2}), 0.5, 0.1); }, {"rrelu", "lower"});
  expect_error([] { hardsigmoid(tensor({1, 2})); }, {"hardsigmoid", "Long"});
  expect_error([] { mish(Tensor()); }, {"mish"});
  expect_error([] { F::gumbel_softmax(randn({2}), F::GumbelSoftmaxFuncOptions().tau(0)); },
               {"gumbel_softmax", "tau"});
}

// 16-bit floats go through the unary kernels in float32 and are rounded once: the result
// is the float32 result rounded to the dtype (in-place too).
TEST(Activation, SixteenBitFloatsComputeInFloat32) {
  Tensor x = linspace(-10.0, 10.0, 27);
  for (ScalarType t : {kBFloat16, kHalf}) {
    Tensor xr = x.to(t);
    Tensor want = elu(xr.to(kFloat), 0.42).to(t);
    Tensor got = elu(xr, 0.42);
    EXPECT_EQ(got.scalar_type(), t);
    EXPECT_TRUE(equal(got.to(kFloat), want.to(kFloat))) << t;
    EXPECT_TRUE(
        equal(leaky_relu(xr, 0.2).to(kFloat), leaky_relu(xr.to(kFloat), 0.2).to(t).to(kFloat)));
    EXPECT_TRUE(equal(xr.exp().to(kFloat), xr.to(kFloat).exp().to(t).to(kFloat)));
    Tensor y = xr.clone();
    elu_(y, 0.42);
    EXPECT_TRUE(equal(y.to(kFloat), want.to(kFloat))) << t;
  }
}
