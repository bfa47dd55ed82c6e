#pragma once
// nn::functional: LibTorch's torch::nn::functional, usually spelled
//   namespace F = nabla::nn::functional;
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1));
// Each family's options structs and functions live in nn/functional/<family>.h; the
// kernels are the free functions of nabla/ops/<family>.h.
#include "nabla/nn/functional/activation.h"
#include "nabla/nn/functional/attention.h"
#include "nabla/nn/functional/conv.h"
#include "nabla/nn/functional/distance.h"
#include "nabla/nn/functional/dropout.h"
#include "nabla/nn/functional/embedding.h"
#include "nabla/nn/functional/linear.h"
#include "nabla/nn/functional/loss.h"
#include "nabla/nn/functional/normalization.h"
#include "nabla/nn/functional/padding.h"
#include "nabla/nn/functional/pooling.h"
#include "nabla/nn/functional/vision.h"
