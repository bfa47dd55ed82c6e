// The main job's training run in LibTorch, for the side-by-side figures of bench/RESULTS.md: the
// same models (W2 MLP, W3 CNN), data (Debian's Fashion-MNIST, read by nabla's IDX reader
// and handed over as tensors), normalisation, batch size 64, Adam 1e-3, shuffling each
// epoch; prints test accuracy and seconds per epoch.
//   bench_fashion_libtorch --model mlp|cnn --epochs N [--threads N]
#include <torch/torch.h>

#include <nabla/nabla.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include "malloc_setting.h"

namespace {

torch::Tensor to_torch(const nabla::Tensor& t) {
  nabla::Tensor c = t.contiguous();
  auto dtype = c.scalar_type() == nabla::kLong ? torch::kLong : torch::kFloat;
  return torch::from_blob(c.data_ptr(), c.sizes().vec(), dtype).clone();
}

torch::nn::Sequential make(const std::string& kind) {
  if (kind == "mlp")
    return torch::nn::Sequential(torch::nn::Flatten(), torch::nn::Linear(784, 256),
                                 torch::nn::ReLU(), torch::nn::Linear(256, 128), torch::nn::ReLU(),
                                 torch::nn::Linear(128, 10));
  return torch::nn::Sequential(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::MaxPool2d(2), torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)),
      torch::nn::ReLU(), torch::nn::MaxPool2d(2), torch::nn::Flatten(),
      torch::nn::Linear(3136, 128), torch::nn::ReLU(), torch::nn::Linear(128, 10));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark_malloc_setting(argc, argv);
  std::string kind = "cnn";
  int epochs = 3, threads = 2;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--model")) kind = argv[i + 1];
    if (!std::strcmp(argv[i], "--epochs")) epochs = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::stoi(argv[i + 1]);
  }
  torch::set_num_threads(threads);
  torch::manual_seed(0);
  const auto root = nabla::data::fashion_mnist_root();
  nabla::data::datasets::MNIST train(root), test(root, nabla::data::datasets::MNIST::Mode::kTest);
  auto xs = (to_torch(train.images()) - 0.2860) / 0.3530, ys = to_torch(train.targets());
  auto xt = (to_torch(test.images()) - 0.2860) / 0.3530, yt = to_torch(test.targets());
  auto net = make(kind);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
  for (int e = 1; e <= epochs; ++e) {
    auto start = std::chrono::steady_clock::now();
    auto perm = torch::randperm(60000, torch::kLong);
    for (int64_t b = 0; b < 60000; b += 64) {
      auto idx = perm.narrow(0, b, std::min<int64_t>(64, 60000 - b));
      opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net->forward(xs.index_select(0, idx)),
                                                       ys.index_select(0, idx));
      loss.backward();
      opt.step();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    torch::NoGradGuard no_grad;
    const double acc = net->forward(xt).argmax(1).eq(yt).to(torch::kDouble).mean().item<double>();
    std::printf("LibTorch %s epoch %d: test accuracy %.4f, %.1f s\n", kind.c_str(), e, acc,
                seconds);
  }
  return 0;
}
