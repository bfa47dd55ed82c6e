// CPU matrix multiply: float32 through nabla's GEMM (gemm/), float64 and the thin
// float32 products (gemv, dot) through OpenBLAS, integers through a plain loop.
//
// Strided operands go to BLAS without copies whenever BLAS can describe them: a matrix
// whose column stride is 1 is row-major with leading dim = its row stride, and one whose
// row stride is 1 is the transpose of a row-major matrix. A strided output that BLAS
// cannot write is computed in a contiguous temporary and copied back. Thin products
// (one output row or column) use gemv/dot, which OpenBLAS runs much faster than gemm.
#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "backend/cpu/gemm/gemm.h"
#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "nabla/backend/parallel.h"

#include NABLA_CBLAS_HEADER

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {
namespace {

// OpenBLAS decides to run a gemm single-threaded below this many multiply-adds
// (SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD); batches of such products are
// worth spreading over our own threads instead.
constexpr int64_t kBlasSingleThreadWork = 65536 * 4;

// A matrix as BLAS sees it: element (i, j) is ptr[i * ld + j], or ptr[j * ld + i]
// when `trans` (the matrix is the transpose of a row-major one).
struct BlasMat {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

BlasMat transposed(BlasMat m) {
  m.trans = !m.trans;
  return m;
}

// How BLAS can address a rows x cols matrix with strides (s0, s1); ok == false when it
// cannot (a broadcast or otherwise overlapping or gapped layout).
BlasMat describe(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  BlasMat m;
  if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= std::max<int64_t>(1, cols))) {
    m.ok = true;
    m.ld = rows == 1 ? std::max<int64_t>(1, cols) : s0;
  } else if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= std::max<int64_t>(1, rows))) {
    m.ok = true;
    m.trans = true;
    m.ld = cols == 1 ? std::max<int64_t>(1, rows) : s1;
  }
  m.ok = m.ok && m.ld <= INT_MAX;
  return m;
}

BlasMat describe_last2(const Tensor& t) {
  int64_t d = t.dim();
  return describe(t.size(d - 2), t.size(d - 1), t.stride(d - 2), t.stride(d - 1));
}

CBLAS_TRANSPOSE cblas_trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

// Starting the thread pool makes OpenBLAS single-threaded (thread_pool.cpp); each
// OpenBLAS call below makes sure it has started.
CBLAS_TRANSPOSE blas_ready(bool t) {
  static const int pool_started = get_num_threads();
  (void)pool_started;
  return cblas_trans(t);
}

// float32 products go to gemm::sgemm (oneDNN's dnnl_sgemm or nabla's micro-kernels, both
// chosen by the CPU's feature flags); OpenBLAS picks its kernels from a table of CPU
// models and falls back to SSE3 on models it does not know.
void blas_gemm(int m, int n, int k, float alpha, const float* a, int lda, bool ta, const float* b,
               int ldb, bool tb, float beta, float* c, int ldc) {
  gemm::sgemm(m, n, k, alpha, a, ta ? 1 : lda, ta ? lda : 1, b, tb ? 1 : ldb, tb ? ldb : 1, beta, c,
              ldc);
}
void blas_gemm(int m, int n, int k, double alpha, const double* a, int lda, bool ta,
               const double* b, int ldb, bool tb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, blas_ready(ta), cblas_trans(tb), m, n, k, alpha, a, lda, b, ldb, beta,
              c, ldc);
}
void blas_gemv(bool t, int rows, int cols, float alpha, const float* a, int lda, const float* x,
               int incx, float beta, float* y, int incy) {
  cblas_sgemv(CblasRowMajor, blas_ready(t), rows, cols, alpha, a, lda, x, incx, beta, y, incy);
}
void blas_gemv(bool t, int rows, int cols, double alpha, const double* a, int lda, const double* x,
               int incx, double beta, double* y, int incy) {
  cblas_dgemv(CblasRowMajor, blas_ready(t), rows, cols, alpha, a, lda, x, incx, beta, y, incy);
}
float blas_dot(int n, const float* x, int incx, const float* y, int incy) {
  blas_ready(false);
  return cblas_sdot(n, x, incx, y, incy);
}
double blas_dot(int n, const double* x, int incx, const double* y, int incy) {
  blas_ready(false);
  return cblas_ddot(n, x, incx, y, incy);
}

// C (m x n, row-major, leading dim ldc) = alpha * A @ B + beta * C; beta == 0 never
// reads C (so NaN there does not leak into the result, as in LibTorch).
template <class T>
void gemm_one(int64_t m, int64_t n, int64_t k, T alpha, const T* a, BlasMat ma, const T* b,
              BlasMat mb, T beta, T* c, int64_t ldc) {
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  if (m == 1 && n == 1) {
    T d = blas_dot(ik, a, ma.trans ? static_cast<int>(ma.ld) : 1, b,
                   mb.trans ? 1 : static_cast<int>(mb.ld));
    c[0] = beta == T(0) ? alpha * d : alpha * d + beta * c[0];
  } else if (n == 1) {
    // c[:, 0] = A @ b[:, 0]
    if (beta == T(0))
      for (int64_t i = 0; i < m; ++i) c[i * ldc] = T(0);
    blas_gemv(ma.trans, ma.trans ? ik : im, ma.trans ? im : ik, alpha, a, static_cast<int>(ma.ld),
              b, mb.trans ? 1 : static_cast<int>(mb.ld), beta, c, static_cast<int>(ldc));
  } else if (m == 1) {
    // c[0, :] = B^T @ a[0, :]
    if (beta == T(0)) std::fill(c, c + n, T(0));
    blas_gemv(!mb.trans, mb.trans ? in : ik, mb.trans ? ik : in, alpha, b, static_cast<int>(mb.ld),
              a, ma.trans ? static_cast<int>(ma.ld) : 1, beta, c, 1);
  } else {
    blas_gemm(im, in, ik, alpha, a, static_cast<int>(ma.ld), ma.trans, b, static_cast<int>(mb.ld),
              mb.trans, beta, c, static_cast<int>(ldc));
  }
}

// Element offsets of every matrix in the batch dims (all but the last two) of the three
// operands, which share batch sizes.
struct BatchOffsets {
  int64_t count = 1;
  std::vector<int64_t> c, a, b;  // empty when count == 1 (all offsets 0)
};

BatchOffsets batch_offsets(const Tensor& c, const Tensor& a, const Tensor& b) {
  BatchOffsets r;
  const int64_t nb = c.dim() - 2;
  for (int64_t d = 0; d < nb; ++d) r.count *= c.size(d);
  if (r.count <= 1) return r;
  r.c.resize(r.count);
  r.a.resize(r.count);
  r.b.resize(r.count);
  std::vector<int64_t> idx(nb, 0);
  int64_t oc = 0, oa = 0, ob = 0;
  for (int64_t i = 0; i < r.count; ++i) {
    r.c[i] = oc;
    r.a[i] = oa;
    r.b[i] = ob;
    for (int64_t d = nb - 1; d >= 0; --d) {  // odometer step
      oc += c.stride(d);
      oa += a.stride(d);
      ob += b.stride(d);
      if (++idx[d] < c.size(d)) break;
      oc -= c.stride(d) * c.size(d);
      oa -= a.stride(d) * a.size(d);
      ob -= b.stride(d) * b.size(d);
      idx[d] = 0;
    }
  }
  return r;
}

// Runs body(i0, i1) over batch entries, on our threads when each product is too small
// for OpenBLAS to thread it.
template <class Body>
void for_each_batch(int64_t count, int64_t work_per_item, Body&& body) {
  if (count > 1 && work_per_item <= kBlasSingleThreadWork) {
    int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_item));
    parallel_for(0, count, grain, body);
  } else {
    body(0, count);
  }
}

template <class T>
void gemm_blas(const Tensor& c, const Tensor& a, const Tensor& b, T alpha, T beta, BlasMat ma,
               BlasMat mb, BlasMat mc) {
  const int64_t d = c.dim();
  int64_t m = c.size(d - 2), n = c.size(d - 1), k = a.size(d - 1);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = c.data_ptr<T>();
  BatchOffsets off = batch_offsets(c, a, b);
  // A column-major C is written as the row-major C^T = B^T @ A^T.
  const bool swap = mc.trans;
  auto body = [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const T* ai = pa + (off.a.empty() ? 0 : off.a[i]);
      const T* bi = pb + (off.b.empty() ? 0 : off.b[i]);
      T* ci = pc + (off.c.empty() ? 0 : off.c[i]);
      if (swap)
        gemm_one<T>(n, m, k, alpha, bi, transposed(mb), ai, transposed(ma), beta, ci, mc.ld);
      else
        gemm_one<T>(m, n, k, alpha, ai, ma, bi, mb, beta, ci, mc.ld);
    }
  };
  for_each_batch(off.count, m * n * k, body);
}

// Integer product: row i of C accumulates a[i, p] * b[p, :] over p, unsigned so that
// overflow wraps (as LibTorch's does in practice) without UB. Types narrower than int
// accumulate in unsigned int: theirs would promote to int, where 65535 * 65535 overflows.
template <class T>
void gemm_loop(const Tensor& c, const Tensor& a, const Tensor& b, T alpha, T beta) {
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
  const int64_t d = c.dim();
  const int64_t m = c.size(d - 2), n = c.size(d - 1), k = a.size(d - 1);
  const int64_t cs0 = c.stride(d - 2), cs1 = c.stride(d - 1);
  const int64_t as0 = a.stride(d - 2), as1 = a.stride(d - 1);
  const int64_t bs0 = b.stride(d - 2), bs1 = b.stride(d - 1);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = c.data_ptr<T>();
  BatchOffsets off = batch_offsets(c, a, b);
  auto rows = [&](int64_t r0, int64_t r1) {
    std::vector<U> acc(static_cast<size_t>(n));
    for (int64_t r = r0; r < r1; ++r) {
      int64_t bi = r / m, i = r % m;
      const T* ai = pa + (off.a.empty() ? 0 : off.a[bi]) + i * as0;
      const T* bbase = pb + (off.b.empty() ? 0 : off.b[bi]);
      T* ci = pc + (off.c.empty() ? 0 : off.c[bi]) + i * cs0;
      std::fill(acc.begin(), acc.end(), U(0));
      for (int64_t p = 0; p < k; ++p) {
        const U av = static_cast<U>(ai[p * as1]);
        const T* brow = bbase + p * bs0;
        if (bs1 == 1) {
          for (int64_t j = 0; j < n; ++j)
            acc[j] = static_cast<U>(acc[j] + av * static_cast<U>(brow[j]));
        } else {
          for (int64_t j = 0; j < n; ++j)
            acc[j] = static_cast<U>(acc[j] + av * static_cast<U>(brow[j * bs1]));
        }
      }
      const U ua = static_cast<U>(alpha), ub = static_cast<U>(beta);
      for (int64_t j = 0; j < n; ++j) {
        U v = static_cast<U>(ua * acc[j]);
        if (beta != T(0)) v = static_cast<U>(v + ub * static_cast<U>(ci[j * cs1]));
        ci[j * cs1] = static_cast<T>(v);
      }
    }
  };
  parallel_for(0, off.count * m, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * k)),
               rows);
}

// C = beta * C (the k == 0 product); beta == 0 assigns zeros.
template <class T>
void scale_output(const Tensor& c, T beta) {
  auto plan = make_plan<1>({&c});
  for_each_row(plan, [&](char** p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      T& v = *reinterpret_cast<T*>(p[0] + i * s[0]);
      v = beta == T(0) ? T(0) : static_cast<T>(beta * v);
    }
  });
}

bool shares_storage(const Tensor& x, const Tensor& y) {
  return x.impl()->storage() == y.impl()->storage();
}

// x's values in a new contiguous tensor, by this backend's copy (a backend calls no op).
Tensor contiguous_copy(const Tensor& x) {
  Tensor out = empty_contiguous(x.sizes(), x.scalar_type(), x.device());
  CpuBackend().copy(out, x);
  return out;
}

}  // namespace

void CpuBackend::gemm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
                      const Scalar& alpha) {
  const int64_t d = c.dim();
  NABLA_ASSERT(d >= 2 && a.dim() == d && b.dim() == d, "gemm: operands must share a rank >= 2");
  const int64_t m = c.size(d - 2), n = c.size(d - 1), k = a.size(d - 1);
  NABLA_ASSERT(a.size(d - 2) == m && b.size(d - 2) == k && b.size(d - 1) == n,
               "gemm: inconsistent sizes ", c.sizes(), " = ", a.sizes(), " @ ", b.sizes());
  const ScalarType dt = c.scalar_type();
  NABLA_ASSERT(a.scalar_type() == dt && b.scalar_type() == dt && dt != kBool,
               "gemm: operands must share a non-bool dtype");
  if (c.numel() == 0) return;
  if (k == 0) {
    dispatch_all(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) scale_output<T>(c, beta.to<T>());
    });
    return;
  }

  if (dt == kFloat || dt == kDouble) {
    NABLA_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, "gemm: matrix sizes ", a.sizes(),
                " and ", b.sizes(), " exceed what BLAS can address (", INT_MAX, " per dim)");
    // An input BLAS cannot address is made contiguous (whole batch at once).
    BlasMat ma = describe_last2(a), mb = describe_last2(b);
    if (!ma.ok || !mb.ok) {
      gemm(c, ma.ok ? a : contiguous_copy(a), mb.ok ? b : contiguous_copy(b), beta, alpha);
      return;
    }
    // An output BLAS cannot write, or one aliasing an input, goes through a temporary.
    BlasMat mc = describe_last2(c);
    if (!mc.ok || shares_storage(c, a) || shares_storage(c, b)) {
      Tensor tmp = beta.toDouble() == 0 ? empty_contiguous(c.sizes(), c.scalar_type(), c.device())
                                        : contiguous_copy(c);
      gemm(tmp, a, b, beta, alpha);
      copy(c, tmp);
      return;
    }
    if (dt == kFloat)
      gemm_blas<float>(c, a, b, alpha.to<float>(), beta.to<float>(), ma, mb, mc);
    else
      gemm_blas<double>(c, a, b, alpha.to<double>(), beta.to<double>(), ma, mb, mc);
    return;
  }
  dispatch_all(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool> && std::is_integral_v<T>)
      gemm_loop<T>(c, a, b, alpha.to<T>(), beta.to<T>());
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
