#pragma once
// float32 GEMM: nabla's packed, cache-blocked driver (gemm.cpp) around register-tiled
// micro-kernels, one per ISA path (kernels_avx512.cpp, kernels_avx2.cpp, the scalar one in
// gemm.cpp), chosen at run time by active_isa(); or, when oneDNN is built in, its
// dnnl_sgemm (onednn/gemm_dnnl.h), split over nabla's pool by the same driver. Operands
// are general strided matrices, so transposed and sliced views need no copy before the
// call (packing reads them).
#include <cstdint>
#include <string>

#include "nabla/backend/isa.h"

namespace nabla::cpu::gemm {

/// C = alpha * A B + beta * C, with A(i, p) = a[i * rsa + p * csa] (m x k),
/// B(p, j) = b[p * rsb + j * csb] (k x n) and C(i, j) = c[i * ldc + j] (m x n).
/// beta == 0 never reads C. Runs on the intra-op thread pool when the product is large.
void sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa, int64_t csa,
           const float* b, int64_t rsb, int64_t csb, float beta, float* c, int64_t ldc);

/// The same with nabla's micro-kernels on a given path (tests run every path the CPU
/// supports). Single-threaded when `threads` is 1.
void sgemm_on(Isa isa, int threads, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t rsa, int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta,
              float* c, int64_t ldc);

/// The same through oneDNN's dnnl_sgemm, split over the pool as sgemm_on; parts whose
/// operands dnnl_sgemm cannot take use nabla's kernels. sgemm() takes this when
/// onednn::available(): dnnl_sgemm ran 8-25% faster than nabla's kernels on every shape
/// measured (bench/RESULTS.md, bench_kernels).
void sgemm_onednn(int threads, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t rsa, int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta,
                  float* c, int64_t ldc);

/// "nabla avx512 12x32 micro-kernel", "oneDNN 2.6.3, avx512_core_bf16 kernels
/// (dnnl_sgemm), ..." and the like, for show_config().
std::string describe();

// ---- The micro-kernel contract (for the per-ISA files) ----------------------------------

/// Computes the MR x NR tile acc = sum_p ap[p * MR + i] * bp[p * NR + j] over kc steps and
/// stores C(i, j) = alpha * acc + beta * C(i, j) for i < mr, j < nr (beta == 0: C not read).
using MicroKernel = void (*)(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc,
                             float alpha, float beta, int mr, int nr);

/// A path's micro-kernel and block sizes: MC x KC blocks of A and KC x NC blocks of B are
/// packed into MR-row and NR-column panels.
struct Kernel {
  MicroKernel run;
  int mr, nr, mc, kc, nc;
  const char* name;
};

Kernel avx512_kernel();
Kernel avx2_kernel();
Kernel scalar_kernel();

}  // namespace nabla::cpu::gemm
