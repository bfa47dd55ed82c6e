// Optimizer kernels: Adam's whole update in one pass over each parameter (the tensor-op
// form reads and writes the parameter and its two moments eight times and allocates a
// temporary), all parameters of a step in one parallel loop.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/kernels/cpu_backend.h"
#include "nabla/backend/parallel.h"

NABLA_KERNEL_TARGET

// Every product and sum rounded on its own, as written: with contraction, the compiler
// may fuse a * b + c one way in the vector loop and another in its scalar prologue, whose
// length depends on the buffers' alignment, so a step's result would depend on where the
// state happens to sit in memory (a state loaded from a file is not 64-byte aligned).
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace nabla::cpu::NABLA_KERNEL_NS {

namespace {

// Elements [b, e) of one slot; the arithmetic and its order are those of the tensor ops
// it replaces (optimizers.cpp), so the fused and unfused updates agree.
template <class T, bool kDecay, bool kAmsgrad>
void adam_range(const AdamSlot& slot, const AdamHyper& h, int64_t b, int64_t e) {
  T* __restrict p = slot.param.data_ptr<T>();
  const T* __restrict g = slot.grad.data_ptr<T>();
  T* __restrict m = slot.exp_avg.data_ptr<T>();
  T* __restrict v = slot.exp_avg_sq.data_ptr<T>();
  T* __restrict vmax = kAmsgrad ? slot.max_exp_avg_sq.data_ptr<T>() : nullptr;
  const T beta1 = T(h.beta1), beta2 = T(h.beta2), keep1 = T(1 - h.beta1), keep2 = T(1 - h.beta2);
  const T decay = T(h.weight_decay), scale = T(h.param_scale), eps = T(h.eps);
  const T neg_step = T(-slot.step_size), bias2 = T(slot.bias2_sqrt);
  for (int64_t i = b; i < e; ++i) {
    const T pi = p[i] * scale;
    const T gi = kDecay ? g[i] + decay * p[i] : g[i];
    const T mi = m[i] * beta1 + keep1 * gi;
    const T vi = v[i] * beta2 + keep2 * (gi * gi);
    m[i] = mi;
    v[i] = vi;
    T vd = vi;
    if constexpr (kAmsgrad) {
      const T w = vmax[i];
      vd = (w != w || w > vi) ? w : vi;  // NaN propagates, as maximum()
      vmax[i] = vd;
    }
    p[i] = pi + neg_step * (mi / (std::sqrt(vd) / bias2 + eps));
  }
}

template <class T>
void adam_piece(const AdamSlot& slot, const AdamHyper& h, int64_t b, int64_t e) {
  const bool decay = h.weight_decay != 0;
  if (decay && h.amsgrad) return adam_range<T, true, true>(slot, h, b, e);
  if (decay) return adam_range<T, true, false>(slot, h, b, e);
  if (h.amsgrad) return adam_range<T, false, true>(slot, h, b, e);
  adam_range<T, false, false>(slot, h, b, e);
}

struct Piece {
  size_t slot;
  int64_t begin, end;
};

}  // namespace

void CpuBackend::adam_step(const std::vector<AdamSlot>& slots, const AdamHyper& h) {
  // Pieces of at most kPiece elements across all parameters, so a step's small biases
  // and large weights spread over the threads as one loop.
  constexpr int64_t kPiece = 16384;
  std::vector<Piece> pieces;
  int64_t total = 0;
  for (size_t k = 0; k < slots.size(); ++k) {
    const int64_t n = slots[k].param.numel();
    total += n;
    for (int64_t b = 0; b < n; b += kPiece) pieces.push_back({k, b, std::min(n, b + kPiece)});
  }
  const int64_t count = static_cast<int64_t>(pieces.size());
  const int64_t grain = total < kGrainSize ? count : 1;  // small models: one thread
  parallel_for(0, count, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const Piece& pc = pieces[static_cast<size_t>(k)];
      const AdamSlot& slot = slots[pc.slot];
      if (slot.param.scalar_type() == kDouble)
        adam_piece<double>(slot, h, pc.begin, pc.end);
      else
        adam_piece<float>(slot, h, pc.begin, pc.end);
    }
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
