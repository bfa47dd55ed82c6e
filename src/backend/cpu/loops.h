#pragma once
// The CPU elementwise engine: operands of one common shape (already broadcast) are
// described by byte strides, dims that are laid out back to back are merged, and the
// body runs once per innermost row, in parallel over rows for large tensors. Kernels
// write the row body with a contiguous fast path that the compiler vectorizes.
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "nabla/backend/backend.h"
#include "nabla/backend/parallel.h"
#include "nabla/core/detail/visit_dtype.h"
#include "nabla/core/error.h"
#include "nabla/core/tensor.h"

namespace nabla::cpu {

constexpr int kMaxDims = 16;

/// `v` as T where a plain cast would be undefined: for an integral T, values past its range
/// become its limits and NaN 0 (a kernel parameter such as clamp's -inf bound on an int64
/// tensor, or randint's high of 2^63 - 1, which rounds up to 2^63 as a double).
template <class T>
T saturating_cast(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (v != v) return 0;
    // 2^(digits) is the first double past the largest T (exact for every integral T).
    constexpr double past_max =
        2.0 * static_cast<double>(T(1) << (std::numeric_limits<T>::digits - 1));
    if (v >= past_max) return std::numeric_limits<T>::max();
    if (v < static_cast<double>(std::numeric_limits<T>::min()))
      return std::numeric_limits<T>::min();
  }
  return static_cast<T>(v);
}

using detail::TypeTag;

/// Calls f(TypeTag<T>{}) for the C++ type of `t`; the 16-bit floats raise.
template <class F>
decltype(auto) dispatch_all(ScalarType t, F&& f) {
  return detail::visit_dtype(t, f,
                             [t]() -> decltype(f(TypeTag<bool>{})) { throw_reduced_precision(t); });
}

/// Calls f(TypeTag<float>{}) or f(TypeTag<double>{}) for the floating kernels (norms,
/// softmax, pooling backward); any other dtype is an error naming `kernel`.
template <class F>
decltype(auto) dispatch_floating(ScalarType t, const char* kernel, F&& f) {
  if (t == ScalarType::Float) return f(TypeTag<float>{});
  NABLA_CHECK(t == ScalarType::Double, kernel, " kernel: float or double expected, got ", t);
  return f(TypeTag<double>{});
}

template <int N>
struct LoopPlan {
  int ndim = 0;  // after merging; sizes[ndim-1] is the innermost (row) length
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];  // bytes
  char* base[N];
  int64_t numel = 1;
};

/// Builds the plan over `ops[0]`'s sizes. The other operands may have any shape that
/// broadcasts to it (right-aligned; a missing or size-1 dim is read with stride 0), so
/// ops need not materialize expand() views.
template <int N>
LoopPlan<N> make_plan(const std::array<const Tensor*, N>& ops) {
  LoopPlan<N> p;
  const Tensor& ref = *ops[0];
  IntArrayRef sizes = ref.sizes();
  // The common case, one row: every operand contiguous over the output's shape, or a
  // single element (of no more dims than the output: it must broadcast) read with stride 0.
  if (ref.is_contiguous()) {
    bool row = true;
    for (int k = 1; k < N && row; ++k)
      row = (ops[k]->numel() == 1 && ops[k]->dim() <= ref.dim()) ||
            (ops[k]->is_contiguous() && ops[k]->sizes() == sizes);
    if (row) {
      p.ndim = 1;
      p.numel = ref.numel();
      p.sizes[0] = p.numel;
      for (int k = 0; k < N; ++k) {
        p.base[k] = static_cast<char*>(ops[k]->data_ptr());
        p.strides[k][0] =
            ops[k]->numel() == 1 && p.numel != 1 ? 0 : static_cast<int64_t>(ops[k]->element_size());
      }
      return p;
    }
  }
  int nd = static_cast<int>(sizes.size());
  NABLA_ASSERT(nd <= kMaxDims, "tensors of more than ", kMaxDims, " dims are not supported");
  // Byte strides of every operand over the output's dims.
  int64_t st[N][kMaxDims];
  for (int k = 0; k < N; ++k) {
    IntArrayRef ks = ops[k]->sizes(), kst = ops[k]->strides();
    int kd = static_cast<int>(ks.size());
    NABLA_ASSERT(kd <= nd, "loop operand of shape ", ks, " does not broadcast to ", sizes);
    int64_t es = static_cast<int64_t>(ops[k]->element_size());
    for (int d = 0; d < nd; ++d) {
      int j = d - (nd - kd);
      if (j < 0 || ks[j] == 1) {
        st[k][d] = 0;
      } else {
        NABLA_ASSERT(ks[j] == sizes[d], "loop operand of shape ", ks, " does not broadcast to ",
                     sizes);
        st[k][d] = kst[j] * es;
      }
    }
    p.base[k] = static_cast<char*>(ops[k]->data_ptr());
  }
  p.numel = ref.numel();
  // Drop size-1 dims, then merge a dim into the next inner one when every operand
  // steps over it exactly as a contiguous block.
  int m = 0;
  for (int d = 0; d < nd; ++d) {
    if (sizes[d] == 1) continue;
    bool merge = m > 0;
    for (int k = 0; k < N && merge; ++k) merge = p.strides[k][m - 1] == st[k][d] * sizes[d];
    if (merge) {
      p.sizes[m - 1] *= sizes[d];
      for (int k = 0; k < N; ++k) p.strides[k][m - 1] = st[k][d];
    } else {
      p.sizes[m] = sizes[d];
      for (int k = 0; k < N; ++k) p.strides[k][m] = st[k][d];
      ++m;
    }
  }
  if (m == 0) {  // a single element
    p.sizes[0] = 1;
    for (int k = 0; k < N; ++k) p.strides[k][0] = 0;
    m = 1;
  }
  p.ndim = m;
  return p;
}

/// Calls row(ptrs, strides, n) for every innermost row of the plan; `ptrs[k]` points at
/// the row's first element of operand k and `strides[k]` is its byte stride along the row.
/// Rows are distributed over threads when the plan has at least `grain` elements per chunk.
template <int N, class Row>
void for_each_row(const LoopPlan<N>& p, Row&& row, int64_t grain = kGrainSize) {
  if (p.numel == 0) return;
  const int inner = p.ndim - 1;
  const int64_t n = p.sizes[inner];
  const int64_t rows = p.numel / n;
  int64_t row_stride[N];
  for (int k = 0; k < N; ++k) row_stride[k] = p.strides[k][inner];
  auto run = [&](int64_t r0, int64_t r1) {
    // Decompose r0 into outer coordinates once, then step like an odometer.
    int64_t idx[kMaxDims] = {0};
    char* ptr[N];
    int64_t rem = r0;
    for (int d = inner - 1; d >= 0; --d) {
      idx[d] = rem % p.sizes[d];
      rem /= p.sizes[d];
    }
    for (int k = 0; k < N; ++k) {
      ptr[k] = p.base[k];
      for (int d = 0; d < inner; ++d) ptr[k] += idx[d] * p.strides[k][d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      row(ptr, row_stride, n);
      for (int d = inner - 1; d >= 0; --d) {
        for (int k = 0; k < N; ++k) ptr[k] += p.strides[k][d];
        if (++idx[d] < p.sizes[d]) break;
        for (int k = 0; k < N; ++k) ptr[k] -= p.strides[k][d] * p.sizes[d];
        idx[d] = 0;
      }
    }
  };
  int64_t grain_rows = std::max<int64_t>(1, grain / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain_rows, run);
}

}  // namespace nabla::cpu
