// The GEMM driver (see gemm.h): C is computed in NC-column, KC-deep, MC-row blocks; each
// block of A and B is packed once into the micro-kernel's panel layout (MR rows or NR
// columns interleaved per step of k, zero-padded at the edges), so the kernel streams
// contiguous, aligned memory whatever the operands' strides. Large products are split
// over the thread pool by columns (or rows, when C is narrow); each thread packs its
// own blocks.
#include "backend/cpu/gemm/gemm.h"

#include "backend/cpu/onednn/gemm_dnnl.h"
#include "backend/cpu/onednn/onednn.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"

namespace nabla::cpu::gemm {
namespace {

// The portable micro-kernel (4 x 8), for CPUs without AVX2 and as the reference path.
constexpr int kScalarMr = 4;
constexpr int kScalarNr = 8;
void kernel_scalar(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, float alpha,
                   float beta, int mr, int nr) {
  float acc[kScalarMr][kScalarNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < kScalarMr; ++i)
      for (int j = 0; j < kScalarNr; ++j) acc[i][j] += ap[i] * bp[j];
    ap += kScalarMr;
    bp += kScalarNr;
  }
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) {
      float& out = c[i * ldc + j];
      out = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * out;
    }
}

// A 64-byte aligned scratch buffer per thread, grown on demand (packing never allocates
// once the largest block has been seen).
struct Scratch {
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data;
  size_t size = 0;
  float* get(size_t n) {
    if (n > size) {
      const size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
      data.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
      NABLA_CHECK(data != nullptr, "matmul: cannot allocate ", bytes, " bytes of packing space");
      size = n;
    }
    return data.get();
  }
};

// A(ic + i, pc + p) for i < mc, p < kc into MR-row panels: panel r holds rows
// [r * MR, r * MR + MR) as kc groups of MR values (rows past mc are zero).
void pack_a(const Kernel& kr, int64_t mc, int64_t kc, const float* a, int64_t rsa, int64_t csa,
            float* out) {
  const float* rows_ptr[32];
  for (int64_t r = 0; r < mc; r += kr.mr) {
    const int rows = static_cast<int>(std::min<int64_t>(kr.mr, mc - r));
    for (int i = 0; i < rows; ++i) rows_ptr[i] = a + (r + i) * rsa;
    // Step along k, writing each group of MR values contiguously (rows past mc are zero).
    for (int64_t p = 0; p < kc; ++p) {
      float* dst = out + p * kr.mr;
      const int64_t off = p * csa;
      for (int i = 0; i < rows; ++i) dst[i] = rows_ptr[i][off];
      for (int i = rows; i < kr.mr; ++i) dst[i] = 0.0f;
    }
    out += kc * kr.mr;
  }
}

// B(pc + p, jc + j) for p < kc, j < nc into NR-column panels of kc groups of NR values.
void pack_b(const Kernel& kr, int64_t kc, int64_t nc, const float* b, int64_t rsb, int64_t csb,
            float* out) {
  for (int64_t q = 0; q < nc; q += kr.nr) {
    const int cols = static_cast<int>(std::min<int64_t>(kr.nr, nc - q));
    const float* base = b + q * csb;
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = base + p * rsb;
      float* dst = out + p * kr.nr;
      if (csb == 1) {
        std::copy(src, src + cols, dst);
      } else {
        for (int j = 0; j < cols; ++j) dst[j] = src[j * csb];
      }
      std::fill(dst + cols, dst + kr.nr, 0.0f);
    }
    out += kc * kr.nr;
  }
}

// The whole product on the calling thread.
void run_serial(const Kernel& kr, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                int64_t rsa, int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta,
                float* c, int64_t ldc) {
  thread_local Scratch a_buf, b_buf;
  const int64_t kc_max = std::min<int64_t>(kr.kc, k);
  const int64_t nc_max = std::min<int64_t>(kr.nc, (n + kr.nr - 1) / kr.nr * kr.nr);
  const int64_t mc_max = std::min<int64_t>(kr.mc, (m + kr.mr - 1) / kr.mr * kr.mr);
  float* bp = b_buf.get(static_cast<size_t>(kc_max * nc_max));
  float* ap = a_buf.get(static_cast<size_t>(kc_max * mc_max));
  for (int64_t jc = 0; jc < n; jc += kr.nc) {
    const int64_t nc = std::min<int64_t>(kr.nc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kr.kc) {
      const int64_t kc = std::min<int64_t>(kr.kc, k - pc);
      const float beta_block = pc == 0 ? beta : 1.0f;
      pack_b(kr, kc, nc, b + pc * rsb + jc * csb, rsb, csb, bp);
      for (int64_t ic = 0; ic < m; ic += kr.mc) {
        const int64_t mc = std::min<int64_t>(kr.mc, m - ic);
        pack_a(kr, mc, kc, a + ic * rsa + pc * csa, rsa, csa, ap);
        for (int64_t jr = 0; jr < nc; jr += kr.nr) {
          const int nr = static_cast<int>(std::min<int64_t>(kr.nr, nc - jr));
          for (int64_t ir = 0; ir < mc; ir += kr.mr) {
            const int mr = static_cast<int>(std::min<int64_t>(kr.mr, mc - ir));
            kr.run(kc, ap + ir * kc, bp + jr * kc, c + (ic + ir) * ldc + jc + jr, ldc, alpha,
                   beta_block, mr, nr);
          }
        }
      }
    }
  }
}

Kernel kernel_for(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return avx512_kernel();
    case Isa::Avx2:
      return avx2_kernel();
    case Isa::Scalar:
      break;
  }
  return scalar_kernel();
}

// Below this many multiply-adds one thread is faster than waking others.
constexpr int64_t kParallelWork = int64_t(1) << 18;

}  // namespace

Kernel scalar_kernel() {
  return {kernel_scalar, kScalarMr, kScalarNr, 64, 256, 2048, "scalar 4x8"};
}

namespace {

// C = beta C where there is nothing to multiply; true when that was the whole product.
bool trivial(int64_t m, int64_t n, int64_t k, float alpha, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return true;
  if (k > 0 && alpha != 0.0f) return false;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
  return true;
}

// The product split over the pool, each part computed by part(m, n, a, b, c) on one
// thread: C by columns in whole multiples of `nr` when it is wide enough, else by rows in
// multiples of `mr`; one part (small products, one thread) on the calling thread.
template <class Part>
void split(int threads, int mr, int nr, int64_t m, int64_t n, int64_t k, const float* a,
           int64_t rsa, const float* b, int64_t csb, float* c, int64_t ldc, Part&& part) {
  if (threads <= 1 || m * n * k < kParallelWork || in_parallel_region()) {
    part(m, n, a, b, c);
    return;
  }
  const bool by_cols = n >= int64_t(threads) * nr * 2 || m < int64_t(threads) * mr * 2;
  const int64_t unit = by_cols ? nr : mr;
  const int64_t extent = by_cols ? n : m;
  const int64_t units = (extent + unit - 1) / unit;
  const int64_t parts = std::min<int64_t>(threads, units);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t lo = units * t / parts * unit,
                    hi = std::min(extent, units * (t + 1) / parts * unit);
      if (lo >= hi) continue;
      if (by_cols)
        part(m, hi - lo, a, b + lo * csb, c + lo);
      else
        part(hi - lo, n, a + lo * rsa, b, c + lo * ldc);
    }
  });
}

}  // namespace

void sgemm_on(Isa isa, int threads, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t rsa, int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta,
              float* c, int64_t ldc) {
  if (trivial(m, n, k, alpha, beta, c, ldc)) return;
  const Kernel kr = kernel_for(isa);
  split(threads, kr.mr, kr.nr, m, n, k, a, rsa, b, csb, c, ldc,
        [&](int64_t pm, int64_t pn, const float* pa, const float* pb, float* pc) {
          run_serial(kr, pm, pn, k, alpha, pa, rsa, csa, pb, rsb, csb, beta, pc, ldc);
        });
}

void sgemm_onednn(int threads, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                  int64_t rsa, int64_t csa, const float* b, int64_t rsb, int64_t csb, float beta,
                  float* c, int64_t ldc) {
  if (trivial(m, n, k, alpha, beta, c, ldc)) return;
  const Kernel kr = kernel_for(active_isa());  // for operands dnnl_sgemm does not take
  split(threads, kr.mr, kr.nr, m, n, k, a, rsa, b, csb, c, ldc,
        [&](int64_t pm, int64_t pn, const float* pa, const float* pb, float* pc) {
          if (!onednn::sgemm_serial(pm, pn, k, alpha, pa, rsa, csa, pb, rsb, csb, beta, pc, ldc))
            run_serial(kr, pm, pn, k, alpha, pa, rsa, csa, pb, rsb, csb, beta, pc, ldc);
        });
}

void sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa, int64_t csa,
           const float* b, int64_t rsb, int64_t csb, float beta, float* c, int64_t ldc) {
  if (onednn::available())
    sgemm_onednn(get_num_threads(), m, n, k, alpha, a, rsa, csa, b, rsb, csb, beta, c, ldc);
  else
    sgemm_on(active_isa(), get_num_threads(), m, n, k, alpha, a, rsa, csa, b, rsb, csb, beta, c,
             ldc);
}

std::string describe() {
  if (onednn::available()) return onednn::describe() + " (dnnl_sgemm), parts on nabla's pool";
  return std::string("nabla ") + kernel_for(active_isa()).name + " micro-kernel";
}

}  // namespace nabla::cpu::gemm
