// W2 (bench/README.md): one training step of the MLP 784-256-128-10 (ReLU) on a batch of 128,
// cross-entropy, Adam (lr 1e-3): forward, backward, optimizer step. ms per step, median
// of --runs steps after warm-up, nabla and LibTorch in the same process at the same
// thread count, on the same random batch (Fashion-MNIST's shape; the data does not
// change the cost).
#include <torch/torch.h>

#include <nabla/nabla.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "malloc_setting.h"
#include "median_ms.h"
#include "w2_nabla.h"

namespace {

struct TorchW2 {
  torch::nn::Sequential net{torch::nn::Linear(784, 256), torch::nn::Functional(torch::relu),
                            torch::nn::Linear(256, 128), torch::nn::Functional(torch::relu),
                            torch::nn::Linear(128, 10)};
  torch::optim::Adam opt{net->parameters(), torch::optim::AdamOptions(1e-3)};
  torch::Tensor x = torch::rand({kW2Batch, 784});
  torch::Tensor y = torch::randint(0, 10, {kW2Batch}, torch::kLong);
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
  int runs = 101;
  bool only_nabla = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = {std::stoi(argv[++i])};
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only-nabla"))
      only_nabla = true;
  }
  if (only_nabla) {  // nabla alone in the process (no LibTorch threads beside it)
    NablaW2 n;
    for (int th : threads) {
      nabla::set_num_threads(th);
      for (int w = 0; w < 20; ++w) n.step();
      std::printf("W2 nabla alone, %d threads: %.3f ms/step\n", th,
                  median_ms([&] { n.step(); }, runs));
    }
    return 0;
  }
  std::printf("%s\n", nabla::show_config().c_str());  // the CPU and kernel paths
  std::printf("W2 MLP 784-256-128-10, batch %lld, cross-entropy, Adam: ms per training step\n",
              static_cast<long long>(kW2Batch));
  std::printf("%-8s %12s %14s %8s\n", "threads", "nabla ms", "libtorch ms", "ratio");
  NablaW2 n;
  TorchW2 t;
  for (int th : threads) {
    nabla::set_num_threads(th);
    torch::set_num_threads(th);
    for (int w = 0; w < 20; ++w) {
      n.step();
      t.step();
    }
    const double nm = median_ms([&] { n.step(); }, runs);
    const double tm = median_ms([&] { t.step(); }, runs);
    std::printf("%-8d %12.3f %14.3f %8.3f\n", th, nm, tm, nm / tm);
  }
  return 0;
}
