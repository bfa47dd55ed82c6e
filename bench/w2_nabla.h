#pragma once
// The W2 model and training step in nabla (shared by bench_w2 and bench_soak).
#include <nabla/nabla.h>

constexpr int64_t kW2Batch = 128;

struct NablaW2 {
  nabla::nn::Sequential net{nabla::nn::Linear(784, 256), nabla::nn::Functional(nabla::relu),
                            nabla::nn::Linear(256, 128), nabla::nn::Functional(nabla::relu),
                            nabla::nn::Linear(128, 10)};
  nabla::optim::Adam opt{net->parameters(), nabla::optim::AdamOptions(1e-3)};
  nabla::Tensor x = nabla::rand({kW2Batch, 784});
  nabla::Tensor y = nabla::randint(0, 10, {kW2Batch}, nabla::kLong);
  void step() {
    opt.zero_grad();
    auto loss = nabla::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
  }
};
