#include "models.h"

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;

MlpImpl::MlpImpl()
    : fc1(register_module("fc1", nn::Linear(784, 256))),
      fc2(register_module("fc2", nn::Linear(256, 128))),
      fc3(register_module("fc3", nn::Linear(128, 10))) {}

nabla::Tensor MlpImpl::forward(const nabla::Tensor& x) {
  auto h = nabla::relu(fc1(x.flatten(1)));
  h = nabla::relu(fc2(h));
  return fc3(h);
}

CnnImpl::CnnImpl()
    : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)))),
      conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)))),
      fc1(register_module("fc1", nn::Linear(3136, 128))),
      fc2(register_module("fc2", nn::Linear(128, 10))) {}

nabla::Tensor CnnImpl::forward(const nabla::Tensor& x) {
  auto h = nabla::max_pool2d(nabla::relu(conv1(x)), 2);
  h = nabla::max_pool2d(nabla::relu(conv2(h)), 2);
  h = nabla::relu(fc1(h.flatten(1)));
  return fc2(h);
}
