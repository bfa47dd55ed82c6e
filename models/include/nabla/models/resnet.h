#pragma once
// ResNet-18 as torchvision.models.resnet18 (torchvision 0.14), written with nabla::nn. The
// module tree is torchvision's, so named_parameters() and named_buffers() together carry
// exactly the keys of its state_dict() ("layer2.0.downsample.1.running_var", ...) with the
// same shapes: a checkpoint converted from PyTorch loads by name (docs/models.md).
//
//   nabla::models::ResNet18 net;             // 1000 classes
//   net->eval();
//   Tensor logits = net(images);             // [N, 3, H, W] -> [N, 1000]
#include <cstdint>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/modules/activation.h"
#include "nabla/nn/modules/container/sequential.h"
#include "nabla/nn/modules/conv.h"
#include "nabla/nn/modules/linear.h"
#include "nabla/nn/modules/normalization.h"
#include "nabla/nn/modules/pooling.h"

namespace nabla::models {

/// torchvision's BasicBlock: conv3x3(stride) - bn1 - relu - conv3x3 - bn2, plus the input
/// (through `downsample` where the shape changes), then relu.
class BasicBlockImpl : public nn::Cloneable<BasicBlockImpl> {
 public:
  /// Requires in_planes, planes and stride >= 1. Registers `downsample` (0: 1x1 conv with
  /// `stride`, no bias; 1: BatchNorm2d) exactly when stride != 1 or in_planes != planes,
  /// the rule of torchvision's ResNet._make_layer.
  BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride = 1);
  void reset() override;
  /// x [N, in_planes, H, W] -> [N, planes, ceil(H / stride), ceil(W / stride)].
  Tensor forward(const Tensor& x);

  nn::Conv2d conv1 = nullptr;
  nn::BatchNorm2d bn1 = nullptr;
  nn::ReLU relu = nullptr;
  nn::Conv2d conv2 = nullptr;
  nn::BatchNorm2d bn2 = nullptr;
  /// Empty (is_empty()) when the input already has the output's shape.
  nn::Sequential downsample = nullptr;

 private:
  int64_t in_planes_, planes_, stride_;
};
NABLA_MODULE(BasicBlock);

/// ResNet-18: conv1 (7x7, stride 2) - bn1 - relu - maxpool, layer1..layer4 (two BasicBlocks
/// each, 64/128/256/512 channels, the last three halving the resolution), avgpool to 1x1,
/// flatten, fc. Initialised as torchvision: convolutions kaiming_normal_(fan_out, relu),
/// batch norms weight 1 and bias 0, fc LibTorch's Linear default.
class ResNet18Impl : public nn::Cloneable<ResNet18Impl> {
 public:
  /// Requires num_classes >= 1.
  explicit ResNet18Impl(int64_t num_classes = 1000);
  void reset() override;
  /// x [N, 3, H, W] (H, W >= 1; ImageNet: 224) -> logits [N, num_classes]. Batch norms use
  /// batch statistics in training mode and update their running ones; call eval() first
  /// for inference.
  Tensor forward(const Tensor& x);

  nn::Conv2d conv1 = nullptr;
  nn::BatchNorm2d bn1 = nullptr;
  nn::ReLU relu = nullptr;
  nn::MaxPool2d maxpool = nullptr;
  nn::Sequential layer1 = nullptr, layer2 = nullptr, layer3 = nullptr, layer4 = nullptr;
  nn::AdaptiveAvgPool2d avgpool = nullptr;
  nn::Linear fc = nullptr;

 private:
  int64_t num_classes_;
};
NABLA_MODULE(ResNet18);

}  // namespace nabla::models
