// LibTorch's CPU distributions, reproduced from what its kernels compute (Note [Random
// streams], include/nabla/core/detail/cpu_generator.h):
//
//  - Uniform of a float: 24 random bits of one 32-bit draw times 2^-24; of a double, 53
//    bits of a 64-bit draw times 2^-53. Then x * (to - from) + from in the dtype.
//  - Normal of 16 or more contiguous elements ("normal fill"): every element first gets a
//    uniform in [0, 1) of its dtype, then each block of 16 becomes 8 Box-Muller pairs
//    (element j and j + 8: u1 = 1 - x_j, u2 = x_{j+8}). A size not a multiple of 16 draws
//    16 more uniforms for the last 16 elements and transforms them again. Float in
//    LibTorch's AVX2 build: the 8-wide Cephes-style log and sincos of avx_mathfun, as GCC
//    compiled them; otherwise libm's log, cos and sin in the dtype.
//  - Normal of fewer elements or a strided tensor: one double Box-Muller per element with
//    the second sample cached in the generator (so it also serves the next call), two
//    64-bit uniforms per pair.
//  - Bernoulli(p): a double uniform (64-bit draw) below p. RandInt [from, to): a 32-bit
//    draw (64-bit when to - from >= 2^32 for int64 and floating dtypes) mod the range.
//
// Arithmetic matters to the last bit: LibTorch's AVX2 build (the one it runs on AVX2+FMA
// CPUs) was compiled by GCC with contraction on, so every a * b + c there is one FMA; this
// file turns contraction off and writes each of those FMAs out (libtorch_fma()).
#include "nabla/backend/detail/cpu_random_streams.h"

#include <immintrin.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "nabla/backend/isa.h"
#include "nabla/core/detail/cpu_generator.h"

// Exactly the products and sums written below: no a * b + c fused behind our back (the
// FMAs LibTorch's build has are spelled std::fma / _mm256_fmadd_ps).
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace nabla::cpu {
namespace {

using Distribution = KernelBackend::Distribution;
constexpr double kPi = 3.14159265358979323846;

// uniform_real_distribution's conversion of the draw to [0, 1).
inline float unit_float(uint32_t w) {
  return static_cast<float>(w & 0xFFFFFFu) * (1.0f / 16777216.0f);
}
inline double unit_double(uint64_t w) {
  return static_cast<double>(w & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}
template <class T>
inline T unit(mt19937::Engine& e) {
  if constexpr (std::is_same_v<T, double>)
    return unit_double(e.draw64());
  else
    return unit_float(e());
}

// 1 or 0 as T without a branch: GCC makes a jump of a choice between two float
// constants, which mispredicts on half the elements of bernoulli_(0.5) (3x the time).
template <class T>
[[gnu::always_inline]] inline T one_if(bool c) {
  if constexpr (std::is_same_v<T, float>) {
    const uint32_t b = (0u - static_cast<uint32_t>(c)) & 0x3f800000u;  // 1.0f or 0
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  } else if constexpr (std::is_same_v<T, double>) {
    const uint64_t b = (uint64_t{0} - static_cast<uint64_t>(c)) & 0x3ff0000000000000u;
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  } else {
    return static_cast<T>(c);
  }
}

template <bool kFma, class T>
[[gnu::always_inline]] inline T mul_add(T a, T b, T c) {
  if constexpr (kFma)
    return std::fma(a, b, c);
  else
    return a * b + c;
}

// The order LibTorch's TensorIterator visits the elements of one output: dims by
// decreasing stride (memory order), dims of size 1 left out. Outermost first.
struct Walk {
  std::vector<int64_t> sizes, strides;
};
Walk memory_order(const Tensor& out) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < out.dim(); ++d)
    if (out.size(d) != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t x, int64_t y) { return out.stride(x) > out.stride(y); });
  Walk w;
  for (int64_t d : dims) {
    w.sizes.push_back(out.size(d));
    w.strides.push_back(out.stride(d));
  }
  return w;
}

// f(offset) for the offset of every element of `out`, in memory_order.
template <class F>
[[gnu::always_inline]] inline void visit_in_memory_order(const Tensor& out, F&& f) {
  const Walk w = memory_order(out);
  const size_t nd = w.sizes.size();
  std::vector<int64_t> idx(nd, 0);
  const int64_t n = out.numel();
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    f(offset);
    for (size_t i = nd; i-- > 0;) {
      offset += w.strides[i];
      if (++idx[i] < w.sizes[i]) break;
      offset -= w.strides[i] * w.sizes[i];
      idx[i] = 0;
    }
  }
}

// Writes next() to every element of `out` (as T) in LibTorch's order.
template <class T, class Next>
[[gnu::always_inline]] inline void fill_in_order(const Tensor& out, Next&& next) {
  T* data = out.data_ptr<T>();
  if (out.is_contiguous()) {
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(next());
    return;
  }
  visit_in_memory_order(out, [&](int64_t at) { data[at] = static_cast<T>(next()); });
}

// normal_distribution<double>: Box-Muller on two double uniforms, the sine's sample kept
// for the next call.
template <bool kFma>
[[gnu::always_inline]] inline double normal_sample(CpuGeneratorState& s, double mean, double std) {
  double z;
  if (s.next_double_normal) {
    z = *s.next_double_normal;
    s.next_double_normal.reset();
  } else {
    const double u1 = unit_double(s.engine.draw64());
    const double u2 = unit_double(s.engine.draw64());
    const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double theta = 2.0 * kPi * u1;
    s.next_double_normal = radius * std::sin(theta);
    z = radius * std::cos(theta);
  }
  return mul_add<kFma>(z, std, mean);
}

// One block of the normal fill in the dtype, with libm.
template <bool kFma, class T>
[[gnu::always_inline]] inline void box_muller_16(T* d, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = 1 - d[j];  // [0, 1) -> (0, 1] for the log
    const T u2 = d[j + 8];
    const T radius = std::sqrt(-2 * std::log(u1));
    const T theta = static_cast<T>(2.0 * kPi * static_cast<double>(u2));
    d[j] = mul_add<kFma>(radius * std::cos(theta), std, mean);
    d[j + 8] = mul_add<kFma>(radius * std::sin(theta), std, mean);
  }
}

// ---- LibTorch's 8-wide float Box-Muller (its AVX2 build) ------------------------------------
// avx_mathfun's Cephes-style logf and sincosf, with the FMAs GCC formed in them: each
// polynomial step p * x + c, the range reduction's x + y * DP, the log's y * z + e * q1
// (fused on the first product), y - z / 2 and x + e * q2, the cosine's y * z - z / 2 and
// the sine's y2 * x + x.

#define NABLA_AVX2 __attribute__((target("avx2,fma")))

NABLA_AVX2 inline __m256 splat(float v) { return _mm256_set1_ps(v); }
NABLA_AVX2 inline __m256 bits(int v) { return _mm256_castsi256_ps(_mm256_set1_epi32(v)); }

NABLA_AVX2 inline __m256 log8(__m256 x) {
  const __m256 one = splat(1.0f);
  const __m256 invalid = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
  x = _mm256_max_ps(x, bits(0x00800000));  // denormals up to the smallest normal
  __m256i exponent = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_or_ps(_mm256_and_ps(x, bits(~0x7f800000)), splat(0.5f));  // mantissa in [0.5, 1)
  exponent = _mm256_sub_epi32(exponent, _mm256_set1_epi32(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(exponent), one);
  // Below sqrt(1/2): one exponent less, twice the mantissa.
  const __m256 low = _mm256_cmp_ps(x, splat(0.707106781186547524f), _CMP_LT_OS);
  const __m256 low_x = _mm256_and_ps(x, low);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, low));
  x = _mm256_add_ps(x, low_x);
  const __m256 z = _mm256_mul_ps(x, x);
  static constexpr float kLogPoly[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                                        -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                                        2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
  __m256 y = splat(kLogPoly[0]);
  for (int k = 1; k < 9; ++k) y = _mm256_fmadd_ps(y, x, splat(kLogPoly[k]));
  y = _mm256_mul_ps(y, x);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, splat(-2.12194440e-4f)));
  y = _mm256_fnmadd_ps(z, splat(0.5f), y);
  x = _mm256_add_ps(x, y);
  x = _mm256_fmadd_ps(e, splat(0.693359375f), x);
  return _mm256_or_ps(x, invalid);  // NaN for x <= 0
}

NABLA_AVX2 inline void sincos8(__m256 x, __m256* sin_out, __m256* cos_out) {
  __m256 sign_sin = _mm256_and_ps(x, bits(static_cast<int>(0x80000000u)));
  x = _mm256_and_ps(x, bits(0x7fffffff));
  // j = the octant (4 x / pi), rounded up to even.
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, splat(1.27323954473516f)));
  j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
  const __m256 y_oct = _mm256_cvtepi32_ps(j);
  const __m256 swap_sin =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(4)), 29));
  const __m256 poly_mask = _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
  // x - j pi / 4 in three parts (extended precision).
  x = _mm256_fmadd_ps(y_oct, splat(-0.78515625f), x);
  x = _mm256_fmadd_ps(y_oct, splat(-2.4187564849853515625e-4f), x);
  x = _mm256_fmadd_ps(y_oct, splat(-3.77489497744594108e-8f), x);
  const __m256i jc = _mm256_slli_epi32(
      _mm256_andnot_si256(_mm256_sub_epi32(j, _mm256_set1_epi32(2)), _mm256_set1_epi32(4)), 29);
  const __m256 sign_cos = _mm256_castsi256_ps(jc);
  sign_sin = _mm256_xor_ps(sign_sin, swap_sin);
  const __m256 z = _mm256_mul_ps(x, x);
  // cos on [0, pi/4]
  __m256 yc = splat(2.443315711809948E-005f);
  yc = _mm256_fmadd_ps(yc, z, splat(-1.388731625493765E-003f));
  yc = _mm256_fmadd_ps(yc, z, splat(4.166664568298827E-002f));
  yc = _mm256_mul_ps(yc, z);
  yc = _mm256_fmsub_ps(yc, z, _mm256_mul_ps(z, splat(0.5f)));
  yc = _mm256_add_ps(yc, splat(1.0f));
  // sin on [0, pi/4]
  __m256 ys = splat(-1.9515295891E-4f);
  ys = _mm256_fmadd_ps(ys, z, splat(8.3321608736E-3f));
  ys = _mm256_fmadd_ps(ys, z, splat(-1.6666654611E-1f));
  ys = _mm256_mul_ps(ys, z);
  ys = _mm256_fmadd_ps(ys, x, x);
  // Each output takes the polynomial its octant needs.
  const __m256 sin_from_s = _mm256_and_ps(poly_mask, ys);
  const __m256 sin_from_c = _mm256_andnot_ps(poly_mask, yc);
  ys = _mm256_sub_ps(ys, sin_from_s);
  yc = _mm256_sub_ps(yc, sin_from_c);
  *sin_out = _mm256_xor_ps(_mm256_add_ps(sin_from_c, sin_from_s), sign_sin);
  *cos_out = _mm256_xor_ps(_mm256_add_ps(yc, ys), sign_cos);
}

NABLA_AVX2 inline void box_muller_16_avx2(float* d, __m256 mean, __m256 std) {
  const __m256 u1 = _mm256_sub_ps(splat(1.0f), _mm256_loadu_ps(d));
  const __m256 u2 = _mm256_loadu_ps(d + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(splat(-2.0f), log8(u1)));
  const __m256 theta = _mm256_mul_ps(splat(static_cast<float>(2.0 * kPi)), u2);
  __m256 s, c;
  sincos8(theta, &s, &c);
  _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), std, mean));
  _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), std, mean));
}

NABLA_AVX2 void normal_fill_float_avx2(mt19937::Engine& e, float* d, int64_t n, float mean,
                                       float std) {
  for (int64_t i = 0; i < n; ++i) d[i] = unit_float(e());
  const __m256 m = splat(mean), s = splat(std);
  for (int64_t i = 0; i + 16 <= n; i += 16) box_muller_16_avx2(d + i, m, s);
  if (n % 16 != 0) {
    float* tail = d + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = unit_float(e());
    box_muller_16_avx2(tail, m, s);
  }
}

// The normal fill with libm (double always; float in LibTorch's baseline build).
template <bool kFma, class T>
[[gnu::always_inline]] inline void normal_fill(mt19937::Engine& e, T* d, int64_t n, T mean, T std) {
  for (int64_t i = 0; i < n; ++i) d[i] = unit<T>(e);
  for (int64_t i = 0; i + 16 <= n; i += 16) box_muller_16<kFma>(d + i, mean, std);
  if (n % 16 != 0) {
    T* tail = d + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = unit<T>(e);
    box_muller_16<kFma>(tail, mean, std);
  }
}

// One dtype's fill. Everything down to the per-element lambdas is inlined into
// fill_fused / fill_plain, so that fill_fused's std::fma are FMA instructions.
template <bool kFma, class T>
[[gnu::always_inline]] inline void fill_typed(Distribution dist, const Tensor& out,
                                              CpuGeneratorState& s, const Scalar& a,
                                              const Scalar& b) {
  mt19937::Engine& e = s.engine;
  switch (dist) {
    case Distribution::Uniform:
      if constexpr (std::is_floating_point_v<T>) {
        // uniform_real_distribution<T>(from, to), both rounded to T first.
        const T from = static_cast<T>(a.toDouble()), to = static_cast<T>(b.toDouble());
        const T range = to - from;
        fill_in_order<T>(out, [&] { return mul_add<kFma>(unit<T>(e), range, from); });
        return;
      }
      break;
    case Distribution::Normal:
      if constexpr (std::is_floating_point_v<T>) {
        const double mean = a.toDouble(), std = b.toDouble();
        const int64_t n = out.numel();
        if (n >= 16 && out.is_contiguous()) {
          if constexpr (std::is_same_v<T, float> && kFma)
            normal_fill_float_avx2(e, out.data_ptr<float>(), n, static_cast<float>(mean),
                                   static_cast<float>(std));
          else
            normal_fill<kFma, T>(e, out.data_ptr<T>(), n, static_cast<T>(mean),
                                 static_cast<T>(std));
          return;
        }
        fill_in_order<T>(out, [&] { return normal_sample<kFma>(s, mean, std); });
        return;
      }
      break;
    case Distribution::Bernoulli: {
      const double p = a.toDouble();
      fill_in_order<T>(out, [&] { return one_if<T>(unit_double(e.draw64()) < p); });
      return;
    }
    case Distribution::RandInt: {
      const int64_t from = a.toLong();
      const uint64_t range = static_cast<uint64_t>(b.toLong()) - static_cast<uint64_t>(from);
      // Wide ranges draw 64 bits only where LibTorch's kernel can (int64 and floats).
      constexpr bool can_be_wide = std::is_same_v<T, int64_t> || std::is_floating_point_v<T>;
      if (can_be_wide && range >= (uint64_t(1) << 32)) {
        fill_in_order<T>(out, [&] {
          return static_cast<int64_t>(e.draw64() % range + static_cast<uint64_t>(from));
        });
      } else {
        fill_in_order<T>(out, [&] {
          return static_cast<int64_t>(uint64_t{e()} % range + static_cast<uint64_t>(from));
        });
      }
      return;
    }
  }
  NABLA_ASSERT(false, "random: distribution ", static_cast<int>(dist), " of a ", out.scalar_type(),
               " tensor");
}

template <bool kFma>
[[gnu::always_inline]] inline void fill(Distribution d, const Tensor& out, CpuGeneratorState& s,
                                        const Scalar& a, const Scalar& b) {
  switch (out.scalar_type()) {
    case kFloat:
      return fill_typed<kFma, float>(d, out, s, a, b);
    case kDouble:
      return fill_typed<kFma, double>(d, out, s, a, b);
    case kLong:
      return fill_typed<kFma, int64_t>(d, out, s, a, b);
    case kInt:
      return fill_typed<kFma, int32_t>(d, out, s, a, b);
    case kByte:
      return fill_typed<kFma, uint8_t>(d, out, s, a, b);
    case kChar:
      return fill_typed<kFma, int8_t>(d, out, s, a, b);
    case kShort:
      return fill_typed<kFma, int16_t>(d, out, s, a, b);
    case kBool:
      return fill_typed<kFma, bool>(d, out, s, a, b);
    case kHalf:
    case kBFloat16:
      throw_reduced_precision(out.scalar_type());
  }
  NABLA_ASSERT(false, "random: unknown dtype ", static_cast<int>(out.scalar_type()));
}

void fill_plain(Distribution d, const Tensor& out, CpuGeneratorState& s, const Scalar& a,
                const Scalar& b) {
  fill<false>(d, out, s, a, b);
}
NABLA_AVX2 void fill_fused(Distribution d, const Tensor& out, CpuGeneratorState& s, const Scalar& a,
                           const Scalar& b) {
  fill<true>(d, out, s, a, b);
}

bool detect_libtorch_fma() {
  // LibTorch reads ATEN_CPU_CAPABILITY; "default" makes it run its baseline kernels.
  if (const char* env = std::getenv("ATEN_CPU_CAPABILITY")) {
    std::string v(env);
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == "default") return false;
  }
  return supported_isa() >= Isa::Avx2;  // AVX2 and FMA, LibTorch's test for its AVX2 build
}

void check_cpu_generator(const Generator& gen) {
  NABLA_CHECK(gen.device().is_cpu(), "random: a CPU tensor needs a CPU generator, got one for ",
              gen.device());
}

}  // namespace

bool libtorch_fma() {
  static const bool fma = detect_libtorch_fma();
  return fma;
}

void fill_random(Distribution d, const Tensor& out, Generator& gen, const Scalar& a,
                 const Scalar& b) {
  check_cpu_generator(gen);
  if (out.numel() == 0) return;
  std::lock_guard<std::mutex> lock(gen.mutex());
  if (libtorch_fma())
    fill_fused(d, out, gen.cpu_state(), a, b);
  else
    fill_plain(d, out, gen.cpu_state(), a, b);
}

void normal_samples(Generator& gen, double* out, int64_t n, double mean, double std) {
  check_cpu_generator(gen);
  std::lock_guard<std::mutex> lock(gen.mutex());
  CpuGeneratorState& s = gen.cpu_state();
  const bool fma = libtorch_fma();
  for (int64_t i = 0; i < n; ++i)
    out[i] = fma ? normal_sample<true>(s, mean, std) : normal_sample<false>(s, mean, std);
}

double mul_then_add(double a, double b, double c) { return a * b + c; }

double libtorch_mul_add(double a, double b, double c) {
  return libtorch_fma() ? std::fma(a, b, c) : a * b + c;
}

}  // namespace nabla::cpu
