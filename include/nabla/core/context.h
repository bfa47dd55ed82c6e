#pragma once
// The global context (at::globalContext()): process-wide switches LibTorch programs set
// at start-up. On CUDA, allowTF32CuBLAS (default off) lets float32 products use TF32,
// allowTF32CuDNN (default on, as LibTorch) lets cuDNN convolutions use it, and the
// deterministic/benchmark cuDNN flags steer cuDNN's algorithm choice; the CPU's ops are
// deterministic and ignore them. The FP16 switches are recorded and reported back;
// setFlushDenormal sets the calling thread's FTZ/DAZ bits as LibTorch does.
#include <string>

namespace nabla {

class Context {
 public:
  bool deterministicAlgorithms() const { return deterministic_algorithms_; }
  bool deterministicAlgorithmsWarnOnly() const { return deterministic_warn_only_; }
  void setDeterministicAlgorithms(bool enabled, bool warn_only = false) {
    deterministic_algorithms_ = enabled;
    deterministic_warn_only_ = warn_only;
  }
  bool deterministicCuDNN() const { return deterministic_cudnn_; }
  void setDeterministicCuDNN(bool enabled) { deterministic_cudnn_ = enabled; }
  bool benchmarkCuDNN() const { return benchmark_cudnn_; }
  void setBenchmarkCuDNN(bool enabled) { benchmark_cudnn_ = enabled; }
  bool userEnabledCuDNN() const { return user_enabled_cudnn_; }
  void setUserEnabledCuDNN(bool enabled) { user_enabled_cudnn_ = enabled; }
  bool userEnabledMkldnn() const { return user_enabled_mkldnn_; }
  void setUserEnabledMkldnn(bool enabled) { user_enabled_mkldnn_ = enabled; }
  bool allowTF32CuBLAS() const { return allow_tf32_cublas_; }
  void setAllowTF32CuBLAS(bool enabled) { allow_tf32_cublas_ = enabled; }
  bool allowTF32CuDNN() const { return allow_tf32_cudnn_; }
  void setAllowTF32CuDNN(bool enabled) { allow_tf32_cudnn_ = enabled; }
  bool allowFP16ReductionCuBLAS() const { return allow_fp16_reduction_; }
  void setAllowFP16ReductionCuBLAS(bool enabled) { allow_fp16_reduction_ = enabled; }
  /// "highest", "high" or "medium" (nabla always computes float32 matmul in float32).
  void setFloat32MatmulPrecision(const std::string& precision);
  std::string float32MatmulPrecision() const { return matmul_precision_; }
  /// Flushes subnormal floats to zero on the calling thread (x86 FTZ/DAZ); false where
  /// the CPU cannot.
  bool setFlushDenormal(bool on);
  bool hasCUDA() const { return false; }
  bool hasCuDNN() const { return false; }
  bool hasMPS() const { return false; }
  bool hasHIP() const { return false; }
  bool hasMKL() const { return false; }
  bool hasMKLDNN() const { return false; }
  bool hasOpenMP() const { return false; }
  bool hasLAPACK() const { return false; }
  /// Nothing to wait for: every nabla op has finished when it returns.
  void alertNotDeterministic(const char*) const {}

 private:
  bool deterministic_algorithms_ = false, deterministic_warn_only_ = false;
  bool deterministic_cudnn_ = false, benchmark_cudnn_ = false, user_enabled_cudnn_ = true;
  bool user_enabled_mkldnn_ = true;
  bool allow_tf32_cublas_ = false, allow_tf32_cudnn_ = true, allow_fp16_reduction_ = true;
  std::string matmul_precision_ = "highest";
};

/// The process-wide context.
Context& globalContext();

}  // namespace nabla
