#pragma once
// The profiling proxy (include/nabla/core/profiler.h): while a profile runs,
// backend_for() hands out this KernelBackend, which times each kernel call as a Kernel event
// named after the entry and its op ("binary.Mul", "unary.Tanh", "reduce.Sum", "gemm", ...)
// and forwards it unchanged to the device's own backend. A new KernelBackend entry must be
// forwarded here too (the compiler says so: this class would stay abstract).
#include "nabla/backend/backend.h"

namespace nabla {

class ProfilingBackend final : public KernelBackend {
 public:
  explicit ProfilingBackend(KernelBackend& inner) : inner_(inner) {}
  DeviceType device_type() const override { return inner_.device_type(); }
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

 private:
  KernelBackend& inner_;
};

/// The event names the proxy uses ("unary.Tanh", "binary.Mul", "reduce.Sum").
const char* kernel_name(UnaryOp op);
const char* kernel_name(BinaryOp op);
const char* kernel_name(ReduceOp op);

}  // namespace nabla
