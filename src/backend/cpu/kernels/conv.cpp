// CpuBackend's direct float32 convolutions, by the algorithm choose_conv_algorithm() picked
// (Note [Convolution algorithm]): Products per sample (conv_pointwise.h) or oneDNN's
// primitives (conv_dnnl.h).
#include "backend/cpu/conv_pointwise.h"
#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/onednn/conv_dnnl.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

conv::ConvShape shape_of(const Tensor& image, const Tensor& weight, const WindowGeometry& g,
                         int64_t groups) {
  return {image.size(0), image.size(1), g.h,          g.w,          weight.size(0), g.kh,  g.kw,
          g.oh,          g.ow,          {g.sh, g.sw}, {g.ph, g.pw}, {g.dh, g.dw},   groups};
}

const float* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }
float* mutable_or_null(const Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }

pointwise::Shape pointwise_shape(const Tensor& image, const Tensor& weight,
                                 const WindowGeometry& g) {
  return {image.size(0), image.size(1), weight.size(0), g.oh * g.ow};
}

}  // namespace

bool CpuBackend::conv2d(ConvAlgorithm algo, const Tensor& out, const Tensor& image,
                        const Tensor& weight, const Tensor& bias, const WindowGeometry& g,
                        int64_t groups) {
  if (algo == ConvAlgorithm::Products) {
    pointwise::forward(pointwise_shape(image, weight, g), image.data_ptr<float>(),
                       weight.data_ptr<float>(), data_or_null(bias), out.data_ptr<float>());
    return true;
  }
  if (algo != ConvAlgorithm::Library || !conv::available()) return false;
  return conv::forward(shape_of(image, weight, g, groups), image.data_ptr<float>(),
                       weight.data_ptr<float>(), data_or_null(bias), out.data_ptr<float>());
}

bool CpuBackend::conv2d_backward(ConvAlgorithm algo, const Tensor& grad_image,
                                 const Tensor& grad_weight, const Tensor& grad_bias,
                                 const Tensor& grad_out, const Tensor& image, const Tensor& weight,
                                 const WindowGeometry& g, int64_t groups) {
  if (algo == ConvAlgorithm::Products) {
    pointwise::backward(pointwise_shape(image, weight, g), image.data_ptr<float>(),
                        weight.data_ptr<float>(), grad_out.data_ptr<float>(),
                        mutable_or_null(grad_image), mutable_or_null(grad_weight),
                        mutable_or_null(grad_bias));
    return true;
  }
  if (algo != ConvAlgorithm::Library || !conv::available()) return false;
  return conv::backward(shape_of(image, weight, g, groups), image.data_ptr<float>(),
                        weight.data_ptr<float>(), grad_out.data_ptr<float>(),
                        mutable_or_null(grad_image), mutable_or_null(grad_weight),
                        mutable_or_null(grad_bias));
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
