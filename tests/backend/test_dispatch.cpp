// Device dispatch (src/backend/dispatch.cpp) and the one place that chooses a
// convolution's algorithm (Note [Convolution algorithm]), on the CPU; tests/cuda covers
// the GPU side.
#include <nabla/backend/backend.h>
#include <nabla/nabla.h>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;

namespace {

WindowGeometry geometry(int64_t h, int64_t k, int64_t pad) {
  const int64_t o = h + 2 * pad - k + 1;
  return {h, h, k, k, 1, 1, pad, pad, 1, 1, o, o};
}

TEST(Dispatch, EachDeviceHasItsBackend) {
  EXPECT_EQ(backend_for(Device(kCPU)).device_type(), kCPU);
  if (cuda::is_available()) {
    EXPECT_EQ(backend_for(Device(kCUDA, 0)).device_type(), kCUDA);
  } else {
    expect_error([] { backend_for(Device(kCUDA, 0)); }, {"no backend for device cuda:0"});
  }
}

TEST(ConvAlgorithm, ChosenInOnePlace) {
  const Tensor w1 = ones({16, 8, 1, 1}), w3 = ones({16, 8, 3, 3});
  // A 1x1 convolution on a large image: one product per sample beats oneDNN's reorders.
  EXPECT_EQ(choose_conv_algorithm(ones({2, 8, 32, 32}), w1, geometry(32, 1, 0), 1),
            ConvAlgorithm::Products);
  // At 14 x 14 only from batches of 8 on; at 7 x 7 never.
  EXPECT_EQ(choose_conv_algorithm(ones({8, 8, 14, 14}), w1, geometry(14, 1, 0), 1),
            ConvAlgorithm::Products);
  const ConvAlgorithm library = NABLA_EXPECT_DNNL && active_isa() != Isa::Scalar
                                    ? ConvAlgorithm::Library
                                    : ConvAlgorithm::Im2col;
  EXPECT_EQ(choose_conv_algorithm(ones({1, 8, 14, 14}), w1, geometry(14, 1, 0), 1), library);
  EXPECT_EQ(choose_conv_algorithm(ones({32, 8, 7, 7}), w1, geometry(7, 1, 0), 1), library);
  EXPECT_EQ(choose_conv_algorithm(ones({2, 8, 32, 32}), w3, geometry(32, 3, 1), 1), library);
  // Other dtypes and empty problems take the op's own im2col + product.
  EXPECT_EQ(
      choose_conv_algorithm(ones({2, 8, 32, 32}, kDouble), w3.to(kDouble), geometry(32, 3, 1), 1),
      ConvAlgorithm::Im2col);
  EXPECT_EQ(choose_conv_algorithm(ones({0, 8, 32, 32}), w3, geometry(32, 3, 1), 1),
            ConvAlgorithm::Im2col);
}

TEST(Dispatch, PinnedBatchesNeedCuda) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a GPU: tests/cuda covers pinning";
  auto loader = data::make_data_loader(data::datasets::TensorDataset(ones({4, 2}))
                                           .map(data::transforms::Stack<data::TensorExample>()),
                                       data::DataLoaderOptions(2).pin_memory(true));
  expect_error([&] { (void)loader->begin(); }, {"pin_memory"});
}

TEST(Dispatch, ModuleDtypeChangeKeepsTheDevice) {
  nn::Linear fc(3, 2);
  fc->to(kDouble);
  for (const auto& p : fc->parameters()) {
    EXPECT_EQ(p.scalar_type(), kDouble);
    EXPECT_TRUE(p.is_cpu());
  }
}

}  // namespace
