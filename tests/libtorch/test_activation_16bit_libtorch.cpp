// Activations, and the ops computed through float32 (products, convolution, norms,
// softmax, losses, pooling, scans, data movement), on BFloat16 and Half tensors against
// LibTorch's: the same 16-bit inputs through both libraries, values and input gradients. nabla
// computes in float32 and rounds once (Note [16-bit compute]); LibTorch 1.13's CPU kernels mostly
// do the same, but round some scalar arguments (a slope, a lambda) to the 16-bit dtype first, and
// some kernels (silu, tanh-gelu, the elu backward) round their intermediate steps, so a result may
// differ: by one 16-bit step, or more where nabla is the nearer to float64. rrelu's random slopes
// must be LibTorch's exactly. What LibTorch 1.13 does not implement on the CPU for a dtype (mish in
// bfloat16, several ops in Half) is skipped.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <nabla/nabla.h>

#include "libtorch_rows.h"

namespace {

using libtorch_rows::Row;

std::vector<double> doubles(const at::Tensor& t) {
  at::Tensor c = t.detach().contiguous().to(at::kDouble);
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}
std::vector<double> doubles(const nabla::Tensor& t) {
  nabla::Tensor c = t.detach().contiguous().to(nabla::kDouble);
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

// The 16-bit values of `t` as a nabla tensor of the same dtype (exact through double).
nabla::Tensor to_nabla(const at::Tensor& t, nabla::ScalarType dtype) {
  return nabla::tensor(doubles(t), nabla::kDouble).view(t.sizes().vec()).to(dtype);
}

// Each element at most one 16-bit step from LibTorch's, or closer than LibTorch's to the
// float64 value of the same 16-bit inputs (`exact`): where LibTorch rounds its steps to 16
// bits (its silu, tanh-gelu, elu backward, ...) nabla, rounding once, is the nearer one.
// NaN where NaN. Returns how many elements are bit-equal.
int64_t expect_as_close(const at::Tensor& want, const nabla::Tensor& got, const at::Tensor& exact,
                        bool half, const std::string& what) {
  EXPECT_EQ(want.sizes().vec(), got.sizes().vec()) << what;
  std::vector<double> w = doubles(want), g = doubles(got), e = doubles(exact);
  if (w.size() != g.size() || w.size() != e.size()) return 0;
  // 8 (bf16) or 11 (half) significant bits; half's subnormals step by 2^-24.
  const double rel = half ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
  const double abs = half ? std::ldexp(1.0, -24) : 0;
  int64_t equal = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(w[i]) || std::isnan(g[i])) {
      EXPECT_TRUE(std::isnan(w[i]) && std::isnan(g[i])) << what << " element " << i;
      ++equal;
      continue;
    }
    if (w[i] == g[i]) {
      ++equal;
      continue;
    }
    const bool one_step =
        std::abs(w[i] - g[i]) <= rel * std::max(std::abs(w[i]), std::abs(g[i])) + abs;
    const bool nearer = std::abs(g[i] - e[i]) <= std::abs(w[i] - e[i]);
    EXPECT_TRUE(one_step || nearer) << what << " element " << i << ": LibTorch " << w[i]
                                    << ", nabla " << g[i] << ", float64 " << e[i];
  }
  return equal;
}

std::vector<Row> rows() {
  return {
      ROW("relu", NS::relu(x)),
      ROW("leaky_relu", NS::leaky_relu(x, 0.42)),
      ROW("elu", NS::elu(x, 0.7)),
      ROW("selu", NS::selu(x)),
      ROW("celu", NS::celu(x, 4.2)),
      ROW("gelu", NS::gelu(x)),
      ROW("gelu_tanh", NS::gelu(x, "tanh")),
      ROW("silu", NS::silu(x)),
      ROW("mish", NS::mish(x)),
      ROW("softplus", NS::softplus(x, 2, 10)),
      ROW("sigmoid", x.sigmoid()),
      ROW("tanh", x.tanh()),
      ROW("hardtanh", NS::hardtanh(x, -0.3, 0.7)),
      ROW("hardsigmoid", NS::hardsigmoid(x)),
      ROW("hardswish", NS::hardswish(x)),
      ROW("log_sigmoid", NS::log_sigmoid(x)),
      ROW("softshrink", NS::softshrink(x, 0.3)),
      ROW("hardshrink", NS::hardshrink(x, 0.3)),
      ROW("threshold", NS::threshold(x, 0.1, 20)),
      ROW("rrelu_eval", NS::rrelu(x, 0.1, 0.3, false)),
      ROW("glu", NS::glu(x.view({-1, 2}), 1)),
      ROW("prelu", NS::prelu(x, NS::full({1}, 0.25).to(x.scalar_type()))),
  };
}

// Ops beyond the activations, on x of 96 elements; a product's second operand is cut from
// x detached, so that x's gradient is one op's (a tensor used twice gets two gradients,
// each rounded to 16 bits before they are summed, in both libraries).
std::vector<Row> op_rows() {
  return {
      ROW("mm", x.view({8, 12}).mm(x.detach().view({12, 8}))),
      ROW("linear",
          NS::nn::functional::linear(x.view({8, 12}), x.detach().narrow(0, 0, 48).view({4, 12}),
                                     x.detach().narrow(0, 0, 4))),
      ROW("bmm", x.view({2, 6, 8}).bmm(x.detach().view({2, 8, 6}))),
      ROW("conv2d",
          NS::conv2d(x.view({2, 3, 4, 4}), x.detach().narrow(0, 0, 54).view({2, 3, 3, 3}))),
      ROW("max_pool2d", NS::max_pool2d(x.view({2, 3, 4, 4}), {2, 2})),
      ROW("softmax", x.view({8, 12}).softmax(1)),
      ROW("log_softmax", x.view({8, 12}).log_softmax(1)),
      ROW("layer_norm", NS::layer_norm(x.view({8, 12}), {12})),
      ROW("batch_norm", NS::batch_norm(x.view({8, 12}), {}, {}, {}, {}, true, 0.1, 1e-5, false)),
      ROW("cross_entropy", NS::nn::functional::cross_entropy(x.view({8, 12}), NS::arange(8) % 12)),
      ROW("cumsum", x.cumsum(0)),
      ROW("cat_flip", NS::cat({x.flip(0), x.narrow(0, 0, 10)})),
  };
}

// Each row of `rs` on the same 16-bit x (base rounded) in both libraries: values and x's
// gradient for the output gradient 2 grad_seed (its first elements, shaped as the output).
void compare_rows(const std::vector<Row>& rs, const at::Tensor& base, const at::Tensor& grad_seed) {
  for (bool half : {false, true}) {
    const at::ScalarType tt = half ? at::kHalf : at::kBFloat16;
    const nabla::ScalarType nt = half ? nabla::kHalf : nabla::kBFloat16;
    at::Tensor tx = base.to(tt);
    for (const Row& r : rs) {
      const std::string what = r.name + (half ? " half" : " bfloat16");
      at::Tensor txr = tx.clone().requires_grad_(), ty;
      at::Tensor tg;
      try {
        ty = r.torch_fn(txr);
        tg = (grad_seed.narrow(0, 0, ty.numel()).view(ty.sizes()) * 2).to(tt);
        ty.backward(tg);
      } catch (const c10::Error&) {
        std::cout << what << ": LibTorch 1.13 does not implement it, skipped\n";
        continue;
      }
      // The float64 values and gradient of the same 16-bit inputs.
      at::Tensor tx64 = tx.to(at::kDouble).requires_grad_();
      at::Tensor y64 = r.torch_fn(tx64);
      y64.backward(tg.to(at::kDouble));
      nabla::Tensor nx = to_nabla(tx, nt).requires_grad_();
      nabla::Tensor ny = r.nabla_fn(nx);
      EXPECT_EQ(ny.scalar_type(), nt) << what;
      ny.backward(to_nabla(tg, nt));
      const int64_t same_values = expect_as_close(ty, ny, y64, half, what);
      const int64_t same_grads =
          expect_as_close(txr.grad(), nx.grad(), tx64.grad(), half, what + " grad");
      std::cout << what << ": " << same_values << "/" << ty.numel() << " values and " << same_grads
                << "/" << tx.numel() << " gradients bit-equal to LibTorch's\n";
    }
  }
}

}  // namespace

TEST(Ops16BitVsLibTorch, ValuesAndGradients) {
  torch::manual_seed(1);
  compare_rows(op_rows(), torch::randn({96}), torch::randn({1 << 12}));
}

TEST(Activation16BitVsLibTorch, ValuesAndGradients) {
  torch::manual_seed(0);
  // No 3.0: LibTorch 1.13's hardswish backward takes slope 1.5 there in its scalar tail
  // loop and 1 in its vector loop (nabla takes 1), whatever the dtype.
  at::Tensor base = torch::cat({torch::linspace(-10, 10, 41), torch::randn({63}) * 3,
                                torch::tensor({-3.0f, 2.5f, -0.0f, 6.0f, 20.0f, 25.0f})});
  compare_rows(rows(), base, torch::randn(base.sizes()));
}

// LibTorch's rrelu kernel takes bfloat16 in training: slopes drawn as for float32, each
// rounded to bfloat16. nabla draws the same stream, so the values are LibTorch's exactly.
TEST(Activation16BitVsLibTorch, RreluTrainingSlopes) {
  at::Tensor base = torch::linspace(-10, 10, 27);
  for (double lower : {0.01, 0.125}) {
    torch::manual_seed(5);
    nabla::manual_seed(5);
    at::Tensor tx = base.to(at::kBFloat16).requires_grad_();
    nabla::Tensor nx = to_nabla(tx, nabla::kBFloat16).requires_grad_();
    at::Tensor ty = torch::rrelu(tx, lower, 0.4, true);
    nabla::Tensor ny = nabla::rrelu(nx, lower, 0.4, true);
    EXPECT_EQ(doubles(ty), doubles(ny)) << "lower " << lower;
    ty.sum().backward();
    ny.sum().backward();
    EXPECT_EQ(doubles(tx.grad()), doubles(nx.grad())) << "lower " << lower;
    // The streams are in the same place after.
    EXPECT_EQ(doubles(torch::rand({3})), doubles(nabla::rand({3})));
  }
}
