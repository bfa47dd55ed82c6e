#pragma once
// float32 matrix products through oneDNN's dnnl_sgemm, one call on the calling thread;
// gemm::sgemm splits a product over nabla's pool and calls this per part.
#include <cstdint>

namespace nabla::cpu::onednn {

/// C = alpha * A B + beta * C with gemm::sgemm's strided operands, on the calling thread
/// (single-threaded). False, with nothing written, when oneDNN is not available or an
/// operand has no unit stride in either dim (dnnl_sgemm takes plain or transposed
/// row-major matrices only).
bool sgemm_serial(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa,
                  int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta, float* c,
                  int64_t ldc);

}  // namespace nabla::cpu::onednn
