// nabla on a GPU (label `cuda`): devices, memory, streams and events, copies, modules,
// optimizers, autograd and saving, each compared with the same work on the CPU. Every
// test skips, saying why, on a machine without a CUDA device; the op table's CUDA run is
// tests/conformance/cuda_checks.cpp.
#include <nabla/nabla.h>

#include <cmath>
#include <filesystem>

#include "test_util.h"

using namespace nabla;
using nabla::testing::expect_error;

namespace {

#define NABLA_REQUIRE_GPU()                                                       \
  do {                                                                            \
    if (!cuda::is_available())                                                    \
      GTEST_SKIP() << "no CUDA device: "                                          \
                   << (show_config().find("CUDA: not built") != std::string::npos \
                           ? "this build has no CUDA"                             \
                           : "the build has CUDA, the machine no GPU");           \
  } while (0)

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return (a.cpu().to(kDouble) - b.cpu().to(kDouble)).abs().max().item<double>();
}

TEST(Cuda, DeviceNamesAndCount) {
  NABLA_REQUIRE_GPU();
  EXPECT_GE(cuda::device_count(), 1);
  Tensor t = ones({3}, device(kCUDA));
  EXPECT_TRUE(t.is_cuda());
  EXPECT_EQ(t.device(), Device("cuda:0"));  // "cuda" means the current device, resolved
  EXPECT_EQ(t.get_device(), 0);
  EXPECT_EQ(t.device().str(), "cuda:0");
  EXPECT_NE(show_config().find("cuda:0"), std::string::npos) << show_config();
  expect_error([] { ones({1}, device(Device(kCUDA, 99))); }, {"cuda:99", "does not exist"});
}

TEST(Cuda, CopiesRoundTripEveryDtype) {
  NABLA_REQUIRE_GPU();
  for (ScalarType t : {kFloat, kDouble, kLong, kInt, kByte, kBool, kHalf, kBFloat16}) {
    Tensor x = arange(24, TensorOptions(kDouble)).sub(7).reshape({2, 3, 4}).to(t);
    Tensor g = x.to(kCUDA);
    EXPECT_TRUE(g.is_cuda());
    EXPECT_EQ(g.scalar_type(), t);
    EXPECT_TRUE(equal(g.cpu(), x)) << t;
    // A non-contiguous source and a conversion on the device.
    Tensor tx = x.transpose(0, 2);
    EXPECT_TRUE(equal(tx.to(kCUDA).cpu(), tx.contiguous())) << t;
    if (isFloatingType(t)) {
      EXPECT_TRUE(equal(g.to(kDouble).cpu(), x.to(kDouble))) << t;
    }
  }
}

TEST(Cuda, ElementwiseAndBroadcastMatchTheCpu) {
  NABLA_REQUIRE_GPU();
  manual_seed(3);
  Tensor a = randn({5, 1, 7}), b = randn({4, 1});
  Tensor ga = a.cuda(), gb = b.cuda();
  EXPECT_LT(max_abs_diff((ga * gb + ga.exp() - gb.tanh()).sigmoid(),
                         (a * b + a.exp() - b.tanh()).sigmoid()),
            1e-6);
  EXPECT_LT(max_abs_diff(ga.sum(2), a.sum(2)), 1e-5);
  EXPECT_LT(max_abs_diff(ga.matmul(ga.transpose(1, 2)), a.matmul(a.transpose(1, 2))), 1e-5);
  // A CPU scalar tensor joins a GPU op, as in LibTorch.
  EXPECT_LT(max_abs_diff(ga * scalar_tensor(2.5), a * 2.5), 1e-6);
}

TEST(Cuda, MixingDevicesNamesBoth) {
  NABLA_REQUIRE_GPU();
  Tensor c = ones({2, 2}), g = ones({2, 2}, device(kCUDA));
  expect_error([&] { (void)(c + g); }, {"cuda:0", "cpu"});
  expect_error([&] { (void)c.matmul(g); }, {"cuda:0", "cpu"});
  expect_error([&] { (void)cat({c, g}); }, {"cuda:0", "cpu"});
}

// A GPU draws from its own Philox generator (the CPU's is LibTorch's mt19937: Note [Random
// streams]), so its numbers differ from the CPU's for a seed; they repeat for a seed, follow
// their distributions, and leave the CPU's stream alone.
TEST(Cuda, RandomNumbersRepeatForASeedAndFollowTheirDistributions) {
  NABLA_REQUIRE_GPU();
  const int64_t n = 200000;
  manual_seed(11);
  Tensor g = randn({n}, device(kCUDA));
  Tensor u = rand({n}, device(kCUDA));
  manual_seed(11);
  EXPECT_TRUE(equal(randn({n}, device(kCUDA)).cpu(), g.cpu()));
  EXPECT_TRUE(equal(rand({n}, device(kCUDA)).cpu(), u.cpu()));
  EXPECT_FALSE(equal(randn({n}, device(kCUDA)).cpu(), g.cpu()));  // the stream moved on
  const double mean = g.mean().item<double>(), var = g.var().item<double>();
  EXPECT_NEAR(mean, 0, 5 / std::sqrt(static_cast<double>(n)));
  EXPECT_NEAR(var, 1, 0.02);
  EXPECT_GE(u.min().item<double>(), 0);
  EXPECT_LT(u.max().item<double>(), 1);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.01);
  Tensor k = randint(-3, 4, {n}, TensorOptions(kLong).device(kCUDA));
  EXPECT_EQ(k.min().item<int64_t>(), -3);
  EXPECT_EQ(k.max().item<int64_t>(), 3);
  // Dropout masks repeat for a seed; kept elements are scaled by 1 / (1 - p).
  manual_seed(11);
  Tensor d = dropout(ones({n}, device(kCUDA)), 0.5, true);
  manual_seed(11);
  EXPECT_TRUE(equal(dropout(ones({n}, device(kCUDA)), 0.5, true).cpu(), d.cpu()));
  EXPECT_TRUE(((d == 0).logical_or(d == 2)).all().item<bool>());
  EXPECT_NEAR((d == 0).to(kDouble).mean().item<double>(), 0.5, 0.01);
  // The CPU's generator does not see the GPU's draws.
  manual_seed(3);
  Tensor c1 = randn({10});
  manual_seed(3);
  (void)randn({1000}, device(kCUDA));
  EXPECT_TRUE(equal(randn({10}), c1));
}

TEST(Cuda, CachingAllocatorReusesAndCounts) {
  NABLA_REQUIRE_GPU();
  cuda::empty_cache();
  const size_t before = cuda::memory_allocated();
  {
    Tensor t = empty({1 << 20}, device(kCUDA));  // 4 MiB
    EXPECT_EQ(cuda::memory_allocated(), before + (size_t(4) << 20));
    EXPECT_GE(cuda::max_memory_allocated(), cuda::memory_allocated());
  }
  EXPECT_EQ(cuda::memory_allocated(), before);
  EXPECT_GE(cuda::memory_reserved(), size_t(4) << 20);  // cached, not returned
  const size_t mallocs = cuda::device_allocations();
  for (int i = 0; i < 10; ++i) Tensor t = empty({1 << 20}, device(kCUDA));
  EXPECT_EQ(cuda::device_allocations(), mallocs) << "a cached block of the size was not reused";
  cuda::reset_peak_memory_stats();
  EXPECT_EQ(cuda::max_memory_allocated(), cuda::memory_allocated());
  const size_t cached = cuda::memory_reserved();  // the 4 MiB block at least
  cuda::empty_cache();
  EXPECT_LT(cuda::memory_reserved(), cached);
  EXPECT_GE(cuda::memory_reserved(), cuda::memory_allocated());
}

TEST(Cuda, StreamsEventsAndGuards) {
  NABLA_REQUIRE_GPU();
  cuda::CUDAStream main = cuda::getCurrentCUDAStream();
  EXPECT_EQ(main, cuda::getDefaultCUDAStream());
  cuda::CUDAStream side = cuda::getStreamFromPool();
  Tensor x = ones({1 << 16}, device(kCUDA));
  cuda::CUDAEvent ready;
  ready.record(main);
  Tensor y;
  {
    cuda::CUDAStreamGuard guard(side);
    EXPECT_EQ(cuda::getCurrentCUDAStream(), side);
    ready.block(side);  // side waits for x
    y = x * 3;
  }
  EXPECT_EQ(cuda::getCurrentCUDAStream(), main);
  side.synchronize();
  EXPECT_EQ(y.sum().item<double>(), 3.0 * (1 << 16));
  cuda::CUDAEvent start(true), stop(true);
  start.record();
  Tensor z = x.exp();
  stop.record();
  stop.synchronize();
  EXPECT_GE(start.elapsed_time(stop), 0.0f);
  EXPECT_TRUE(stop.query());
  cuda::synchronize();
}

TEST(Cuda, PinnedMemoryAndNonBlockingCopies) {
  NABLA_REQUIRE_GPU();
  Tensor h = arange(1000, TensorOptions(kFloat)).pin_memory();
  EXPECT_TRUE(h.is_pinned());
  EXPECT_FALSE(arange(3).is_pinned());
  Tensor g = h.to(Device(kCUDA), kFloat, /*non_blocking=*/true);
  Tensor back = empty({1000}).pin_memory();
  back.copy_(g);
  cuda::synchronize();
  EXPECT_TRUE(equal(back, arange(1000, TensorOptions(kFloat))));
}

// fc1 has no bias: BatchNorm removes it, so its true gradient is zero and Adam would scale
// each device's rounding noise in it up to a step of lr (seen on the first GPU run: the
// bias parted by 7e-3 after five steps while every loss agreed to 1e-5).
struct MlpImpl : nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", nn::Linear(nn::LinearOptions(6, 16).bias(false)))),
        bn(register_module("bn", nn::BatchNorm1d(16))),
        fc2(register_module("fc2", nn::Linear(16, 3))) {}
  Tensor forward(Tensor x) { return fc2(relu(bn(fc1(x)))); }
  nn::Linear fc1;
  nn::BatchNorm1d bn;
  nn::Linear fc2;
};
NABLA_MODULE(Mlp);

// The same model, data and optimizer on both devices: losses and parameters agree step by
// step.
template <class MakeOptimizer>
void train_on_both(MakeOptimizer make_optimizer) {
  manual_seed(5);
  Mlp cpu_net;
  Mlp gpu_net;
  {
    NoGradGuard ng;
    auto src = cpu_net->parameters(), dst = gpu_net->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  }
  gpu_net->to(kCUDA);
  for (const auto& p : gpu_net->parameters()) EXPECT_TRUE(p.is_cuda());
  for (const auto& b : gpu_net->buffers()) EXPECT_TRUE(b.is_cuda());
  auto cpu_opt = make_optimizer(cpu_net->parameters());
  auto gpu_opt = make_optimizer(gpu_net->parameters());
  Tensor x = randn({32, 6}), y = randint(0, 3, {32});
  Tensor gx = x.cuda(), gy = y.cuda();
  for (int step = 0; step < 5; ++step) {
    cpu_opt->zero_grad();
    gpu_opt->zero_grad();
    Tensor lc = nn::functional::cross_entropy(cpu_net->forward(x), y);
    Tensor lg = nn::functional::cross_entropy(gpu_net->forward(gx), gy);
    EXPECT_NEAR(lc.item<double>(), lg.item<double>(), 1e-5) << "step " << step;
    lc.backward();
    lg.backward();
    cpu_opt->step();
    gpu_opt->step();
  }
  auto a = cpu_net->parameters(), b = gpu_net->parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_LT(max_abs_diff(a[i], b[i]), 1e-5) << i;
  EXPECT_LT(max_abs_diff(cpu_net->bn->running_mean, gpu_net->bn->running_mean), 1e-5);
}

TEST(Cuda, SgdTrainsAsOnTheCpu) {
  NABLA_REQUIRE_GPU();
  train_on_both([](std::vector<Tensor> p) {
    return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.1).momentum(0.9));
  });
}

TEST(Cuda, AdamTrainsAsOnTheCpu) {
  NABLA_REQUIRE_GPU();
  train_on_both([](std::vector<Tensor> p) {
    return std::make_unique<optim::Adam>(p, optim::AdamOptions(1e-2));
  });
}

TEST(Cuda, ConvolutionNetworkMatchesTheCpu) {
  NABLA_REQUIRE_GPU();
  globalContext().setAllowTF32CuDNN(false);  // full float32, to compare with the CPU
  manual_seed(7);
  nn::Conv2d conv(nn::Conv2dOptions(3, 8, 3).padding(1));
  Tensor x = randn({4, 3, 12, 12}, TensorOptions().requires_grad(true));
  Tensor yc = max_pool2d(relu(conv->forward(x)), {2});
  yc.sum().backward();
  Tensor wc = conv->weight.grad().clone(), xc = x.grad().clone();
  conv->zero_grad();
  conv->to(kCUDA);
  Tensor gx = x.detach().cuda().requires_grad_(true);
  Tensor yg = max_pool2d(relu(conv->forward(gx)), {2});
  yg.sum().backward();
  EXPECT_LT(max_abs_diff(yc, yg), 1e-4);
  EXPECT_LT(max_abs_diff(wc, conv->weight.grad()), 1e-3);
  EXPECT_LT(max_abs_diff(xc, gx.grad()), 1e-4);
  EXPECT_TRUE(gx.grad().is_cuda());
}

TEST(Cuda, SaveWritesFromTheHostAndLoadPlaces) {
  NABLA_REQUIRE_GPU();
  Mlp net;
  net->to(kCUDA);
  const auto dir = std::filesystem::temp_directory_path();
  for (const std::string name : {"cuda_net.safetensors", "cuda_net.pt"}) {
    const std::string path = (dir / name).string();
    save(net, path);
    Mlp cpu_copy;
    load(cpu_copy, path);
    for (const auto& p : cpu_copy->parameters()) EXPECT_TRUE(p.is_cpu());
    auto a = net->parameters(), b = cpu_copy->parameters();
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(equal(a[i].cpu(), b[i])) << name;
    Mlp placed;
    load(placed, path, Device(kCUDA));
    for (const auto& p : placed->parameters()) EXPECT_TRUE(p.is_cuda()) << name;
    Tensor t;
    save(a[0], path);
    load(t, path, Device(kCUDA));
    EXPECT_TRUE(t.is_cuda());
    EXPECT_TRUE(equal(t.cpu(), a[0].cpu()));
    std::filesystem::remove(path);
  }
}

TEST(Cuda, BackwardOfACopyReturnsToItsDevice) {
  NABLA_REQUIRE_GPU();
  Tensor g = ones({3}, device(kCUDA).requires_grad(true));
  Tensor c = g.cpu() * 2;
  c.sum().backward();
  ASSERT_TRUE(g.grad().defined());
  EXPECT_TRUE(g.grad().is_cuda());
  EXPECT_EQ(g.grad().sum().item<double>(), 6.0);
}

// Note [Deferred device checks]: an index out of range on a GPU raises at the next wait
// for the device, with the op's own wording, and leaves the device usable.
TEST(Cuda, IndexChecksRaiseAtTheNextWait) {
  NABLA_REQUIRE_GPU();
  Tensor x = arange(6, TensorOptions(kFloat).device(kCUDA)).reshape({2, 3});
  Tensor bad = tensor({0, 5}, TensorOptions(kLong)).cuda();
  // The kernel reads the bad index as giving 0; the error comes with the wait.
  Tensor g = x.index_select(1, bad);
  expect_error([] { cuda::synchronize(); },
               {"index_select", "index 5 is out of bounds for dimension 1 with size 3"});
  cuda::synchronize();  // reported once
  expect_error([&] { (void)x.gather(1, bad.view({1, 2})).cpu(); }, {"gather", "index 5"});
  Tensor w = randn({4, 2}, device(kCUDA));
  expect_error(
      [&] {
        (void)nn::functional::embedding(tensor({1, 4}, kLong).cuda(), w).sum().item();
      },
      {"embedding", "index 4 is out of bounds for 4 rows"});
  Tensor logits = randn({2, 3}, device(kCUDA));
  expect_error(
      [&] {
        (void)nn::functional::cross_entropy(logits, tensor({0, 3}, kLong).cuda()).item();
      },
      {"target 3 is out of bounds for 3 classes"});
  // ignore_index passes; the device still computes.
  Tensor ok = nn::functional::cross_entropy(logits, tensor({0, -100}, kLong).cuda());
  EXPECT_TRUE(std::isfinite(ok.item<double>()));
  expect_error(
      [&] {
        (void)x.index({bad.view({1, 2})}).cpu();
      },
      {"index", "index 5 is out of bounds for dimension 0 with size 2"});
  EXPECT_TRUE(equal(x.index_select(1, tensor({2, 0}, kLong).cuda()).cpu(),
                    tensor({2.f, 0.f, 5.f, 3.f}).view({2, 2})));
}

// A training step of embedding, linear, cross-entropy and SGD, after a warm-up step, waits
// for the device only where the program asks (the loss read at the end).
TEST(Cuda, ATrainingStepDoesNotWaitForTheDevice) {
  NABLA_REQUIRE_GPU();
  manual_seed(1);
  nn::Embedding emb(50, 16);
  nn::Linear head(16, 50);
  emb->to(kCUDA);
  head->to(kCUDA);
  std::vector<Tensor> params = emb->parameters();
  for (const auto& p : head->parameters()) params.push_back(p);
  optim::SGD opt(params, optim::SGDOptions(0.1).momentum(0.9));
  Tensor tokens = randint(0, 50, {8, 12}).cuda(), targets = randint(0, 50, {8 * 12}).cuda();
  auto step = [&] {
    opt.zero_grad();
    Tensor loss =
        nn::functional::cross_entropy(head->forward(emb->forward(tokens)).view({-1, 50}), targets);
    loss.backward();
    opt.step();
    return loss;
  };
  // Warm-up: the libraries, the optimizer's buffers (made by the first step) and the
  // caching allocator's blocks. The second step still asked for two new blocks on the first
  // GPU run (the first step's loss and the new momentum buffers are alive beside it), so
  // two steps warm up; the claim is that the steps after those never call cudaMalloc.
  const double first = step().item<double>();
  (void)step();
  const size_t syncs = cuda::host_synchronizations();
  const size_t mallocs = cuda::device_allocations();
  Tensor loss;
  for (int i = 0; i < 3; ++i) loss = step();
  EXPECT_EQ(cuda::host_synchronizations(), syncs) << "a wait for the device inside a step";
  EXPECT_EQ(cuda::device_allocations(), mallocs) << "cudaMalloc after warm-up";
  EXPECT_LT(loss.item<double>(), first);
}

}  // namespace
