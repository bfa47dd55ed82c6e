// nabla's autocast against LibTorch's (Note [Autocast]): the same float32 inputs through
// both libraries in a CPU bfloat16 region; each op's result dtype must be LibTorch's, and
// its values within a few bfloat16 steps of LibTorch's.
#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include <nabla/nabla.h>

#include "libtorch_rows.h"

namespace {

using libtorch_rows::Row;

// x has 96 elements.
std::vector<Row> rows() {
  return {
      ROW("mm", x.view({8, 12}).mm(x.view({12, 8}))),
      ROW("matmul", x.view({8, 12}).matmul(x.view({12, 8}))),
      ROW("linear", NS::nn::functional::linear(x.view({8, 12}), x.narrow(0, 0, 48).view({4, 12}))),
      ROW("addmm", NS::addmm(x.narrow(0, 0, 8), x.view({8, 12}), x.view({12, 8}))),
      ROW("bmm", x.view({2, 6, 8}).bmm(x.view({2, 8, 6}))),
      ROW("conv2d", NS::conv2d(x.view({2, 3, 4, 4}), x.narrow(0, 0, 54).view({2, 3, 3, 3}))),
      ROW("relu_of_mm", x.view({8, 12}).mm(x.view({12, 8})).relu()),
      ROW("layer_norm_of_mm", NS::layer_norm(x.view({8, 12}).mm(x.view({12, 8})), {8})),
      ROW("softmax", x.view({8, 12}).softmax(1)),
      ROW("log_softmax_of_mm", x.view({8, 12}).mm(x.view({12, 8})).log_softmax(1)),
      ROW("mse_loss_of_mm",
          NS::mse_loss(x.view({8, 12}).mm(x.view({12, 8})), x.narrow(0, 0, 64).view({8, 8}))),
      ROW("sum_of_mm", x.view({8, 12}).mm(x.view({12, 8})).sum()),
      ROW("cumsum_of_mm", x.view({8, 12}).mm(x.view({12, 8})).cumsum(0)),
      ROW("cat_mm_and_x", NS::cat({x.view({8, 12}).mm(x.view({12, 8})).flatten(), x})),
      ROW("gelu_of_mm", NS::gelu(x.view({8, 12}).mm(x.view({12, 8})))),
      ROW("max_pool2d", NS::max_pool2d(x.view({2, 3, 4, 4}), {2, 2})),
      ROW("cross_entropy_of_mm", NS::nn::functional::cross_entropy(
                                     x.view({8, 12}).mm(x.view({12, 8})), NS::arange(8) % 8)),
      ROW("prod", x.narrow(0, 0, 8).prod()),
      ROW("stack_mm_and_x",
          NS::stack({x.view({8, 12}).mm(x.view({12, 8})).flatten(), x.narrow(0, 0, 64)})),
  };
}

}  // namespace

TEST(AutocastVsLibTorch, ResultDtypesAndValues) {
  torch::manual_seed(2);
  at::Tensor tx = torch::randn({96});
  nabla::Tensor nx =
      nabla::tensor(std::vector<float>(tx.data_ptr<float>(), tx.data_ptr<float>() + 96));
  for (const Row& r : rows()) {
    at::autocast::set_cpu_enabled(true);
    at::Tensor ty = r.torch_fn(tx);
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
    nabla::Tensor ny;
    {
      nabla::autocast::AutocastGuard amp(nabla::kCPU, nabla::kBFloat16);
      ny = r.nabla_fn(nx);
    }
    const bool bf16 = ty.scalar_type() == at::kBFloat16;
    EXPECT_EQ(ny.scalar_type(), bf16 ? nabla::kBFloat16 : nabla::kFloat)
        << r.name << ": LibTorch gives " << ty.scalar_type();
    at::Tensor want = ty.to(at::kDouble).contiguous();
    nabla::Tensor got = ny.to(nabla::kDouble).contiguous();
    ASSERT_EQ(want.numel(), got.numel()) << r.name;
    const double* w = want.data_ptr<double>();
    const double* g = got.data_ptr<double>();
    double scale = 0;
    for (int64_t i = 0; i < want.numel(); ++i) scale = std::max(scale, std::abs(w[i]));
    for (int64_t i = 0; i < want.numel(); ++i)
      ASSERT_NEAR(g[i], w[i], 4 * std::ldexp(1.0, -8) * (std::abs(w[i]) + scale) + 1e-6)
          << r.name << " element " << i;
  }
}
