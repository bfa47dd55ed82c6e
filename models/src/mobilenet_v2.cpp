#include "nabla/models/mobilenet_v2.h"

#include "nabla/core/error.h"
#include "nabla/nn/functional/pooling.h"
#include "nabla/nn/init.h"
#include "nabla/nn/modules/activation.h"
#include "nabla/nn/modules/conv.h"
#include "nabla/nn/modules/dropout_embedding.h"
#include "nabla/nn/modules/linear.h"
#include "nabla/nn/modules/normalization.h"

namespace nabla::models {
namespace {

// The network's table (torchvision's inverted_residual_setting): n blocks expanding by t to
// c output channels, the first of them with stride s. With width_mult 1.0 torchvision's
// _make_divisible leaves every width as written.
struct Stage {
  int64_t t, c, n, s;
};
constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
constexpr int64_t kStemChannels = 32;
constexpr int64_t kLastChannels = 1280;

}  // namespace

nn::Sequential conv2d_norm_relu6(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                 int64_t stride, int64_t groups) {
  // No bias: the batch norm's own shift would cancel it (torchvision drops it too).
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, kernel_size)
                                       .stride(stride)
                                       .padding((kernel_size - 1) / 2)
                                       .groups(groups)
                                       .bias(false)),
                        nn::BatchNorm2d(out_channels), nn::ReLU6());
}

InvertedResidualImpl::InvertedResidualImpl(int64_t in, int64_t out, int64_t stride,
                                           int64_t expand_ratio)
    : in_(in), out_(out), stride_(stride), expand_ratio_(expand_ratio) {
  reset();
}

void InvertedResidualImpl::reset() {
  NABLA_CHECK(in_ >= 1 && out_ >= 1 && expand_ratio_ >= 1,
              "InvertedResidual: in, out and expand_ratio must be >= 1, got ", in_, ", ", out_,
              ", ", expand_ratio_);
  NABLA_CHECK(stride_ == 1 || stride_ == 2, "InvertedResidual: stride must be 1 or 2, got ",
              stride_);
  const int64_t hidden = in_ * expand_ratio_;
  nn::Sequential layers;
  // Without expansion torchvision omits the 1x1 block, which shifts the indices of the
  // rest ("features.1.conv.0" is then the depthwise block): the keys depend on it.
  if (expand_ratio_ != 1) layers->push_back(conv2d_norm_relu6(in_, hidden, 1));
  layers->push_back(conv2d_norm_relu6(hidden, hidden, 3, stride_, hidden));
  layers->push_back(nn::Conv2d(nn::Conv2dOptions(hidden, out_, 1).bias(false)));
  layers->push_back(nn::BatchNorm2d(out_));
  conv = register_module("conv", layers);
}

Tensor InvertedResidualImpl::forward(const Tensor& x) {
  return use_res_connect() ? x + conv(x) : conv(x);
}

MobileNetV2Impl::MobileNetV2Impl(int64_t num_classes, double dropout)
    : num_classes_(num_classes), dropout_(dropout) {
  reset();
}

void MobileNetV2Impl::reset() {
  NABLA_CHECK(num_classes_ >= 1, "MobileNetV2: num_classes must be >= 1, got ", num_classes_);
  nn::Sequential stack;
  stack->push_back(conv2d_norm_relu6(3, kStemChannels, 3, 2));
  int64_t channels = kStemChannels;
  for (const Stage& stage : kStages) {
    for (int64_t i = 0; i < stage.n; ++i) {
      stack->push_back(InvertedResidual(channels, stage.c, i == 0 ? stage.s : 1, stage.t));
      channels = stage.c;
    }
  }
  stack->push_back(conv2d_norm_relu6(channels, kLastChannels, 1));
  features = register_module("features", stack);
  classifier = register_module(
      "classifier", nn::Sequential(nn::Dropout(dropout_), nn::Linear(kLastChannels, num_classes_)));
  // torchvision's scheme (LibTorch's defaults differ): He-normal over the output fan for
  // the convolutions, a small normal classifier so that the first logits are near uniform.
  // Batch norms already start at weight 1, bias 0.
  apply([](nn::Module& m) {
    if (auto* conv = m.as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(conv->weight, 0, kFanOut);
      if (conv->bias.defined()) nn::init::zeros_(conv->bias);
    } else if (auto* linear = m.as<nn::Linear>()) {
      nn::init::normal_(linear->weight, 0, 0.01);
      nn::init::zeros_(linear->bias);
    }
  });
}

Tensor MobileNetV2Impl::forward(const Tensor& x) {
  // Pooled functionally, as torchvision: it is no module, so it has no key.
  Tensor h = nn::functional::adaptive_avg_pool2d(features(x),
                                                 nn::functional::AdaptiveAvgPool2dFuncOptions(1));
  return classifier(h.flatten(1));  // [N, 1280, 1, 1] -> [N, 1280]
}

}  // namespace nabla::models
