#pragma once
// MobileNetV2 as torchvision.models.mobilenet_v2 (torchvision 0.14, width_mult 1.0), written
// with nabla::nn. The module tree is torchvision's, so named_parameters() and
// named_buffers() together carry exactly the keys of its state_dict()
// ("features.3.conv.1.1.running_mean", "classifier.1.weight", ...) with the same shapes
// (docs/models.md).
//
//   nabla::models::MobileNetV2 net;          // 1000 classes
//   net->eval();
//   Tensor logits = net(images);             // [N, 3, H, W] -> [N, 1000]
#include <cstdint>

#include "nabla/nn/cloneable.h"
#include "nabla/nn/modules/container/sequential.h"

namespace nabla::models {

/// torchvision's Conv2dNormActivation with ReLU6, which is itself a Sequential (hence its
/// keys "0.weight", "1.running_mean", ...): 0: Conv2d without bias, padded by
/// (kernel_size - 1) / 2 so that only the stride changes the resolution; 1: BatchNorm2d;
/// 2: ReLU6.
nn::Sequential conv2d_norm_relu6(int64_t in_channels, int64_t out_channels, int64_t kernel_size = 3,
                                 int64_t stride = 1, int64_t groups = 1);

/// torchvision's InvertedResidual: `conv` is a Sequential of an expanding 1x1
/// conv2d_norm_relu6 to in * expand_ratio channels (absent when expand_ratio is 1), a
/// depthwise 3x3 conv2d_norm_relu6 with `stride`, then a 1x1 Conv2d (no bias) to out
/// channels and a BatchNorm2d, with no activation after it (the "linear bottleneck").
class InvertedResidualImpl : public nn::Cloneable<InvertedResidualImpl> {
 public:
  /// Requires in, out >= 1, stride 1 or 2, expand_ratio >= 1.
  InvertedResidualImpl(int64_t in, int64_t out, int64_t stride, int64_t expand_ratio);
  void reset() override;
  /// x [N, in, H, W] -> [N, out, ceil(H / stride), ceil(W / stride)]; x is added to the
  /// result when use_res_connect().
  Tensor forward(const Tensor& x);
  /// Whether the input is added back: stride 1 and in == out, as torchvision.
  bool use_res_connect() const noexcept { return stride_ == 1 && in_ == out_; }

  nn::Sequential conv = nullptr;

 private:
  int64_t in_, out_, stride_, expand_ratio_;
};
NABLA_MODULE(InvertedResidual);

/// MobileNetV2: `features` (0: conv2d_norm_relu6(3, 32, stride 2); 1..17: InvertedResiduals
/// of torchvision's (t, c, n, s) table; 18: conv2d_norm_relu6(320, 1280, 1x1)), global
/// average pooling, flatten, `classifier` (0: Dropout(dropout), 1: Linear(1280,
/// num_classes)). Initialised as torchvision: convolutions kaiming_normal_(fan_out), batch
/// norms weight 1 and bias 0, the Linear weight N(0, 0.01) and bias 0.
class MobileNetV2Impl : public nn::Cloneable<MobileNetV2Impl> {
 public:
  /// Requires num_classes >= 1 and dropout in [0, 1].
  explicit MobileNetV2Impl(int64_t num_classes = 1000, double dropout = 0.2);
  void reset() override;
  /// x [N, 3, H, W] (H, W >= 1; ImageNet: 224) -> logits [N, num_classes]. Batch norms and
  /// dropout follow the training mode; call eval() first for inference.
  Tensor forward(const Tensor& x);

  nn::Sequential features = nullptr;
  nn::Sequential classifier = nullptr;

 private:
  int64_t num_classes_;
  double dropout_;
};
NABLA_MODULE(MobileNetV2);

}  // namespace nabla::models
