// dnnl_sgemm behind gemm_dnnl.h.
#include "backend/cpu/onednn/gemm_dnnl.h"

#include <algorithm>

#include "backend/cpu/onednn/onednn.h"

#if NABLA_HAVE_DNNL

#include <oneapi/dnnl/dnnl.h>

namespace nabla::cpu::onednn {
namespace {

// A rows x cols operand with element (i, j) at p[i * rs + j * cs] as dnnl_sgemm sees it:
// row-major ('N', leading dim rs) or its transpose ('T', leading dim cs).
bool as_blas(int64_t rows, int64_t cols, int64_t rs, int64_t cs, char& trans, int64_t& ld) {
  if (cs == 1 && (rows == 1 || rs >= cols)) {
    trans = 'N';
    ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    return true;
  }
  if (rs == 1 && (cols == 1 || cs >= rows)) {
    trans = 'T';
    ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    return true;
  }
  return false;
}

}  // namespace

bool sgemm_serial(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa,
                  int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta, float* c,
                  int64_t ldc) {
  char ta, tb;
  int64_t lda, ldb;
  if (!available() || !as_blas(m, k, rsa, csa, ta, lda) || !as_blas(k, n, rsb, csb, tb, ldb))
    return false;
  set_threads(1);  // nabla's pool runs the parts
  return dnnl_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                    m == 1 ? std::max(ldc, n) : ldc) == dnnl_success;
}

}  // namespace nabla::cpu::onednn

#else  // built without oneDNN

namespace nabla::cpu::onednn {

bool sgemm_serial(int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t, const float*,
                  int64_t, int64_t, float, float*, int64_t) {
  return false;
}

}  // namespace nabla::cpu::onednn

#endif
