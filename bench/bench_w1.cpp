// W1 (bench/README.md): tiny-op overhead. A 16-element tensor goes through
// 500 x `y = tanh(y * 1.0001 + 0.001)`, then `y.sum().backward()`.
// Reported: µs per elementary op, counting forward and backward together, where one
// iteration is 3 ops (mul, add, tanh) — nabla and LibTorch measured the same way, in
// the same process, at the same thread count.
#include <torch/torch.h>

#include <nabla/nabla.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
#include "malloc_setting.h"

namespace {

constexpr int kIters = 500;
constexpr int kOpsPerIter = 3;

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Times `runs` calls of each function, alternating them, so that a change in the host's
// load during the measurement reaches both libraries alike. Returns the median µs of each.
template <class F, class G>
std::pair<double, double> paired_median_us(F&& f, G&& g, int runs) {
  std::vector<double> tf, tg;
  auto time = [](auto&& fn) {
    auto a = std::chrono::steady_clock::now();
    fn();
    auto b = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  for (int r = 0; r < runs; ++r) {
    tf.push_back(time(f));
    tg.push_back(time(g));
  }
  return {median(tf), median(tg)};
}

double run_nabla() {
  auto x = nabla::randn({16}).requires_grad_();
  auto y = x;
  for (int i = 0; i < kIters; ++i) y = (y * 1.0001 + 0.001).tanh();
  y.sum().backward();
  return x.grad()[0].item<double>();
}

double run_torch() {
  auto x = torch::randn({16}).requires_grad_();
  auto y = x;
  for (int i = 0; i < kIters; ++i) y = torch::tanh(y * 1.0001 + 0.001);
  y.sum().backward();
  return x.grad()[0].item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark_malloc_setting(argc, argv);
  std::vector<int> threads = {1, 2};
  int runs = 51;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = {std::stoi(argv[++i])};
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::stoi(argv[++i]);
  }
  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  std::printf("W1 tiny-op chain: 16 elements, %d x tanh(y*1.0001+0.001), sum().backward()\n",
              kIters);
  std::printf("%-8s %14s %14s %8s\n", "threads", "nabla us/op", "libtorch us/op", "ratio");
  for (int t : threads) {
    nabla::set_num_threads(t);
    torch::set_num_threads(t);
    for (int w = 0; w < 5; ++w) {
      run_nabla();
      run_torch();
    }
    auto [tn, tl] = paired_median_us(run_nabla, run_torch, runs);
    double n = tn / (kIters * kOpsPerIter), l = tl / (kIters * kOpsPerIter);
    std::printf("%-8d %14.3f %14.3f %8.3f\n", t, n, l, n / l);
  }
  return 0;
}
