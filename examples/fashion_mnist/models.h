#pragma once
// The two models of bench/README.md: W2's MLP and W3's CNN.
#include <nabla/nabla.h>

/// 784-256-128-10 with ReLU.
struct MlpImpl : nabla::nn::Module {
  MlpImpl();
  nabla::Tensor forward(const nabla::Tensor& x);
  nabla::nn::Linear fc1 = nullptr, fc2 = nullptr, fc3 = nullptr;
};
NABLA_MODULE(Mlp);

/// conv(1->32, 3, p1)-relu-maxpool2-conv(32->64, 3,
/// p1)-relu-maxpool2-fc(3136->128)-relu-fc(128->10).
struct CnnImpl : nabla::nn::Module {
  CnnImpl();
  nabla::Tensor forward(const nabla::Tensor& x);
  nabla::nn::Conv2d conv1 = nullptr, conv2 = nullptr;
  nabla::nn::Linear fc1 = nullptr, fc2 = nullptr;
};
NABLA_MODULE(Cnn);
