// Counter-based random fills (Note [Counter-based random numbers], backend/philox.h):
// element i draws from counter (offset + i), so any split of the work over threads gives
// the same numbers, and the CUDA kernels the same as these.
#include <cmath>

#include "backend/cpu/kernels/cpu_backend.h"
#include "backend/cpu/loops.h"
#include "backend/philox.h"

NABLA_KERNEL_TARGET

namespace nabla::cpu::NABLA_KERNEL_NS {

void CpuBackend::random(Distribution dist, const Tensor& out, uint64_t seed, uint64_t offset,
                        double a, double b) {
  NABLA_ASSERT(out.is_contiguous(), "random kernel expects a contiguous output");
  const int64_t low = saturating_cast<int64_t>(a);
  const uint64_t range = static_cast<uint64_t>(saturating_cast<int64_t>(b) - low);
  dispatch_all(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = out.data_ptr<T>();
    parallel_for(0, out.numel(), 4096, [&](int64_t b0, int64_t b1) {
      uint32_t w[4];
      for (int64_t i = b0; i < b1; ++i) {
        philox::words(seed, offset + static_cast<uint64_t>(i), w);
        if (dist == Distribution::RandInt) {
          data[i] = static_cast<T>(philox::int_value(w, low, range));
          continue;
        }
        const double v = philox::real_value(static_cast<int>(dist), w, a, b);
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
