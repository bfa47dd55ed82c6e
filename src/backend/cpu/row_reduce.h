#pragma once
// Row reductions that vectorize without -ffast-math: sums in kLanes independent
// accumulators and a NaN-propagating maximum on one 64-byte vector. Forced inline, so
// each runs at the ISA of the kernel that calls it (Note [Kernels per ISA]); used by the
// softmax and attention kernels.
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/cpu/vec_math.h"

namespace nabla::cpu {

// Row reductions in 16 independent lanes (a full AVX-512 float vector): one accumulator
// would be a serial dependency chain the compiler may not reorder, and no vector loop.
constexpr int kLanes = 16;

// sum of f(p[i]) over the row.
template <class T, class F>
NABLA_VEC_INLINE T lane_sum(const T* p, int64_t n, F f) {
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += f(p[i + k], i + k);
  T s = 0;
  for (; i < n; ++i) s += f(p[i], i);
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  return s;
}

// NaN-propagating max: a row holding a NaN gives NaN everywhere, as in LibTorch. Written
// without branches or isnan() so that its loop vectorizes.
template <class T>
NABLA_VEC_INLINE T nan_max(T a, T b) {
  return ((a > b) | (a != a)) ? a : b;
}

// Row maximum on one 64-byte vector of GCC's vector extension (the vectorizer does not
// take the NaN-propagating select as a reduction); on narrower ISA paths GCC splits it.
template <class T>
struct Vec64;
template <>
struct Vec64<float> {
  typedef float type __attribute__((vector_size(64)));
};
template <>
struct Vec64<double> {
  typedef double type __attribute__((vector_size(64)));
};

template <class T>
NABLA_VEC_INLINE T lane_max(const T* p, int64_t n) {
  using V = typename Vec64<T>::type;
  constexpr int64_t L = 64 / sizeof(T);
  constexpr T lo = -std::numeric_limits<T>::infinity();
  V acc;
  for (int64_t k = 0; k < L; ++k) acc[k] = lo;
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    V v;
    std::memcpy(&v, p + i, sizeof v);
    acc = ((acc > v) | (acc != acc)) ? acc : v;
  }
  T m = lo;
  for (; i < n; ++i) m = nan_max(m, p[i]);
  for (int64_t k = 0; k < L; ++k) m = nan_max(m, acc[k]);
  return m;
}

}  // namespace nabla::cpu
