// Backward from several threads at once (docs/autograd.md): shared leaves, a shared module, a
// shared retained graph and hooks. Every test name says Thread, so ctest's `threads` label
// (tests/CMakeLists.txt) runs them, also under ThreadSanitizer (docs/reliability.md).
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "test_util.h"

using namespace nabla;
using nabla::testing::values;

namespace {
constexpr int kThreads = 4;
constexpr int kCalls = 50;

// Runs body(t) on kThreads threads at once and joins them.
template <class F>
void on_threads(F body) {
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back([&body, t] { body(t); });
  for (auto& t : ts) t.join();
}
}  // namespace

// 4 threads x 50 backward calls on one shared leaf sum exactly.
TEST(EngineThreads, ThreadsShareALeaf) {
  Tensor w = ones({8}, kDouble).requires_grad_();
  on_threads([&](int) {
    for (int i = 0; i < kCalls; ++i) (w * 2).sum().backward();
  });
  EXPECT_EQ(values(w.grad()), std::vector<double>(8, 400.0));
}

// Each thread runs its own forward and backward through one shared module, with tensors
// large enough that the kernels inside split their work over the pool too (parallel_for
// called from several threads). The accumulated gradient is 50 times the sum of each
// thread's single gradient (float64: only the summation order differs).
TEST(EngineThreads, ThreadsTrainOneSharedModule) {
  manual_seed(7);
  nn::Linear lin(nn::LinearOptions(256, 128));
  lin->to(kDouble);
  std::vector<Tensor> xs;
  for (int t = 0; t < kThreads; ++t) xs.push_back(rand({300, 256}, kDouble));
  auto loss_of = [&](const Tensor& x) { return relu(lin(x)).pow(2).mean(); };

  Tensor expected_w = zeros({128, 256}, kDouble), expected_b = zeros({128}, kDouble);
  for (const Tensor& x : xs) {
    lin->zero_grad();
    loss_of(x).backward();
    expected_w += lin->weight.grad() * kCalls;
    expected_b += lin->bias.grad() * kCalls;
  }
  lin->zero_grad();
  on_threads([&](int t) {
    for (int i = 0; i < kCalls; ++i) loss_of(xs[t]).backward();
  });
  EXPECT_TRUE(lin->weight.grad().allclose(expected_w, 1e-10, 1e-12));
  EXPECT_TRUE(lin->bias.grad().allclose(expected_b, 1e-10, 1e-12));
}

// One retained graph, walked backward by 4 threads at once: the shared nodes and their
// saved tensors are read concurrently.
TEST(EngineThreads, ThreadsWalkOneRetainedGraph) {
  Tensor w = rand({64, 64}, kDouble).requires_grad_();
  Tensor x = rand({32, 64}, kDouble);
  Tensor loss = (x.matmul(w).tanh() * 3).sum();
  Tensor once = autograd::grad({loss}, {w}, {}, /*retain_graph=*/true)[0];
  on_threads([&](int) {
    for (int i = 0; i < kCalls; ++i) loss.backward({}, /*retain_graph=*/true);
  });
  EXPECT_TRUE(w.grad().allclose(once * (kThreads * kCalls), 1e-10, 1e-12));
}

// Hooks run on the thread that calls backward, once per call: a hook on a shared leaf
// sees 200 calls from 4 threads, and its replacement gradient is what accumulates; hooks
// registered by each thread on its own non-leaf run on that thread only.
TEST(EngineThreads, HooksFromSeveralThreads) {
  Tensor w = ones({4}, kDouble).requires_grad_();
  std::atomic<int> leaf_calls{0};
  std::mutex m;
  std::set<std::thread::id> hook_threads;
  w.register_hook([&](const Tensor& g) {
    leaf_calls++;
    std::lock_guard<std::mutex> lock(m);
    hook_threads.insert(std::this_thread::get_id());
    return g * 2;
  });
  std::vector<int> own_calls(kThreads, 0);
  std::atomic<int> wrong_thread{0};
  on_threads([&](int t) {
    std::thread::id me = std::this_thread::get_id();
    for (int i = 0; i < kCalls; ++i) {
      Tensor y = w * 3;
      y.register_hook([&, t, me](const Tensor&) {
        if (std::this_thread::get_id() != me) wrong_thread++;
        own_calls[t]++;
      });
      y.sum().backward();
    }
  });
  EXPECT_EQ(leaf_calls.load(), kThreads * kCalls);
  EXPECT_EQ(hook_threads.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(wrong_thread.load(), 0);
  EXPECT_EQ(own_calls, std::vector<int>(kThreads, kCalls));
  EXPECT_EQ(values(w.grad()), std::vector<double>(4, 6.0 * kThreads * kCalls));
}

// Threads taking views of one shared tensor at once (loader workers indexing a dataset)
// all register them with its AutogradMeta, which the first of them creates (Note [Lazy
// autograd meta]); a lost meta used to leak (LeakSanitizer) and race (ThreadSanitizer).
TEST(EngineThreads, ThreadsTakeViewsOfOneSharedTensor) {
  for (int round = 0; round < 50; ++round) {
    Tensor data = full({16, 4}, static_cast<double>(round), kDouble);  // no AutogradMeta yet
    std::atomic<int> wrong{0};
    on_threads([&](int) {
      for (int64_t i = 0; i < 16; ++i)
        if (data[i].sum().item<double>() != 4.0 * round) ++wrong;
    });
    EXPECT_EQ(wrong.load(), 0);
  }
}
