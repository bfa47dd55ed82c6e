// Note [Convolution algorithm]: which way a float32 2-d convolution runs is decided here
// and nowhere else (the ops call choose_conv_algorithm, the backends run what it chose).
//  - Products: a 1x1, stride-1, unpadded, single-group convolution is one matrix product
//    per sample, W [O, C] @ x[n] [C, H W], in NCHW order with no reorder. On the CPU it
//    beats oneDNN's blocked kernels (which pay a reorder of every activation) from 512
//    positions per sample at any batch, and at 14 x 14 for batches of 8 or more (measured
//    on one core with bench_kernels: 32x128x14x14 -> 256, 87 against 64 GFLOP/s forward; a
//    single sample loses, 78 against 95; 7 x 7 always loses, 72 against 92).
//  - Library: the device's convolution library — oneDNN on the CPU when built in and
//    enabled, cuDNN on CUDA — for the other float32 convolutions.
//  - Im2col: everything else (other dtypes, no library, a shape the library refuses):
//    the op's im2col + gemm (a plain product for 1x1 geometry).
#include "backend/cpu/onednn/conv_dnnl.h"
#include "backend/device_backends.h"
#include "nabla/backend/backend.h"

namespace nabla {
namespace {

bool one_by_one(const WindowGeometry& g, int64_t groups) {
  return groups == 1 && g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
}

// Where the CPU's per-sample products beat oneDNN (the note above).
bool products_pay_on_cpu(int64_t batch, int64_t positions) {
  return positions >= 512 || (positions >= 196 && batch >= 8);
}

}  // namespace

ConvAlgorithm choose_conv_algorithm(const Tensor& image, const Tensor& weight,
                                    const WindowGeometry& g, int64_t groups) {
  if (image.scalar_type() != kFloat || weight.scalar_type() != kFloat || image.numel() == 0 ||
      weight.numel() == 0)
    return ConvAlgorithm::Im2col;
  if (image.is_cuda()) return cuda_conv_library() ? ConvAlgorithm::Library : ConvAlgorithm::Im2col;
  if (one_by_one(g, groups) && products_pay_on_cpu(image.size(0), g.oh * g.ow))
    return ConvAlgorithm::Products;
  return cpu::conv::available() ? ConvAlgorithm::Library : ConvAlgorithm::Im2col;
}

}  // namespace nabla
