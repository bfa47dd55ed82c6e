#pragma once
// Note [Counter-based random numbers]: every GPU random kernel draws element i of its
// output from Philox 4x32-10 at counter (offset + i) under the generator's seed, so a draw
// is a pure function of (seed, offset, i), independent of the launch geometry. This header
// is the one definition of the stream and of how its words become values; the CUDA kernels
// (cuda/random.cu) include it. The CPU has LibTorch's mt19937 stream instead (Note [Random
// streams], include/nabla/core/detail/cpu_generator.h), so a seed draws other numbers on a GPU than
// on the CPU, as in LibTorch.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define NABLA_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define NABLA_HOST_DEVICE inline
#endif

namespace nabla::philox {

/// Four 32-bit random words for counter `ctr` under `seed` (the counter's high words are
/// constants: one stream per seed).
NABLA_HOST_DEVICE void words(uint64_t seed, uint64_t ctr, uint32_t out[4]) {
  uint32_t c[4] = {uint32_t(ctr), uint32_t(ctr >> 32), 0x9E3779B9u, 0x7F4A7C15u};
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k0;
    const uint32_t n2 = uint32_t(p0 >> 32) ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = uint32_t(p1);
    c[2] = n2;
    c[3] = uint32_t(p0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int i = 0; i < 4; ++i) out[i] = c[i];
}

/// Uniform in [0, 1) with 53 random bits.
NABLA_HOST_DEVICE double to_unit(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t(hi) << 21) ^ (uint64_t(lo) >> 11);
  return double(bits & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/// The value of a floating distribution from one draw's words: Uniform in [a, b), Normal
/// (mean a, std b; Box-Muller with u in (0, 1] so log never sees 0), Bernoulli (1 with
/// probability a). `kind`: 0 Uniform, 1 Normal, 2 Bernoulli (KernelBackend::Distribution).
NABLA_HOST_DEVICE double real_value(int kind, const uint32_t w[4], double a, double b) {
  const double u = to_unit(w[0], w[1]);
  if (kind == 0) return a + (b - a) * u;
  if (kind == 1) {
    const double u1 = 1.0 - u, u2 = to_unit(w[2], w[3]);
    return a + b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  return u < a ? 1.0 : 0.0;
}

/// RandInt: low + (64 random bits mod range), range = high - low > 0.
NABLA_HOST_DEVICE int64_t int_value(const uint32_t w[4], int64_t low, uint64_t range) {
  const uint64_t r = (uint64_t(w[0]) << 32) | w[1];
  return low + static_cast<int64_t>(r % range);
}

}  // namespace nabla::philox
