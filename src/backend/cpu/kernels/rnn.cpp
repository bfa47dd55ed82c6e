// Fused recurrent cells on the CPU (Note [Fused recurrent cells], src/ops/nn/rnn_cells.cpp):
// the pointwise part of an LSTM or GRU step and its backward, one pass over each row of
// gates. Every loop runs over the H columns of one row with straight-line arithmetic
// (vec_sigmoid, vec_tanh), so the compiler vectorizes it; rows are split over threads
// when a step is large.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vec_math.h"
#include "nabla/backend/parallel.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

// Float or double, contiguous (undefined tensors pass: optional operands).
bool fusable(ScalarType t, std::initializer_list<const Tensor*> ts) {
  if (t != kFloat && t != kDouble) return false;
  for (const Tensor* x : ts)
    if (x->defined() && (x->scalar_type() != t || !x->is_contiguous())) return false;
  return true;
}

template <class T>
T* ptr(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// Rows [0, rows) in chunks of about 4096 elements: each element costs several
// transcendental functions, so a chunk is worth a thread sooner than a plain copy.
template <class F>
void for_rows(int64_t rows, int64_t h, F&& body) {
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(h, 1));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) body(r);
  });
}

// The row functions take each gate's block as its own restrict pointer: with offsets
// into one row (g[3 * n + j]) GCC gives up on vectorizing ("complicated access pattern"),
// and without restrict it would need more alias checks than it versions loops for.
#define NABLA_R __restrict__

// One LSTM row: c = f c_prev + i g, h = o tanh(c) from the pre-activations x_*; with Save
// the activated gates go to a_*.
template <bool Save, class T>
void lstm_row(T* NABLA_R h, T* NABLA_R c, T* NABLA_R a_i, T* NABLA_R a_f, T* NABLA_R a_g,
              T* NABLA_R a_o, const T* NABLA_R x_i, const T* NABLA_R x_f, const T* NABLA_R x_g,
              const T* NABLA_R x_o, const T* NABLA_R c_prev, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const T i = vec_sigmoid(x_i[j]), f = vec_sigmoid(x_f[j]);
    const T g = vec_tanh(x_g[j]), o = vec_sigmoid(x_o[j]);
    const T cy = f * c_prev[j] + i * g;
    c[j] = cy;
    h[j] = o * vec_tanh(cy);
    if constexpr (Save) {
      a_i[j] = i;
      a_f[j] = f;
      a_g[j] = g;
      a_o[j] = o;
    }
  }
}

template <class T>
void lstm_forward(T* h, T* c, T* act, const T* gates, const T* c_prev, int64_t rows, int64_t n) {
  for_rows(rows, n, [&](int64_t r) {
    const T* x = gates + r * 4 * n;
    T* a = act ? act + r * 4 * n : nullptr;
    if (a)
      lstm_row<true>(h + r * n, c + r * n, a, a + n, a + 2 * n, a + 3 * n, x, x + n, x + 2 * n,
                     x + 3 * n, c_prev + r * n, n);
    else
      lstm_row<false, T>(h + r * n, c + r * n, nullptr, nullptr, nullptr, nullptr, x, x + n,
                         x + 2 * n, x + 3 * n, c_prev + r * n, n);
  });
}

// One LSTM row backward from the activated gates: dc = grad_c + grad_h o (1 - tanh(c)^2),
// the gates' pre-activation gradients d_*, and (WantCPrev) grad_c_prev = dc f.
template <bool WantCPrev, class T>
void lstm_backward_row(T* NABLA_R d_i, T* NABLA_R d_f, T* NABLA_R d_g, T* NABLA_R d_o,
                       T* NABLA_R d_c_prev, const T* NABLA_R gh, const T* NABLA_R gc,
                       const T* NABLA_R a_i, const T* NABLA_R a_f, const T* NABLA_R a_g,
                       const T* NABLA_R a_o, const T* NABLA_R c_prev, const T* NABLA_R c,
                       int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const T i = a_i[j], f = a_f[j], g = a_g[j], o = a_o[j];
    const T tc = vec_tanh(c[j]);
    const T dc = gc[j] + gh[j] * o * (T(1) - tc * tc);
    d_i[j] = dc * g * i * (T(1) - i);
    d_f[j] = dc * c_prev[j] * f * (T(1) - f);
    d_g[j] = dc * i * (T(1) - g * g);
    d_o[j] = gh[j] * tc * o * (T(1) - o);
    if constexpr (WantCPrev) d_c_prev[j] = dc * f;
  }
}

// A missing grad_h or grad_c reads a row of zeros.
template <class T>
void lstm_backward(T* d_gates, T* d_c_prev, const T* gh, const T* gc, const T* act, const T* c_prev,
                   const T* c, int64_t rows, int64_t n) {
  const std::vector<T> zero(static_cast<size_t>(n), T(0));
  for_rows(rows, n, [&](int64_t r) {
    const T* a = act + r * 4 * n;
    T* d = d_gates + r * 4 * n;
    const T* ghr = gh ? gh + r * n : zero.data();
    const T* gcr = gc ? gc + r * n : zero.data();
    if (d_c_prev)
      lstm_backward_row<true>(d, d + n, d + 2 * n, d + 3 * n, d_c_prev + r * n, ghr, gcr, a, a + n,
                              a + 2 * n, a + 3 * n, c_prev + r * n, c + r * n, n);
    else
      lstm_backward_row<false, T>(d, d + n, d + 2 * n, d + 3 * n, nullptr, ghr, gcr, a, a + n,
                                  a + 2 * n, a + 3 * n, c_prev + r * n, c + r * n, n);
  });
}

// One GRU row: h = (1 - z) n + z h_prev, written n + z (h_prev - n), from the input (x_*)
// and hidden (y_*) projections; with Save (r, z, n, gh_n) go to s_*.
template <bool Save, class T>
void gru_row(T* NABLA_R h, T* NABLA_R s_r, T* NABLA_R s_z, T* NABLA_R s_n, T* NABLA_R s_hn,
             const T* NABLA_R x_r, const T* NABLA_R x_z, const T* NABLA_R x_n, const T* NABLA_R y_r,
             const T* NABLA_R y_z, const T* NABLA_R y_n, const T* NABLA_R h_prev, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const T r = vec_sigmoid(x_r[j] + y_r[j]), z = vec_sigmoid(x_z[j] + y_z[j]);
    const T nn = vec_tanh(x_n[j] + r * y_n[j]);
    h[j] = nn + z * (h_prev[j] - nn);
    if constexpr (Save) {
      s_r[j] = r;
      s_z[j] = z;
      s_n[j] = nn;
      s_hn[j] = y_n[j];
    }
  }
}

template <class T>
void gru_forward(T* h, T* act, const T* gi, const T* gh, const T* h_prev, int64_t rows, int64_t n) {
  for_rows(rows, n, [&](int64_t row) {
    const T* x = gi + row * 3 * n;
    const T* y = gh + row * 3 * n;
    T* s = act ? act + row * 4 * n : nullptr;
    if (s)
      gru_row<true>(h + row * n, s, s + n, s + 2 * n, s + 3 * n, x, x + n, x + 2 * n, y, y + n,
                    y + 2 * n, h_prev + row * n, n);
    else
      gru_row<false, T>(h + row * n, nullptr, nullptr, nullptr, nullptr, x, x + n, x + 2 * n, y,
                        y + n, y + 2 * n, h_prev + row * n, n);
  });
}

// One GRU row backward: dn = grad_h (1 - z) (1 - n^2), dz = grad_h (h_prev - n) z (1 - z),
// dr = dn gh_n r (1 - r); grad_gi = (dr, dz, dn) to di_*, grad_gh = (dr, dz, dn r) to dh_*
// (the one of them that is wanted, or both), grad_h_prev = grad_h z (where wanted).
template <bool WantGi, bool WantGh, class T>
void gru_backward_row(T* NABLA_R di_r, T* NABLA_R di_z, T* NABLA_R di_n, T* NABLA_R dh_r,
                      T* NABLA_R dh_z, T* NABLA_R dh_n, T* NABLA_R d_h_prev, const T* NABLA_R g,
                      const T* NABLA_R s_r, const T* NABLA_R s_z, const T* NABLA_R s_n,
                      const T* NABLA_R s_hn, const T* NABLA_R h_prev, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const T r = s_r[j], z = s_z[j], nn = s_n[j];
    const T dn = g[j] * (T(1) - z) * (T(1) - nn * nn);
    const T dz = g[j] * (h_prev[j] - nn) * z * (T(1) - z);
    const T dr = dn * s_hn[j] * r * (T(1) - r);
    if constexpr (WantGi) {
      di_r[j] = dr;
      di_z[j] = dz;
      di_n[j] = dn;
    }
    if constexpr (WantGh) {
      dh_r[j] = dr;
      dh_z[j] = dz;
      dh_n[j] = dn * r;
    }
  }
  if (d_h_prev)
    for (int64_t j = 0; j < n; ++j) d_h_prev[j] = g[j] * s_z[j];
}

template <class T>
void gru_backward(T* d_gi, T* d_gh, T* d_h_prev, const T* gh, const T* act, const T* h_prev,
                  int64_t rows, int64_t n) {
  for_rows(rows, n, [&](int64_t row) {
    const T* s = act + row * 4 * n;
    T* di = d_gi ? d_gi + row * 3 * n : nullptr;
    T* dh = d_gh ? d_gh + row * 3 * n : nullptr;
    T* dhp = d_h_prev ? d_h_prev + row * n : nullptr;
    auto run = [&](auto want_gi, auto want_gh) {
      gru_backward_row<decltype(want_gi)::value, decltype(want_gh)::value, T>(
          di, di ? di + n : nullptr, di ? di + 2 * n : nullptr, dh, dh ? dh + n : nullptr,
          dh ? dh + 2 * n : nullptr, dhp, gh + row * n, s, s + n, s + 2 * n, s + 3 * n,
          h_prev + row * n, n);
    };
    if (di && dh)
      run(std::true_type{}, std::true_type{});
    else if (di)
      run(std::true_type{}, std::false_type{});
    else if (dh)
      run(std::false_type{}, std::true_type{});
    else
      run(std::false_type{}, std::false_type{});
  });
}

#undef NABLA_R

}  // namespace

bool CpuBackend::lstm_cell(const Tensor& h, const Tensor& c, const Tensor& saved,
                           const Tensor& gates, const Tensor& c_prev) {
  const ScalarType t = gates.scalar_type();
  if (!fusable(t, {&h, &c, &saved, &gates, &c_prev})) return false;
  const int64_t rows = c_prev.size(0), n = c_prev.size(1);
  dispatch_floating(t, "lstm_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_forward(ptr<T>(h), ptr<T>(c), ptr<T>(saved), ptr<T>(gates), ptr<T>(c_prev), rows, n);
  });
  return true;
}

bool CpuBackend::lstm_cell_backward(const Tensor& grad_gates, const Tensor& grad_c_prev,
                                    const Tensor& grad_h, const Tensor& grad_c, const Tensor& saved,
                                    const Tensor& c_prev, const Tensor& c) {
  const ScalarType t = saved.scalar_type();
  if (!fusable(t, {&grad_gates, &grad_c_prev, &grad_h, &grad_c, &saved, &c_prev, &c})) return false;
  const int64_t rows = c.size(0), n = c.size(1);
  dispatch_floating(t, "lstm_cell_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_backward(ptr<T>(grad_gates), ptr<T>(grad_c_prev), ptr<T>(grad_h), ptr<T>(grad_c),
                  ptr<T>(saved), ptr<T>(c_prev), ptr<T>(c), rows, n);
  });
  return true;
}

bool CpuBackend::gru_cell(const Tensor& h, const Tensor& saved, const Tensor& gi, const Tensor& gh,
                          const Tensor& h_prev) {
  const ScalarType t = gi.scalar_type();
  if (!fusable(t, {&h, &saved, &gi, &gh, &h_prev})) return false;
  const int64_t rows = h_prev.size(0), n = h_prev.size(1);
  dispatch_floating(t, "gru_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_forward(ptr<T>(h), ptr<T>(saved), ptr<T>(gi), ptr<T>(gh), ptr<T>(h_prev), rows, n);
  });
  return true;
}

bool CpuBackend::gru_cell_backward(const Tensor& grad_gi, const Tensor& grad_gh,
                                   const Tensor& grad_h_prev, const Tensor& grad_h,
                                   const Tensor& saved, const Tensor& h_prev) {
  const ScalarType t = saved.scalar_type();
  if (!grad_h.defined() ||
      !fusable(t, {&grad_gi, &grad_gh, &grad_h_prev, &grad_h, &saved, &h_prev}))
    return false;
  const int64_t rows = h_prev.size(0), n = h_prev.size(1);
  dispatch_floating(t, "gru_cell_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_backward(ptr<T>(grad_gi), ptr<T>(grad_gh), ptr<T>(grad_h_prev), ptr<T>(grad_h),
                 ptr<T>(saved), ptr<T>(h_prev), rows, n);
  });
  return true;
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
