// CudaBackend's sliding-window entries: im2col, col2im, max_pool2d and its backward (kernels
// in window.cu).
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/window_launch.h"
#include "nabla/core/detail/cuda/cuda_check.h"

namespace nabla::cuda_kernels {

namespace {

bool is_float_or_double(const Tensor& t) {
  return t.scalar_type() == kFloat || t.scalar_type() == kDouble;
}

// The shared checks of im2col and col2im: floating, a contiguous image, cols' last dim
// contiguous (the kernels address it as y * ow + x).
void check_window(const char* entry, const Tensor& cols, const Tensor& image) {
  if (!is_float_or_double(image)) not_on_cuda(entry, "dtypes other than float and double");
  NABLA_CHECK(
      image.is_contiguous() && cols.dim() == 3 && (cols.size(2) <= 1 || cols.stride(2) == 1), entry,
      ": the image must be contiguous and the last dim of cols contiguous");
}

}  // namespace

void CudaBackend::im2col(const Tensor& cols, const Tensor& image, const WindowGeometry& g) {
  check_window("im2col", cols, image);
  OnDevice on(image);
  NABLA_CUDA_CHECK(launch_im2col(image.scalar_type(), cols.data_ptr(), cols.stride(0),
                                 cols.stride(1), image.data_ptr(), image.size(0), image.size(1), g,
                                 on.stream()));
}

void CudaBackend::col2im(const Tensor& image, const Tensor& cols, const WindowGeometry& g) {
  check_window("col2im", cols, image);
  OnDevice on(image);
  NABLA_CUDA_CHECK(launch_col2im(image.scalar_type(), image.data_ptr(), cols.data_ptr(),
                                 cols.stride(0), cols.stride(1), image.size(0), image.size(1), g,
                                 on.stream()));
}

void CudaBackend::max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& image,
                             const WindowGeometry& g) {
  const ScalarType t = image.scalar_type();
  if (t != kFloat && t != kDouble && t != kLong && t != kByte)
    not_on_cuda("max_pool2d", "dtypes other than float, double, int64 and uint8");
  NABLA_CHECK(image.is_contiguous() && values.is_contiguous() && indices.is_contiguous(),
              "max_pool2d kernel: contiguous operands expected");
  OnDevice on(image);
  NABLA_CUDA_CHECK(launch_max_pool2d(t, values.data_ptr(), indices.data_ptr<int64_t>(),
                                     image.data_ptr(), image.size(0) * image.size(1), g,
                                     on.stream()));
}

void CudaBackend::max_pool2d_backward(const Tensor& grad_image, const Tensor& grad_out,
                                      const Tensor& indices) {
  if (!is_float_or_double(grad_image))
    not_on_cuda("max_pool2d_backward", "dtypes other than float and double");
  NABLA_CHECK(grad_image.is_contiguous() && grad_out.is_contiguous() && indices.is_contiguous() &&
                  grad_image.dim() >= 2 && grad_out.sizes() == indices.sizes(),
              "max_pool2d_backward kernel: contiguous operands, grad_out shaped as indices");
  const int64_t plane = grad_image.size(-1) * grad_image.size(-2);
  const int64_t out = grad_out.dim() >= 2 ? grad_out.size(-1) * grad_out.size(-2) : 1;
  OnDevice on(grad_image);
  NABLA_CUDA_CHECK(launch_max_pool2d_backward(
      grad_image.scalar_type(), grad_image.data_ptr(), grad_image.numel(), plane,
      grad_out.data_ptr(), indices.data_ptr<int64_t>(), grad_out.numel(), out, on.stream()));
}

}  // namespace nabla::cuda_kernels
