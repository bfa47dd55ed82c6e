// Counter-based random fills (Philox 4x32-10): element i draws from counter
// (offset + i), so any split of the work over threads gives the same numbers.
#include <cmath>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {
namespace {

struct Philox {
  uint32_t key[2];
  explicit Philox(uint64_t seed) : key{uint32_t(seed), uint32_t(seed >> 32)} {}

  // Four 32-bit random words for counter `ctr` (the high words carry the stream).
  void operator()(uint64_t ctr, uint32_t out[4]) const {
    uint32_t c[4] = {uint32_t(ctr), uint32_t(ctr >> 32), 0x9E3779B9u, 0x7F4A7C15u};
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
      uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
      uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k0;
      uint32_t n2 = uint32_t(p0 >> 32) ^ c[3] ^ k1;
      c[0] = n0;
      c[1] = uint32_t(p1);
      c[2] = n2;
      c[3] = uint32_t(p0);
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) out[i] = c[i];
  }
};

// Uniform in [0, 1) with 53 random bits.
inline double to_unit(uint32_t hi, uint32_t lo) {
  uint64_t bits = (uint64_t(hi) << 21) ^ (uint64_t(lo) >> 11);
  return double(bits & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace

void CpuBackend::random(Distribution dist, const Tensor& out, uint64_t seed, uint64_t offset,
                        double a, double b) {
  NABLA_ASSERT(out.is_contiguous(), "random kernel expects a contiguous output");
  Philox rng(seed);
  dispatch_all(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = out.data_ptr<T>();
    parallel_for(0, out.numel(), 4096, [&](int64_t b0, int64_t b1) {
      uint32_t w[4];
      for (int64_t i = b0; i < b1; ++i) {
        rng(offset + static_cast<uint64_t>(i), w);
        double u = to_unit(w[0], w[1]);
        double v = 0;
        switch (dist) {
          case Distribution::Uniform:
            v = a + (b - a) * u;
            break;
          case Distribution::Normal: {
            // Box-Muller with u in (0, 1] so log never sees 0.
            double u1 = 1.0 - u, u2 = to_unit(w[2], w[3]);
            v = a + b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
            break;
          }
          case Distribution::Bernoulli:
            v = u < a ? 1.0 : 0.0;
            break;
          case Distribution::RandInt: {
            uint64_t range =
                static_cast<uint64_t>(saturating_cast<int64_t>(b) - saturating_cast<int64_t>(a));
            uint64_t r = (uint64_t(w[0]) << 32) | w[1];
            data[i] = static_cast<T>(saturating_cast<int64_t>(a) + static_cast<int64_t>(r % range));
            continue;
          }
        }
        T val = static_cast<T>(v);
        if constexpr (std::is_floating_point_v<T>) {
          // Rounding to float must not produce the excluded upper bound.
          if (dist == Distribution::Uniform && b > a && val >= static_cast<T>(b))
            val = std::nextafter(static_cast<T>(b), static_cast<T>(a));
        }
        data[i] = val;
      }
    });
  });
}

}  // namespace nabla::cpu::NABLA_KERNEL_NS
