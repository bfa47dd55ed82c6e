#pragma once
// LibTorch's CPU random distributions on nabla's CPU generator (Note [Random streams],
// include/nabla/core/detail/cpu_generator.h): the `random` backend entry of the CPU, and the
// per-element pieces that ops outside that entry need (multinomial, log_normal_, cauchy_).
#include "nabla/backend/backend.h"
#include "nabla/core/generator.h"

namespace nabla::cpu {

/// Fills `out` (float, double, or for Bernoulli and RandInt any dtype but the 16-bit
/// floats; any layout without overlapping elements) from the CPU generator `gen` exactly
/// as LibTorch's CPU kernel of `d` does: the same draws in the same order (memory order,
/// TensorIterator's) and the same arithmetic. Holds gen.mutex() while drawing.
void fill_random(KernelBackend::Distribution d, const Tensor& out, Generator& gen, const Scalar& a,
                 const Scalar& b);

/// `n` samples of LibTorch's per-element double normal (Box-Muller with the cached second
/// sample), mean + std * z; what its CPU kernels use for small or strided normal_ and for
/// log_normal_.
void normal_samples(Generator& gen, double* out, int64_t n, double mean, double std);

/// a * b + c rounded as LibTorch's CPU kernels round it: one rounding where they were
/// compiled with FMA (see libtorch_fma()), two otherwise.
double libtorch_mul_add(double a, double b, double c);
/// a * b + c with two roundings whatever the compiler flags (LibTorch's code outside its
/// per-ISA kernels, such as rrelu's slopes).
double mul_then_add(double a, double b, double c);

/// Which of LibTorch's CPU kernel builds the streams follow: true for its AVX2 build (what
/// LibTorch runs on CPUs with AVX2 and FMA: GCC fused a * b + c into one FMA, and float
/// normal_ of 16 or more contiguous elements takes its 8-wide Box-Muller), false for its
/// baseline build (other CPUs, or ATEN_CPU_CAPABILITY=default in the environment, which
/// nabla honours as LibTorch does). Fixed at the first call; nabla's own kernel path
/// (NABLA_ISA) does not enter into it.
bool libtorch_fma();

}  // namespace nabla::cpu
