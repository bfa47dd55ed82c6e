#include "nabla/models/resnet.h"

#include "nabla/core/error.h"
#include "nabla/nn/init.h"

namespace nabla::models {
namespace {

// Batch norm follows every convolution, so none of them needs a bias (torchvision's
// conv3x3 and conv1x1 have none either, hence no "conv1.bias" keys).
nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

// Two blocks per stage is what makes it ResNet-18; the first one changes stride and width.
nn::Sequential make_layer(int64_t in_planes, int64_t planes, int64_t stride) {
  return nn::Sequential(BasicBlock(in_planes, planes, stride), BasicBlock(planes, planes, 1));
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride)
    : in_planes_(in_planes), planes_(planes), stride_(stride) {
  reset();
}

void BasicBlockImpl::reset() {
  NABLA_CHECK(in_planes_ >= 1 && planes_ >= 1 && stride_ >= 1,
              "BasicBlock: in_planes, planes and stride must be >= 1, got ", in_planes_, ", ",
              planes_, ", ", stride_);
  // Registration order is torchvision's, so parameters() lists tensors in its order too.
  conv1 = register_module("conv1", conv3x3(in_planes_, planes_, stride_));
  bn1 = register_module("bn1", nn::BatchNorm2d(planes_));
  relu = register_module("relu", nn::ReLU());
  conv2 = register_module("conv2", conv3x3(planes_, planes_, 1));
  bn2 = register_module("bn2", nn::BatchNorm2d(planes_));
  downsample = nullptr;
  if (stride_ != 1 || in_planes_ != planes_) {
    downsample = register_module(
        "downsample",
        nn::Sequential(
            nn::Conv2d(nn::Conv2dOptions(in_planes_, planes_, 1).stride(stride_).bias(false)),
            nn::BatchNorm2d(planes_)));
  }
}

Tensor BasicBlockImpl::forward(const Tensor& x) {
  Tensor out = relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  return relu(out + (downsample ? downsample(x) : x));
}

ResNet18Impl::ResNet18Impl(int64_t num_classes) : num_classes_(num_classes) { reset(); }

void ResNet18Impl::reset() {
  NABLA_CHECK(num_classes_ >= 1, "ResNet18: num_classes must be >= 1, got ", num_classes_);
  conv1 = register_module("conv1",
                          nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
  bn1 = register_module("bn1", nn::BatchNorm2d(64));
  relu = register_module("relu", nn::ReLU());
  maxpool = register_module("maxpool", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
  layer1 = register_module("layer1", make_layer(64, 64, 1));
  layer2 = register_module("layer2", make_layer(64, 128, 2));
  layer3 = register_module("layer3", make_layer(128, 256, 2));
  layer4 = register_module("layer4", make_layer(256, 512, 2));
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)));
  fc = register_module("fc", nn::Linear(512, num_classes_));
  // torchvision's scheme rather than LibTorch's kaiming_uniform_(a = sqrt(5)): He's
  // normal over the output fan keeps activations' variance through the ReLUs of a deep
  // stack trained from scratch. Batch norms already start at weight 1, bias 0.
  apply([](nn::Module& m) {
    if (auto* conv = m.as<nn::Conv2d>()) nn::init::kaiming_normal_(conv->weight, 0, kFanOut, kReLU);
  });
}

Tensor ResNet18Impl::forward(const Tensor& x) {
  Tensor h = maxpool(relu(bn1(conv1(x))));
  h = layer4(layer3(layer2(layer1(h))));
  return fc(avgpool(h).flatten(1));  // [N, 512, 1, 1] -> [N, 512]
}

}  // namespace nabla::models
