// Activations on Half and BFloat16 tensors (Note [16-bit compute],
// src/ops/elementwise/float32_compute.h): each is computed in float32 and rounded once, so its
// value is exactly the float32 activation of the same values rounded to the dtype, in-place forms
// included; gradients likewise are the float32 formula rounded once. LibTorch's own bf16/f16
// outputs are compared in tests/libtorch/test_activation_16bit_libtorch.cpp.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

using namespace nabla;
namespace F = nabla::nn::functional;

// Named, not anonymous: test_ops is built as one unity source.
namespace sixteen_bit {

using Fn = std::function<Tensor(const Tensor&)>;
using InplaceFn = std::function<void(const Tensor&)>;

// Values around every kink and threshold of the activations below, both signs, plus
// -0, the infinities and a NaN. Thresholds compared with a 16-bit tensor are rounded to
// its dtype first (as in LibTorch), so the ones below are exact in both dtypes.
Tensor sample_values() {
  Tensor x = cat({linspace(-10.0, 10.0, 41), randn({64}) * 3,
                  tensor({-3.0, 3.0, -0.5, 0.5, 1.0, -1.0, 6.0, 20.0, 21.0, -0.0})});
  return cat(
      {x, tensor({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                  std::numeric_limits<double>::quiet_NaN()},
                 kFloat)});
}

// Same values, NaN positions equal.
void expect_same(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.scalar_type(), want.scalar_type()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_TRUE(got.to(kDouble).isclose(want.to(kDouble), 0, 0, true).all().item<bool>())
      << what << "\ngot  " << got.to(kFloat) << "\nwant " << want.to(kFloat);
}

std::vector<std::pair<std::string, Fn>> activations() {
  return {
      {"relu", [](const Tensor& x) { return relu(x); }},
      {"leaky_relu", [](const Tensor& x) { return leaky_relu(x, 0.42); }},
      {"elu", [](const Tensor& x) { return elu(x, 0.7); }},
      {"selu", [](const Tensor& x) { return selu(x); }},
      {"celu", [](const Tensor& x) { return celu(x, 4.2); }},
      {"gelu", [](const Tensor& x) { return gelu(x); }},
      {"gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }},
      {"silu", [](const Tensor& x) { return silu(x); }},
      {"mish", [](const Tensor& x) { return mish(x); }},
      {"softplus", [](const Tensor& x) { return softplus(x, 2, 10); }},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }},
      {"tanh", [](const Tensor& x) { return x.tanh(); }},
      {"hardtanh", [](const Tensor& x) { return hardtanh(x, -0.3, 0.7); }},
      {"relu6", [](const Tensor& x) { return relu6(x); }},
      {"hardsigmoid", [](const Tensor& x) { return hardsigmoid(x); }},
      {"hardswish", [](const Tensor& x) { return hardswish(x); }},
      {"log_sigmoid", [](const Tensor& x) { return log_sigmoid(x); }},
      {"softshrink", [](const Tensor& x) { return softshrink(x, 0.3); }},
      {"hardshrink", [](const Tensor& x) { return hardshrink(x, 0.375); }},
      {"threshold", [](const Tensor& x) { return threshold(x, 0.125, 20); }},
      {"rrelu_eval", [](const Tensor& x) { return rrelu(x, 0.1, 0.3, false); }},
      {"glu",
       [](const Tensor& x) {
         return glu(x.view({-1, 2}), 1);
       }},
      {"prelu",
       [](const Tensor& x) { return prelu(x, full({1}, 0.25, TensorOptions(x.scalar_type()))); }},
  };
}

std::vector<std::pair<std::string, InplaceFn>> inplace_activations() {
  return {
      {"relu_", [](const Tensor& x) { relu_(x); }},
      {"leaky_relu_", [](const Tensor& x) { leaky_relu_(x, 0.42); }},
      {"elu_", [](const Tensor& x) { elu_(x, 0.7); }},
      {"selu_", [](const Tensor& x) { selu_(x); }},
      {"celu_", [](const Tensor& x) { celu_(x, 4.2); }},
      {"silu_", [](const Tensor& x) { silu_(x); }},
      {"hardtanh_", [](const Tensor& x) { hardtanh_(x, -0.3, 0.7); }},
      {"relu6_", [](const Tensor& x) { relu6_(x); }},
      {"hardsigmoid_", [](const Tensor& x) { hardsigmoid_(x); }},
      {"hardswish_", [](const Tensor& x) { hardswish_(x); }},
      {"threshold_", [](const Tensor& x) { threshold_(x, 0.125, 20); }},
      {"rrelu_eval_", [](const Tensor& x) { rrelu_(x, 0.1, 0.3, false); }},
      {"F::selu inplace", [](const Tensor& x) { F::selu(x, F::SELUFuncOptions(true)); }},
      {"F::celu inplace",
       [](const Tensor& x) { F::celu(x, F::CELUFuncOptions().alpha(0.42).inplace(true)); }},
      {"F::leaky_relu inplace",
       [](const Tensor& x) {
         F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.42).inplace(true));
       }},
  };
}

}  // namespace sixteen_bit

using sixteen_bit::expect_same;
using sixteen_bit::Fn;

TEST(Activation16Bit, ValueIsTheFloat32ValueRoundedOnce) {
  using namespace sixteen_bit;
  manual_seed(0);
  const Tensor x = sample_values();
  for (ScalarType t : {kBFloat16, kHalf}) {
    const Tensor xr = x.to(t);
    const Tensor x32 = xr.to(kFloat);  // the 16-bit values, exactly
    for (const auto& [name, f] : activations()) {
      SCOPED_TRACE(name + " " + std::string(dtype_name(t)));
      expect_same(f(xr), f(x32).to(t), name);
    }
    for (const auto& [name, f] : inplace_activations()) {
      SCOPED_TRACE(name + " " + std::string(dtype_name(t)));
      Tensor got = xr.clone(), want = x32.clone();
      const void* storage = got.data_ptr();
      f(got);
      f(want);
      EXPECT_EQ(got.data_ptr(), storage) << name;  // written into the 16-bit tensor
      expect_same(got, want.to(t), name);
    }
  }
}

// The gradient is the float32 formula on the 16-bit values, rounded once. Formulas that
// read the result read the rounded result (as LibTorch, which saves the 16-bit output),
// so these use ops whose derivatives read the input only.
TEST(Activation16Bit, GradientIsTheFloat32GradientRoundedOnce) {
  manual_seed(1);
  const Tensor x = cat({linspace(-7.0, 7.0, 30), randn({32}) * 3});
  const std::vector<std::pair<std::string, Fn>> self_saving = {
      {"leaky_relu", [](const Tensor& v) { return leaky_relu(v, 0.42); }},
      {"gelu", [](const Tensor& v) { return gelu(v); }},
      {"silu", [](const Tensor& v) { return silu(v); }},
      {"softplus", [](const Tensor& v) { return softplus(v, 2, 10); }},
      {"hardtanh", [](const Tensor& v) { return hardtanh(v, -0.3, 0.7); }},
      {"hardsigmoid", [](const Tensor& v) { return hardsigmoid(v); }},
      {"hardswish", [](const Tensor& v) { return hardswish(v); }},
      {"log_sigmoid", [](const Tensor& v) { return log_sigmoid(v); }},
      {"rrelu_eval", [](const Tensor& v) { return rrelu(v, 0.1, 0.3, false); }},
      {"softshrink", [](const Tensor& v) { return softshrink(v, 0.3); }},
      {"mish", [](const Tensor& v) { return mish(v); }},
      {"relu", [](const Tensor& v) { return relu(v); }},
  };
  for (ScalarType t : {kBFloat16, kHalf}) {
    const Tensor g = (randn(x.sizes()) * 2).to(t);
    for (const auto& [name, f] : self_saving) {
      SCOPED_TRACE(name + " " + std::string(dtype_name(t)));
      Tensor xr = x.to(t).requires_grad_();
      Tensor x32 = x.to(t).to(kFloat).requires_grad_();
      Tensor y = f(xr);
      EXPECT_EQ(y.scalar_type(), t);
      y.backward(g);
      f(x32).backward(g.to(kFloat));
      ASSERT_TRUE(xr.grad().defined());
      expect_same(xr.grad(), x32.grad().to(t), name);
    }
  }
}

// Result-saving formulas (elu, selu, celu, tanh, sigmoid) read the float32 result before
// rounding: elu's y + alpha of a rounded y near -alpha would keep no correct bit. So their
// gradient too is the float32 gradient rounded once.
TEST(Activation16Bit, ResultSavingGradientsReadTheFloat32Result) {
  const Tensor x = linspace(-9.0, 5.0, 57);
  const std::vector<std::pair<std::string, Fn>> result_saving = {
      {"elu", [](const Tensor& v) { return elu(v, 0.7); }},
      {"selu", [](const Tensor& v) { return selu(v); }},
      {"celu", [](const Tensor& v) { return celu(v, 4.2); }},
      {"tanh", [](const Tensor& v) { return v.tanh(); }},
      {"sigmoid", [](const Tensor& v) { return v.sigmoid(); }},
      {"exp", [](const Tensor& v) { return v.exp(); }},
  };
  for (ScalarType t : {kBFloat16, kHalf}) {
    const Tensor g = linspace(-1.5, 2.5, 57).to(t);
    for (const auto& [name, f] : result_saving) {
      SCOPED_TRACE(name + " " + std::string(dtype_name(t)));
      Tensor xr = x.to(t).requires_grad_();
      Tensor x32 = x.to(t).to(kFloat).requires_grad_();
      f(xr).backward(g);
      f(x32).backward(g.to(kFloat));
      expect_same(xr.grad(), x32.grad().to(t), name);
    }
  }
  Tensor xs = x.to(kBFloat16).requires_grad_();
  EXPECT_EQ(selu(xs).grad_fn()->name(), "EluBackward0");
  EXPECT_EQ(celu(xs, 2).grad_fn()->name(), "CeluBackward0");
}

// rrelu in training draws its slopes from the generator as float32 does (same draws, same
// count), each slope rounded to the dtype.
TEST(Activation16Bit, RreluTrainingDrawsTheFloat32Stream) {
  const Tensor x = linspace(-10.0, 10.0, 27);
  for (ScalarType t : {kBFloat16, kHalf}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor xr = x.to(t);
    manual_seed(7);
    Tensor y32 = rrelu(xr.to(kFloat), 0.1, 0.3, true);
    Tensor after32 = rand({4});
    manual_seed(7);
    Tensor y = rrelu(xr, 0.1, 0.3, true);
    Tensor after = rand({4});
    EXPECT_EQ(y.scalar_type(), t);
    EXPECT_TRUE(equal(after, after32));  // as many draws
    // slope = y / x on x < 0: the float32 slope rounded to 16 bits (within one 16-bit ulp
    // of the float32 one, and inside the rounded bounds).
    Tensor neg = xr.to(kFloat) < 0;
    Tensor s = (y.to(kFloat) / xr.to(kFloat)).masked_select(neg);
    Tensor s32 = (y32 / xr.to(kFloat)).masked_select(neg);
    const double ulp = t == kBFloat16 ? 1.0 / 128 : 1.0 / 1024;
    EXPECT_LE((s - s32).abs().max().item<double>(), 0.3 * 2 * ulp);
    EXPECT_GE(s.min().item<double>(), 0.1 - ulp);
    EXPECT_LE(s.max().item<double>(), 0.3 + ulp);
    expect_same(y.to(kFloat).masked_select(~neg), xr.to(kFloat).masked_select(~neg),
                "x >= 0 passes");
    // In place, and the module in training (its default), write the 16-bit tensor.
    manual_seed(7);
    Tensor z = xr.clone();
    F::rrelu(z, F::RReLUFuncOptions().lower(0.1).upper(0.3).training(true).inplace(true));
    expect_same(z, y, "rrelu_");
    manual_seed(7);
    nn::RReLU m(nn::RReLUOptions().lower(0.1).upper(0.3));
    expect_same(m(xr), y, "nn::RReLU");
    // Backward: the gradient is the slope (drawn for x <= 0, so at 0 too; y / x is the
    // slope rounded again, within a 16-bit step).
    manual_seed(7);
    Tensor xg = xr.clone().requires_grad_();
    rrelu(xg, 0.1, 0.3, true).sum().backward();
    Tensor x32 = xr.to(kFloat), nonzero = x32 != 0;
    Tensor slope = where(x32 < 0, y.to(kFloat) / x32, ones({27}));
    EXPECT_TRUE(xg.grad().to(kFloat).masked_select(nonzero).allclose(slope.masked_select(nonzero),
                                                                     2 * ulp, 0));
    const double at_zero = xg.grad().to(kFloat)[13].item<double>();
    EXPECT_TRUE(at_zero >= 0.1 - ulp && at_zero <= 0.3 + ulp) << at_zero;
  }
}

// The binary ops, where and the reductions that activations' callers use on 16-bit
// tensors go through float32 too.
TEST(Activation16Bit, ElementwiseAndReductionsRoundOnce) {
  manual_seed(2);
  const Tensor a32 = randn({50}) * 4, b32 = randn({50});
  for (ScalarType t : {kBFloat16, kHalf}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor a = a32.to(t), b = b32.to(t), af = a.to(kFloat), bf = b.to(kFloat);
    expect_same(a + b, (af + bf).to(t), "add");
    expect_same(a * b, (af * bf).to(t), "mul");
    expect_same(a / b, (af / bf).to(t), "div");
    expect_same(a.sub(b, 3), af.sub(bf, 3).to(t), "sub alpha");
    // A Scalar meets the tensor rounded to its dtype, as in LibTorch.
    expect_same(a * 0.42, (af * tensor({0.42}).to(t).to(kFloat)).to(t), "mul scalar");
    expect_same(a < b, af < bf, "lt");
    expect_same(where(a > 0, a, b), where(af > 0, af, bf).to(t), "where");
    expect_same(a.clamp(-1, 1), af.clamp(-1, 1).to(t), "clamp");
    expect_same(a.sum(), af.sum().to(t), "sum");
    expect_same(a.mean(), af.mean().to(t), "mean");
    expect_same(a.max(), af.max().to(t), "max");
    Tensor c = a.clone();
    c.mul_(b);
    expect_same(c, (af * bf).to(t), "mul_");
    c = a.clone();
    c += 0.5;
    expect_same(c, (af + tensor({0.5}).to(t).to(kFloat)).to(t), "add_ scalar");
  }
}

TEST(Activation16Bit, HardtanhModuleChecksBoundsOnReset) {
  nabla::testing::expect_error(
      [] { nn::Hardtanh(nn::HardtanhOptions().min_val(0.42).max_val(0.42)); },
      {"max_val must be greater than min_val", "0.42"});
  nn::Hardtanh ht(nn::HardtanhOptions().min_val(-0.42).max_val(0.42));
  ht->options.min_val(0.42);
  nabla::testing::expect_error([&] { ht->reset(); },
                               {"Hardtanh", "max_val must be greater than min_val"});
  ht->options.min_val(-1);
  EXPECT_NO_THROW(ht->reset());
}

TEST(Activation16Bit, UnfoldSaysWhyTheKernelDoesNotFit) {
  nabla::testing::expect_error(
      [] {
        F::unfold(randn({1, 2, 2, 2}), F::UnfoldFuncOptions({2, 3}));
      },
      {"unfold",
       "Given input with spatial size (2, 2), kernel_size=(2, 3), dilation=(1, 1), "
       "padding=(0, 0), calculated shape of the array of sliding blocks as (1, 0), but "
       "its components must be at least one.",
       "kernel 2x3 is larger than the padded input 2x2"});
  nabla::testing::expect_error(
      [] {
        F::fold(randn({1, 6, 1}), F::FoldFuncOptions({2, 2}, {1, 3}));
      },
      {"fold", "Given output_size=(2, 2), kernel_size=(1, 3)", "at least one"});
}
