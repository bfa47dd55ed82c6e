// Fused scaled dot-product attention on the CPU (Note [Fused attention],
// src/ops/nn/attention.cpp), in the way of FlashAttention-2: the queries of one (batch,
// head) in blocks of kRows, the keys in blocks of kCols; each block's scores come from one
// small product, are masked and exponentiated against a running row maximum (the online
// softmax), and multiply their values into an accumulator that is rescaled when the maximum
// grows. Only one kRows x kCols block of scores exists at a time, never the L x S matrix;
// the backward recomputes the probabilities of each block from the saved log-sum-exp.
// Under a causal mask the blocks wholly above the diagonal are skipped.
//
// Forward: tasks are (batch, query block); backward: tasks are batches, each a serial sweep
// over key blocks (outer) and query blocks (inner), so that no two threads write one
// gradient row and nothing needs atomics. The products run on gemm::sgemm (float) or
// OpenBLAS (double), single-threaded inside the pool's tasks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "backend/cpu/gemm/gemm.h"
#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/row_reduce.h"
#include "backend/cpu/vec_math.h"
#include "backend/philox.h"
#include "nabla/backend/parallel.h"

#include NABLA_CBLAS_HEADER

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {
namespace {

constexpr int64_t kRows = 64;   // queries per block
constexpr int64_t kCols = 128;  // keys per block

// C (m x n, row stride ldc) = alpha * A B + beta * C with A(i, p) = a[i rsa + p csa] and
// B(p, j) = b[p rsb + j csb]; every operand has a unit stride in one of its dims.
void mm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t rsa, int64_t csa,
        const float* b, int64_t rsb, int64_t csb, float beta, float* c, int64_t ldc) {
  gemm::sgemm(m, n, k, alpha, a, rsa, csa, b, rsb, csb, beta, c, ldc);
}
void mm(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t rsa, int64_t csa,
        const double* b, int64_t rsb, int64_t csb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  // Row-major A when its columns are unit-strided, else the transpose of a row-major one.
  const bool ta = csa != 1, tb = csb != 1;
  const auto ld = [](int64_t s) { return static_cast<int>(std::max<int64_t>(1, s)); };
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a,
              ld(ta ? csa : rsa), b, ld(tb ? csb : rsb), beta, c, ld(ldc));
}

// The element offset of each batch (flat over the leading dims, row-major) of t.
std::vector<int64_t> batch_offsets(const Tensor& t, int64_t batches) {
  std::vector<int64_t> off(static_cast<size_t>(batches), 0);
  if (!t.defined()) return off;
  const int64_t nd = t.dim() - 2;
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rest = b, o = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      o += (rest % t.size(d)) * t.stride(d);
      rest /= t.size(d);
    }
    off[static_cast<size_t>(b)] = o;
  }
  return off;
}

// One (batch, head) problem's operands: row-major blocks with unit last stride.
template <class T>
struct Problem {
  const T *q, *k, *v, *mask;
  int64_t qs, ks, vs, mrs, mcs;  // row strides; the mask's column stride
  int64_t L, S, E, Ev;
  int64_t batch;  // flat batch index, for the dropout counters
};

template <class T>
struct Shared {
  int64_t batches, L, S, E, Ev;
  std::vector<int64_t> qo, ko, vo, mo;
  const T *q, *k, *v, *mask;
  int64_t qs, ks, vs, mrs, mcs;
  AttentionParams p;

  Shared(const Tensor& tq, const Tensor& tk, const Tensor& tv, const Tensor& tm,
         const AttentionParams& params)
      : p(params) {
    const int64_t d = tq.dim();
    L = tq.size(d - 2), E = tq.size(d - 1), S = tk.size(d - 2), Ev = tv.size(d - 1);
    batches = 1;
    for (int64_t i = 0; i < d - 2; ++i) batches *= tq.size(i);
    qo = batch_offsets(tq, batches), ko = batch_offsets(tk, batches);
    vo = batch_offsets(tv, batches), mo = batch_offsets(tm, batches);
    q = tq.data_ptr<T>(), k = tk.data_ptr<T>(), v = tv.data_ptr<T>();
    mask = tm.defined() ? tm.data_ptr<T>() : nullptr;
    qs = tq.stride(d - 2), ks = tk.stride(d - 2), vs = tv.stride(d - 2);
    mrs = tm.defined() ? tm.stride(d - 2) : 0, mcs = tm.defined() ? tm.stride(d - 1) : 0;
  }
  Problem<T> at(int64_t b) const {
    const auto i = static_cast<size_t>(b);
    return {
        q + qo[i], k + ko[i], v + vo[i], mask ? mask + mo[i] : nullptr, qs, ks, vs, mrs, mcs, L, S,
        E,         Ev,        b};
  }
};

// The scores of rows [i0, i0 + nr) against keys [j0, j0 + nc): s = scale * q k^T + mask,
// -inf where the causal mask hides a key. Row stride of s: kCols.
template <class T>
void scores(T* s, const Problem<T>& pr, const AttentionParams& p, int64_t i0, int64_t nr,
            int64_t j0, int64_t nc) {
  // s(i, j) = sum_e q[(i0 + i) qs + e] k[(j0 + j) ks + e]: B(e, j) = k[j ks + e].
  mm(nr, nc, pr.E, T(p.scale), pr.q + i0 * pr.qs, pr.qs, 1, pr.k + j0 * pr.ks, 1, pr.ks, T(0), s,
     kCols);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < nr; ++i) {
    T* row = s + i * kCols;
    if (pr.mask) {
      const T* m = pr.mask + (i0 + i) * pr.mrs + j0 * pr.mcs;
      if (pr.mcs == 1) {
        for (int64_t j = 0; j < nc; ++j) row[j] += m[j];
      } else {
        for (int64_t j = 0; j < nc; ++j) row[j] += m[j * pr.mcs];
      }
    }
    if (p.causal)
      for (int64_t j = std::max<int64_t>(0, i0 + i + 1 - j0); j < nc; ++j) row[j] = neg_inf;
  }
}

// The dropout factor of weight (i, j) of a batch: 0 when dropped, 1 / (1 - p) when kept
// (AttentionParams).
template <class T>
T keep_factor(const Problem<T>& pr, const AttentionParams& p, int64_t i, int64_t j, T inv_keep) {
  uint32_t w[4];
  const uint64_t ctr = p.offset + static_cast<uint64_t>((pr.batch * pr.L + i) * pr.S + j);
  philox::words(p.seed, ctr, w);
  return philox::to_unit(w[0], w[1]) >= p.dropout_p ? inv_keep : T(0);
}

// Keys that rows [i0, i0 + nr) may attend to: all S, or under the causal mask the first
// i0 + nr.
template <class T>
int64_t key_limit(const Problem<T>& pr, const AttentionParams& p, int64_t i0, int64_t nr) {
  return p.causal ? std::min(pr.S, i0 + nr) : pr.S;
}

// Rows [i0, i0 + nr) of one problem: out (row stride Ev) and lse (or null).
template <class T>
void forward_block(const Problem<T>& pr, const AttentionParams& p, int64_t i0, int64_t nr, T* out,
                   T* lse, std::vector<T>& buf) {
  const int64_t Ev = pr.Ev;
  buf.resize(static_cast<size_t>(kRows * kCols + kRows * Ev + 2 * kRows));
  T* s = buf.data();
  T* acc = s + kRows * kCols;
  T* mx = acc + kRows * Ev;
  T* sum = mx + kRows;
  const T neg_inf = -std::numeric_limits<T>::infinity();
  std::fill(acc, acc + nr * Ev, T(0));
  std::fill(mx, mx + nr, neg_inf);
  std::fill(sum, sum + nr, T(0));
  const bool dropout = p.dropout_p > 0;
  const T inv_keep = T(1) / T(1 - p.dropout_p);
  const int64_t limit = key_limit(pr, p, i0, nr);
  for (int64_t j0 = 0; j0 < limit; j0 += kCols) {
    const int64_t nc = std::min(kCols, limit - j0);
    scores(s, pr, p, i0, nr, j0, nc);
    for (int64_t i = 0; i < nr; ++i) {
      T* row = s + i * kCols;
      const T m = std::max(mx[i], lane_max(row, nc));
      if (m == neg_inf) {  // every key so far masked: this block adds nothing
        std::fill(row, row + nc, T(0));
        continue;
      }
      const T rescale = vec_exp(mx[i] - m);  // 0 on the first unmasked block
      // Masked scores give exactly 0 (no subnormals).
      const T block_sum = lane_sum(
          row, nc, [&](T x, int64_t j) { return row[j] = x == neg_inf ? T(0) : vec_exp(x - m); });
      sum[i] = sum[i] * rescale + block_sum;
      mx[i] = m;
      if (rescale != T(1)) {
        T* a = acc + i * Ev;
        for (int64_t e = 0; e < Ev; ++e) a[e] *= rescale;
      }
      if (dropout)
        for (int64_t j = 0; j < nc; ++j) row[j] *= keep_factor(pr, p, i0 + i, j0 + j, inv_keep);
    }
    // acc += P [nr, nc] @ v[j0 : j0 + nc] [nc, Ev]
    mm(nr, Ev, nc, T(1), s, kCols, 1, pr.v + j0 * pr.vs, pr.vs, 1, T(1), acc, Ev);
  }
  for (int64_t i = 0; i < nr; ++i) {
    const T inv = sum[i] > 0 ? T(1) / sum[i] : T(0);
    const T* a = acc + i * Ev;
    T* o = out + i * Ev;
    for (int64_t e = 0; e < Ev; ++e) o[e] = a[e] * inv;
    if (lse) lse[i] = sum[i] > 0 ? mx[i] + std::log(sum[i]) : neg_inf;
  }
}

template <class T>
void forward(const Tensor& out, const Tensor& lse, const Shared<T>& sh) {
  const int64_t blocks = (sh.L + kRows - 1) / kRows;
  T* o = out.data_ptr<T>();
  T* l = lse.defined() ? lse.data_ptr<T>() : nullptr;
  parallel_for(0, sh.batches * blocks, 1, [&](int64_t t0, int64_t t1) {
    std::vector<T> buf;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / blocks, i0 = (t % blocks) * kRows;
      const int64_t nr = std::min(kRows, sh.L - i0);
      forward_block(sh.at(b), sh.p, i0, nr, o + (b * sh.L + i0) * sh.Ev,
                    l ? l + b * sh.L + i0 : nullptr, buf);
    }
  });
}

// Gradients of one problem. go: grad_out rows (row stride gos), o: out rows (Ev), lse: [L];
// gq [L, E], gk [S, E], gv [S, Ev] contiguous (each may be null).
template <class T>
void backward_problem(const Problem<T>& pr, const AttentionParams& p, const T* go, int64_t gos,
                      const T* o, const T* lse, T* gq, T* gk, T* gv, std::vector<T>& buf) {
  const int64_t L = pr.L, S = pr.S, E = pr.E, Ev = pr.Ev;
  buf.resize(static_cast<size_t>(2 * kRows * kCols + L));
  T* prob = buf.data();          // P, then P * dropout factor
  T* dp = prob + kRows * kCols;  // dL/dP, then dL/dS
  T* rowdot = dp + kRows * kCols;
  // rowdot[i] = sum_e go[i, e] o[i, e] = sum_j Pdropped[i, j] dPdropped[i, j]
  for (int64_t i = 0; i < L; ++i) {
    const T* gi = go + i * gos;
    rowdot[i] = lane_sum(o + i * Ev, Ev, [&](T x, int64_t e) { return x * gi[e]; });
  }
  if (gq) std::fill(gq, gq + L * E, T(0));
  if (gk) std::fill(gk, gk + S * E, T(0));
  if (gv) std::fill(gv, gv + S * Ev, T(0));
  const bool dropout = p.dropout_p > 0;
  const T inv_keep = T(1) / T(1 - p.dropout_p);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t j0 = 0; j0 < S; j0 += kCols) {
    const int64_t nc = std::min(kCols, S - j0);
    // Under the causal mask, query blocks ending before key j0 see none of these keys.
    const int64_t first_row = p.causal ? j0 / kRows * kRows : 0;
    for (int64_t i0 = first_row; i0 < L; i0 += kRows) {
      const int64_t nr = std::min(kRows, L - i0);
      scores(prob, pr, p, i0, nr, j0, nc);
      for (int64_t i = 0; i < nr; ++i) {
        T* row = prob + i * kCols;
        const T l = lse[i0 + i];
        if (l == neg_inf) {
          std::fill(row, row + nc, T(0));
        } else {
          for (int64_t j = 0; j < nc; ++j) row[j] = row[j] == neg_inf ? T(0) : vec_exp(row[j] - l);
        }
      }
      // dp = go [nr, Ev] @ v[j0 : j0 + nc]^T: B(e, j) = v[j vs + e]
      mm(nr, nc, Ev, T(1), go + i0 * gos, gos, 1, pr.v + j0 * pr.vs, 1, pr.vs, T(0), dp, kCols);
      for (int64_t i = 0; i < nr; ++i) {
        T* P = prob + i * kCols;
        T* d = dp + i * kCols;
        const T rd = rowdot[i0 + i];
        if (dropout) {
          for (int64_t j = 0; j < nc; ++j) {
            const T f = keep_factor(pr, p, i0 + i, j0 + j, inv_keep);
            d[j] = P[j] * (d[j] * f - rd);  // dS
            P[j] *= f;                      // the weight v was multiplied by
          }
        } else {
          for (int64_t j = 0; j < nc; ++j) d[j] = P[j] * (d[j] - rd);
        }
      }
      // gv[j0 : j0 + nc] += Pdropped^T [nc, nr] @ go [nr, Ev]
      if (gv) mm(nc, Ev, nr, T(1), prob, 1, kCols, go + i0 * gos, gos, 1, T(1), gv + j0 * Ev, Ev);
      // gq[i0 : i0 + nr] += scale * dS [nr, nc] @ k[j0 : j0 + nc] [nc, E]
      if (gq)
        mm(nr, E, nc, T(p.scale), dp, kCols, 1, pr.k + j0 * pr.ks, pr.ks, 1, T(1), gq + i0 * E, E);
      // gk[j0 : j0 + nc] += scale * dS^T [nc, nr] @ q[i0 : i0 + nr] [nr, E]
      if (gk)
        mm(nc, E, nr, T(p.scale), dp, 1, kCols, pr.q + i0 * pr.qs, pr.qs, 1, T(1), gk + j0 * E, E);
    }
  }
}

template <class T>
void backward(const Tensor& gq, const Tensor& gk, const Tensor& gv, const Tensor& go,
              const Tensor& out, const Tensor& lse, const Shared<T>& sh) {
  const std::vector<int64_t> goo = batch_offsets(go, sh.batches);
  const int64_t gos = go.stride(go.dim() - 2);
  T* pq = gq.defined() ? gq.data_ptr<T>() : nullptr;
  T* pk = gk.defined() ? gk.data_ptr<T>() : nullptr;
  T* pv = gv.defined() ? gv.data_ptr<T>() : nullptr;
  const T* po = out.data_ptr<T>();
  const T* pl = lse.data_ptr<T>();
  const T* pg = go.data_ptr<T>();
  parallel_for(0, sh.batches, 1, [&](int64_t b0, int64_t b1) {
    std::vector<T> buf;
    for (int64_t b = b0; b < b1; ++b)
      backward_problem(sh.at(b), sh.p, pg + goo[static_cast<size_t>(b)], gos, po + b * sh.L * sh.Ev,
                       pl + b * sh.L, pq ? pq + b * sh.L * sh.E : nullptr,
                       pk ? pk + b * sh.S * sh.E : nullptr, pv ? pv + b * sh.S * sh.Ev : nullptr,
                       buf);
  });
}

}  // namespace

bool CpuBackend::attention_forward(const Tensor& out, const Tensor& lse, const Tensor& q,
                                   const Tensor& k, const Tensor& v, const Tensor& mask,
                                   const AttentionParams& p) {
  if (q.scalar_type() != kFloat && q.scalar_type() != kDouble) return false;
  dispatch_floating(q.scalar_type(), "attention_forward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward<T>(out, lse, Shared<T>(q, k, v, mask, p));
  });
  return true;
}

bool CpuBackend::attention_backward(const Tensor& grad_q, const Tensor& grad_k,
                                    const Tensor& grad_v, const Tensor& grad_out, const Tensor& out,
                                    const Tensor& lse, const Tensor& q, const Tensor& k,
                                    const Tensor& v, const Tensor& mask, const AttentionParams& p) {
  if (q.scalar_type() != kFloat && q.scalar_type() != kDouble) return false;
  dispatch_floating(q.scalar_type(), "attention_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward<T>(grad_q, grad_k, grad_v, grad_out, out, lse, Shared<T>(q, k, v, mask, p));
  });
  return true;
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
