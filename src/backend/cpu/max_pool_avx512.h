#pragma once
// The AVX-512 path of 2x2 / stride-2 max pooling (float32), chosen at run time by
// window_kernels.cpp when active_isa() is Avx512.
#include <cstdint>

namespace nabla::cpu {

/// One plane's pooling with every window inside the image (2 * oh <= h, 2 * ow <= w):
/// values[y, x] = max of img[2y .. 2y+1, 2x .. 2x+1] (NaN wins, ties keep the first in
/// window order) and indices[y, x] its flat position in the h x w plane.
void max_pool_2x2_avx512(float* values, int64_t* indices, const float* img, int64_t w, int64_t oh,
                         int64_t ow);

}  // namespace nabla::cpu
