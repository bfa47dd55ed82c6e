// W3 (bench/README.md): one training step of the CNN conv(1->32, 3, p1)-relu-maxpool2-
// conv(32->64, 3, p1)-relu-maxpool2-fc(3136->128)-relu-fc(128->10), batch 64,
// cross-entropy, Adam: ms per step, median over --runs steps after warm-up, nabla and
// LibTorch in the same process at the same thread count.
// `--only nabla` / `--only libtorch` runs one library alone and prints its peak resident
// memory; this binary maps LibTorch either way, so W5 uses bench_w5 (nabla only) for
// nabla's side.
#include <torch/torch.h>

#include <nabla/nabla.h>

#include "w3_nabla.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include "malloc_setting.h"
#include "median_ms.h"
#include "peak_rss.h"

namespace {

struct TorchW3 {
  torch::nn::Sequential net{torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3).padding(1)),
                            torch::nn::Functional(torch::relu),
                            torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)),
                            torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)),
                            torch::nn::Functional(torch::relu),
                            torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)),
                            torch::nn::Flatten(),
                            torch::nn::Linear(3136, 128),
                            torch::nn::Functional(torch::relu),
                            torch::nn::Linear(128, 10)};
  torch::optim::Adam opt{net->parameters(), torch::optim::AdamOptions(1e-3)};
  torch::Tensor x = torch::rand({kBatch, 1, 28, 28});
  torch::Tensor y = torch::randint(0, 10, {kBatch}, torch::kLong);
  void step() {
    opt.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark_malloc_setting(argc, argv);
  std::vector<int> threads = {1, 2};
  int runs = 31;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = {std::stoi(argv[++i])};
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
  }
  if (!only.empty()) {
    const int t = threads.back();
    nabla::set_num_threads(t);
    torch::set_num_threads(t);
    double ms = 0;
    if (only == "nabla") {
      NablaW3 n;
      for (int w = 0; w < 3; ++w) n.step();
      ms = median_ms([&] { n.step(); }, runs);
    } else {
      TorchW3 tw;
      for (int w = 0; w < 3; ++w) tw.step();
      ms = median_ms([&] { tw.step(); }, runs);
    }
    std::printf("W3 %s alone, %d threads: %.2f ms/step, peak RSS %.1f MiB\n", only.c_str(), t, ms,
                static_cast<double>(peak_rss_kib()) / 1024);
    return 0;
  }
  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  std::printf("W3 CNN c32-c64-fc128, batch %lld, cross-entropy, Adam: ms per training step\n",
              static_cast<long long>(kBatch));
  std::printf("%-8s %12s %14s %8s\n", "threads", "nabla ms", "libtorch ms", "ratio");
  NablaW3 n;
  TorchW3 t;
  for (int th : threads) {
    nabla::set_num_threads(th);
    torch::set_num_threads(th);
    for (int w = 0; w < 3; ++w) {
      n.step();
      t.step();
    }
    const double nm = median_ms([&] { n.step(); }, runs);
    const double tm = median_ms([&] { t.step(); }, runs);
    std::printf("%-8d %12.2f %14.2f %8.3f\n", th, nm, tm, nm / tm);
  }
  return 0;
}
