// Index CPU kernels: check_index_range, index_select, gather, scatter (and scatter-add).
//
// All three walk the same way: every operand is viewed with the indexed dim shrunk to
// size 1, so make_plan sees one common shape and merges the remaining dims; the row
// body then runs the loop along the indexed dim itself. Different rows differ in some
// non-indexed coordinate, so scatter's writes from different rows never collide and rows
// may run in parallel. Index values were bounds-checked by the op (backend.h).
#include <algorithm>
#include <cstdlib>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "nabla/core/object_pool.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {
namespace {

// `t` restricted to the leading `sizes` of each dim (same strides), with `dim` cut to 1.
// A plain view of the storage: kernels record no autograd history (Tensor::as_strided
// would, and would refuse inputs that require grad and overlap themselves).
Tensor shrink_to(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  DimVector sz(sizes.begin(), sizes.end());
  sz[dim] = 1;
  return Tensor(detail::make_pooled<TensorImpl>(t.impl()->storage(), t.scalar_type(),
                                                IntArrayRef(sz), t.strides(), t.storage_offset()));
}

// Rows carry `k` elements of work each along the indexed dim; keep chunks near kGrainSize.
int64_t grain_for(int64_t k) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(k, 1)); }

// Visits (e, j) for e < n along the row and j < k along the indexed dim, with the
// smaller of the two byte strides innermost so the hot loop walks memory in order.
// For a fixed e, j always runs in increasing order (scatter relies on that).
template <class F>
inline void walk(int64_t n, int64_t k, int64_t row_stride, int64_t dim_stride, F&& f) {
  if (std::abs(dim_stride) < std::abs(row_stride)) {
    for (int64_t e = 0; e < n; ++e)
      for (int64_t j = 0; j < k; ++j) f(e, j);
  } else {
    for (int64_t j = 0; j < k; ++j)
      for (int64_t e = 0; e < n; ++e) f(e, j);
  }
}

template <class T>
T& at(char* base, int64_t byte_offset) {
  return *reinterpret_cast<T*>(base + byte_offset);
}

}  // namespace

void CpuBackend::check_index_range(const Tensor& index, int64_t lo, int64_t hi,
                                   const IndexCheck& what) {
  const auto* p = static_cast<const int64_t*>(index.data_ptr());
  for (int64_t i = 0, n = index.numel(); i < n; ++i)
    if (p[i] < lo || p[i] >= hi) [[unlikely]]
      throw Error(str(what.op, ": ", what.noun, " ", p[i], " is out of bounds for ", what.context));
}

void CpuBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim,
                              const Tensor& index) {
  if (out.numel() == 0) return;
  const int64_t k = index.numel();
  const int64_t* idx = index.data_ptr<int64_t>();
  const int64_t idx_stride = index.dim() == 0 ? 0 : index.stride(0);
  Tensor o1 = shrink_to(out, out.sizes(), dim);
  Tensor i1 = shrink_to(in, out.sizes(), dim);
  dispatch_all(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t os = out.stride(dim) * static_cast<int64_t>(sizeof(T));
    const int64_t is = in.stride(dim) * static_cast<int64_t>(sizeof(T));
    auto plan = make_plan<2>({&o1, &i1});
    for_each_row(
        plan,
        [&](char** p, const int64_t* s, int64_t n) {
          if (s[0] == sizeof(T) && s[1] == sizeof(T)) {  // rows contiguous: one copy per index
            for (int64_t j = 0; j < k; ++j)
              std::copy_n(reinterpret_cast<const T*>(p[1] + idx[j * idx_stride] * is), n,
                          reinterpret_cast<T*>(p[0] + j * os));
            return;
          }
          // Otherwise the smaller stride innermost: selecting along the last dim walks each
          // row once instead of sweeping the whole tensor once per index.
          walk(n, k, s[0], os, [&](int64_t e, int64_t j) {
            at<T>(p[0], e * s[0] + j * os) = at<T>(p[1], e * s[1] + idx[j * idx_stride] * is);
          });
        },
        grain_for(k));
  });
}

void CpuBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const int64_t k = index.size(dim);
  Tensor o1 = shrink_to(out, index.sizes(), dim);
  Tensor x1 = shrink_to(index, index.sizes(), dim);
  Tensor i1 = shrink_to(in, index.sizes(), dim);
  dispatch_all(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t os = out.stride(dim) * static_cast<int64_t>(sizeof(T));
    const int64_t xs = index.stride(dim) * static_cast<int64_t>(sizeof(int64_t));
    const int64_t is = in.stride(dim) * static_cast<int64_t>(sizeof(T));
    auto plan = make_plan<3>({&o1, &x1, &i1});
    for_each_row(
        plan,
        [&](char** p, const int64_t* s, int64_t n) {
          auto one = [&](int64_t e, int64_t j) {
            int64_t src = at<int64_t>(p[1], e * s[1] + j * xs);
            at<T>(p[0], e * s[0] + j * os) = at<T>(p[2], e * s[2] + src * is);
          };
          walk(n, k, s[0], os, one);
        },
        grain_for(k));
  });
}

void CpuBackend::scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         bool accumulate) {
  if (index.numel() == 0) return;
  const int64_t k = index.size(dim);
  Tensor x1 = shrink_to(index, index.sizes(), dim);
  Tensor d1 = shrink_to(self, index.sizes(), dim);
  Tensor s1 = shrink_to(src, index.sizes(), dim);
  dispatch_all(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t xs = index.stride(dim) * static_cast<int64_t>(sizeof(int64_t));
    const int64_t ds = self.stride(dim) * static_cast<int64_t>(sizeof(T));
    const int64_t ss = src.stride(dim) * static_cast<int64_t>(sizeof(T));
    auto plan = make_plan<3>({&x1, &d1, &s1});
    // Along the indexed dim the loop is sequential, so for repeated indices the last
    // write wins (plain scatter) and sums are exact in index order (accumulate).
    for_each_row(
        plan,
        [&](char** p, const int64_t* s, int64_t n) {
          auto one = [&](int64_t e, int64_t j) {
            int64_t dst = at<int64_t>(p[0], e * s[0] + j * xs);
            T& d = at<T>(p[1], e * s[1] + dst * ds);
            const T v = at<T>(p[2], e * s[2] + j * ss);
            if (!accumulate) {
              d = v;
            } else if constexpr (std::is_same_v<T, bool>) {
              d = d || v;
            } else {
              d = static_cast<T>(d + v);
            }
          };
          walk(n, k, s[2], ss, one);  // src's strides: the index may be expanded (stride 0)
        },
        grain_for(k));
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
