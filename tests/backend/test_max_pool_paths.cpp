// 2x2 / stride-2 max pooling: the float32 kernel of the active ISA path (AVX-512 here
// when the CPU has it) against the generic kernel that float64 takes, on widths around
// the 16-lane blocks, with ties (the first position in window order wins) and NaNs (NaN
// wins; the first NaN's position).
#include <gtest/gtest.h>

#include <cmath>

#include "nabla/nabla.h"

namespace {

using nabla::Tensor;

void check_same(const Tensor& x) {
  auto [vf, iff] = nabla::max_pool2d_with_indices(x, {2}, {2});
  auto [vd, id] = nabla::max_pool2d_with_indices(x.to(nabla::kDouble), {2}, {2});
  ASSERT_EQ(vf.sizes(), vd.sizes());
  EXPECT_TRUE(nabla::equal(iff, id)) << "sizes " << x.sizes();
  Tensor a = vf.to(nabla::kDouble), b = vd;
  EXPECT_TRUE(nabla::equal(a.isnan(), b.isnan()));
  EXPECT_TRUE(nabla::equal(a.nan_to_num(0), b.nan_to_num(0))) << "sizes " << x.sizes();
}

TEST(MaxPoolPaths, WidthsAroundVectorBlocks) {
  nabla::manual_seed(1);
  for (int64_t w : {2, 3, 7, 14, 15, 28, 31, 32, 33, 34, 63, 66})
    for (int64_t h : {2, 5, 8}) check_same(nabla::randn({2, 3, h, w}));
}

TEST(MaxPoolPaths, TiesAndNaN) {
  nabla::manual_seed(2);
  // Few distinct values: many ties inside windows.
  Tensor x = nabla::randint(0, 3, {2, 4, 10, 38}).to(nabla::kFloat);
  check_same(x);
  Tensor y = nabla::randn({2, 4, 10, 38});
  Tensor nan_mask = nabla::rand({2, 4, 10, 38}) < 0.15;
  y = nabla::where(nan_mask, nabla::full({}, std::nanf("")), y);
  check_same(y);
}

}  // namespace
