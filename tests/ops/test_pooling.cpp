// max_pool2d's backward, what the op table (tests/conformance/table_nn_conv.cpp) cannot
// say: the fused kernel (KernelBackend::max_pool2d_backward) against the differentiable
// scatter that create_graph takes, over geometries with overlapping windows, padding,
// dilation and ceil_mode, in float and double, with ties inside windows.
#include "test_util.h"

using namespace nabla;

TEST(MaxPoolBackward, FusedKernelMatchesFormula) {
  struct Case {
    const char* what;
    std::vector<int64_t> shape, kernel, stride, padding, dilation;
    bool ceil;
  };
  const std::vector<Case> cases = {
      {"2x2 s2 (W3)", {4, 5, 14, 14}, {2}, {2}, {0}, {1}, false},
      {"odd edge, ceil_mode", {2, 3, 7, 9}, {2}, {2}, {0}, {1}, true},
      {"3x3 s1 overlapping", {2, 2, 9, 8}, {3}, {1}, {1}, {1}, false},
      {"dilated", {1, 3, 11, 10}, {2, 3}, {1, 2}, {0, 1}, {2, 2}, false},
      {"unbatched", {3, 6, 6}, {2}, {1}, {0}, {1}, false},
  };
  for (ScalarType dt : {kFloat, kDouble}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.what) + (dt == kFloat ? " float" : " double"));
      // Few distinct values: ties inside windows.
      Tensor x = randint(0, 4, c.shape).to(dt).requires_grad_();
      Tensor y = max_pool2d(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil);
      Tensor go = randn(y.sizes(), TensorOptions().dtype(dt))
                      .transpose(-1, -2)
                      .contiguous()
                      .transpose(-1, -2);
      Tensor fused = autograd::grad({y}, {x}, {go}, /*retain_graph=*/true)[0];
      Tensor formula = autograd::grad({y}, {x}, {go}, true, /*create_graph=*/true)[0];
      EXPECT_TRUE(equal(fused, formula.detach()));
      // Every output's gradient lands in its window: the sums agree.
      EXPECT_NEAR(fused.sum().item<double>(), go.sum().item<double>(), 1e-4);
    }
  }
}
