#pragma once
// The W3 model and training step in nabla (shared by bench_w3 and bench_w5).
#include <nabla/nabla.h>

constexpr int64_t kBatch = 64;

struct NablaW3 {
  nabla::nn::Sequential net{nabla::nn::Conv2d(nabla::nn::Conv2dOptions(1, 32, 3).padding(1)),
                            nabla::nn::Functional(nabla::relu),
                            nabla::nn::MaxPool2d(nabla::nn::MaxPool2dOptions(2)),
                            nabla::nn::Conv2d(nabla::nn::Conv2dOptions(32, 64, 3).padding(1)),
                            nabla::nn::Functional(nabla::relu),
                            nabla::nn::MaxPool2d(nabla::nn::MaxPool2dOptions(2)),
                            nabla::nn::Flatten(),
                            nabla::nn::Linear(3136, 128),
                            nabla::nn::Functional(nabla::relu),
                            nabla::nn::Linear(128, 10)};
  nabla::optim::Adam opt{net->parameters(), nabla::optim::AdamOptions(1e-3)};
  nabla::Tensor x = nabla::rand({kBatch, 1, 28, 28});
  nabla::Tensor y = nabla::randint(0, 10, {kBatch}, nabla::kLong);
  void step() {
    opt.zero_grad();
    auto loss = nabla::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
  }
};
