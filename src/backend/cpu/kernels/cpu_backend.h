#pragma once
// The CPU implementation of the backend contract (nabla/backend/backend.h), compiled
// once per ISA path (Note [Kernels per ISA]). Each family of kernels lives in its own
// file of this folder: elementwise.cpp, reduce.cpp, norm.cpp, softmax.cpp, window.cpp,
// index.cpp, random.cpp, gemm.cpp, conv.cpp.
#include "backend/cpu/cpu_backends.h"
#include "backend/cpu/kernels/kernel_isa.h"
#include "nabla/backend/backend.h"

namespace nabla::cpu::NABLA_KERNEL_NS {

class CpuBackend final : public KernelBackend {
 public:
  DeviceType device_type() const override { return kCPU; }
  void copy(const Tensor& dst, const Tensor& src) override;
  void fill(const Tensor& dst, const Scalar& value) override;
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) override;
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
              const Scalar& alpha) override;
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) override;
  void reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) override;
  void arg_reduce(bool is_max, const Tensor& out_index, const Tensor& out_value, const Tensor& in,
                  int64_t dim) override;
  void cumsum(const Tensor& out, const Tensor& in, int64_t dim) override;
  void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
            bool descending) override;
  void gemm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
            const Scalar& alpha) override;
  void random(Distribution d, const Tensor& out, uint64_t seed, uint64_t offset, double a,
              double b) override;
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) override;
  void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               bool accumulate) override;
  void im2col(const Tensor& cols, const Tensor& image, const WindowGeometry& g) override;
  void col2im(const Tensor& image, const Tensor& cols, const WindowGeometry& g) override;
  bool conv2d(const Tensor& out, const Tensor& image, const Tensor& weight, const Tensor& bias,
              const WindowGeometry& g, int64_t groups) override;
  bool conv2d_backward(const Tensor& grad_image, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& image, const Tensor& weight,
                       const WindowGeometry& g, int64_t groups) override;
  void max_pool2d(const Tensor& values, const Tensor& indices, const Tensor& image,
                  const WindowGeometry& g) override;
  void max_pool2d_backward(const Tensor& grad_image, const Tensor& grad_out,
                           const Tensor& indices) override;
  void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) override;
  void softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out,
                        int64_t dim, bool log) override;
  void moments(const Tensor& mean, const Tensor& var, const Tensor& in, int64_t n, int64_t c,
               int64_t s) override;
  void channel_affine(const Tensor& out, const Tensor& in, const Tensor& center,
                      const Tensor& scale, const Tensor& shift, int64_t n, int64_t c,
                      int64_t s) override;
  void group_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                           const Tensor& grad_bias, const Tensor& grad_out, const Tensor& in,
                           const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t n,
                           int64_t c, int64_t g, int64_t s) override;
  void batch_norm_backward(const Tensor& grad_in, const Tensor& grad_weight,
                           const Tensor& grad_bias, const Tensor& grad_out, const Tensor& in,
                           const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t n,
                           int64_t c, int64_t s, bool training) override;
  void adam_step(const std::vector<AdamSlot>& slots, const AdamHyper& h) override;
};

}  // namespace nabla::cpu::NABLA_KERNEL_NS
