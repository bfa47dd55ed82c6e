// Cross-entropy over class indices in two passes over the logits, without the log-softmax
// matrix (Note [Fused cross-entropy], src/ops/loss/classification.cpp). Rows are
// independent: the forward reads a row twice (its maximum, then the sum of exp(x - max),
// both from cache for rows up to a few hundred thousand classes), the backward reads it
// once and writes the gradient row.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/row_reduce.h"
#include "backend/cpu/vec_math.h"
#include "nabla/backend/parallel.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

bool fits(ScalarType t, std::initializer_list<const Tensor*> floating, const Tensor& target) {
  if (t != kFloat && t != kDouble) return false;
  for (const Tensor* x : floating)
    if (x->scalar_type() != t || !x->is_contiguous()) return false;
  return target.scalar_type() == kLong && target.is_contiguous();
}

int64_t row_grain(int64_t classes) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(classes, 1));
}

template <class T>
void forward_rows(T* loss, T* row_max, T* log_sum, const T* x, const int64_t* target, int64_t rows,
                  int64_t classes) {
  parallel_for(0, rows, row_grain(classes), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * classes;
      const T m = lane_max(xr, classes);
      const T ls = std::log(lane_sum(xr, classes, [m](T v, int64_t) { return vec_exp(v - m); }));
      row_max[r] = m;
      log_sum[r] = ls;
      // -log_softmax at the target, as the log-softmax kernel rounds it: (x - m) - ls.
      loss[r] = -((xr[target[r]] - m) - ls);
    }
  });
}

template <class T>
void backward_rows(T* grad, const T* x, const T* row_max, const T* log_sum, const int64_t* target,
                   const T* coef, int64_t rows, int64_t classes) {
  parallel_for(0, rows, row_grain(classes), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* gr = grad + r * classes;
      const T c = coef[r];
      if (c == T(0)) {  // an ignored target: no softmax of a row that may hold infinities
        std::fill(gr, gr + classes, T(0));
        continue;
      }
      const T* xr = x + r * classes;
      const T m = row_max[r], ls = log_sum[r];
      for (int64_t j = 0; j < classes; ++j) gr[j] = c * vec_exp((xr[j] - m) - ls);
      gr[target[r]] -= c;
    }
  });
}

}  // namespace

bool CpuBackend::cross_entropy_forward(const Tensor& loss, const Tensor& row_max,
                                       const Tensor& log_sum, const Tensor& logits,
                                       const Tensor& target) {
  const ScalarType t = logits.scalar_type();
  if (!fits(t, {&loss, &row_max, &log_sum, &logits}, target)) return false;
  dispatch_floating(t, "cross_entropy_forward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_rows(loss.data_ptr<T>(), row_max.data_ptr<T>(), log_sum.data_ptr<T>(),
                 logits.data_ptr<T>(), target.data_ptr<int64_t>(), logits.size(0), logits.size(1));
  });
  return true;
}

bool CpuBackend::cross_entropy_backward(const Tensor& grad_logits, const Tensor& logits,
                                        const Tensor& row_max, const Tensor& log_sum,
                                        const Tensor& target, const Tensor& coef) {
  const ScalarType t = logits.scalar_type();
  if (!fits(t, {&grad_logits, &logits, &row_max, &log_sum, &coef}, target)) return false;
  dispatch_floating(t, "cross_entropy_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_rows(grad_logits.data_ptr<T>(), logits.data_ptr<T>(), row_max.data_ptr<T>(),
                  log_sum.data_ptr<T>(), target.data_ptr<int64_t>(), coef.data_ptr<T>(),
                  logits.size(0), logits.size(1));
  });
  return true;
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
