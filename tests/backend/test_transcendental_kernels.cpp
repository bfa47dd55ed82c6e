// float32 sin, cos, tan, asin, acos, atan, sinh, cosh, log2, log10, exp2, atan2, pow
// (tensor and scalar exponents), fmod and remainder through the CPU kernels (Note [Float
// math in double], src/backend/cpu/vec_math_wide.h): the ISA path in use (ctest runs this
// file again under NABLA_ISA=avx2 and scalar), its vector code and its libm fallback
// together, against libm in double over a sweep of every binade (every float with
// NABLA_MATH_SWEEP_STEP=1), special values included. Results must be within 1 ulp of the
// correctly rounded value, have libm's NaNs, infinities and signs of zero; fmod is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "float_ulps.h"
#include "test_util.h"

namespace {

using nabla::Tensor;

using nabla::testing::kInf;
using nabla::testing::kNaN;

using nabla::testing::from_bits;
using nabla::testing::ulps;

Tensor tensor_of(const std::vector<float>& v) {
  return nabla::from_blob(const_cast<float*>(v.data()), {static_cast<int64_t>(v.size())}).clone();
}

std::vector<float> values_of(const Tensor& t) {
  Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

// Every `step`-th bit pattern in [begin, end) (both signs: every binade from subnormals to
// FLT_MAX), without NaN patterns.
std::vector<float> patterns(uint64_t begin, uint64_t end, uint64_t step) {
  std::vector<float> v;
  for (uint64_t b = begin; b < end; b += step) {
    const float x = from_bits(static_cast<uint32_t>(b));
    if (!std::isnan(x)) v.push_back(x);
  }
  return v;
}

const float kSpecials[] = {0.0f,  -0.0f, kInf,  -kInf,  kNaN,   1.0f,
                           -1.0f, 0.5f,  -0.5f, 1e-45f, 3.4e38f};

// Every 1009th pattern (about 8.5 million floats), then the special values.
std::vector<float> sweep() {
  std::vector<float> v = patterns(0, uint64_t(1) << 32, 1009);
  v.insert(v.end(), std::begin(kSpecials), std::end(kSpecials));
  return v;
}

// The unary sweep's step: 1009, or NABLA_MATH_SWEEP_STEP (1 checks all 2^32 floats, in
// chunks; about 40 minutes on one core).
uint64_t sweep_step() {
  const char* env = std::getenv("NABLA_MATH_SWEEP_STEP");
  return env ? std::max<uint64_t>(1, std::strtoull(env, nullptr, 10)) : 1009;
}

using TranscendentalKernels = nabla::testing::IsaPathTest;  // also run under NABLA_ISA

struct Worst {
  double ulps = 0;
  float x = 0, y = 0;
};

template <class Ref>
Worst worst_unary(const std::vector<float>& xs, const Tensor& out, Ref ref) {
  const std::vector<float> got = values_of(out);
  Worst w;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double e = ulps(got[i], ref(static_cast<double>(xs[i])));
    if (e > w.ulps) w = {e, xs[i], 0};
  }
  return w;
}

template <class Ref>
Worst worst_binary(const std::vector<float>& xs, const std::vector<float>& ys, const Tensor& out,
                   Ref ref) {
  const std::vector<float> got = values_of(out);
  Worst w;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double e = ulps(got[i], ref(static_cast<double>(xs[i]), static_cast<double>(ys[i])));
    if (e > w.ulps) w = {e, xs[i], ys[i]};
  }
  return w;
}

TEST_F(TranscendentalKernels, UnaryWithinOneUlpOverEveryBinade) {
  struct Case {
    const char* name;
    Tensor (*f)(const Tensor&);
    double (*ref)(double);
  };
  const Case cases[] = {
      {"sin", [](const Tensor& t) { return t.sin(); }, [](double v) { return std::sin(v); }},
      {"cos", [](const Tensor& t) { return t.cos(); }, [](double v) { return std::cos(v); }},
      {"tan", [](const Tensor& t) { return t.tan(); }, [](double v) { return std::tan(v); }},
      {"asin", [](const Tensor& t) { return t.asin(); }, [](double v) { return std::asin(v); }},
      {"acos", [](const Tensor& t) { return t.acos(); }, [](double v) { return std::acos(v); }},
      {"atan", [](const Tensor& t) { return t.atan(); }, [](double v) { return std::atan(v); }},
      {"sinh", [](const Tensor& t) { return t.sinh(); }, [](double v) { return std::sinh(v); }},
      {"cosh", [](const Tensor& t) { return t.cosh(); }, [](double v) { return std::cosh(v); }},
      {"log2", [](const Tensor& t) { return t.log2(); }, [](double v) { return std::log2(v); }},
      {"log10", [](const Tensor& t) { return t.log10(); }, [](double v) { return std::log10(v); }},
      {"exp2", [](const Tensor& t) { return t.exp2(); }, [](double v) { return std::exp2(v); }},
      // pow with a scalar exponent (its own kernel): fractional, odd and even negative ones;
      // the exponent is taken in the tensor's dtype, as LibTorch does.
      {"x^2.5", [](const Tensor& t) { return t.pow(2.5); },
       [](double v) { return std::pow(v, 2.5); }},
      {"x^-3", [](const Tensor& t) { return t.pow(-3.0); },
       [](double v) { return std::pow(v, -3.0); }},
      {"x^-4", [](const Tensor& t) { return t.pow(-4.0); },
       [](double v) { return std::pow(v, -4.0); }},
      {"x^0.3", [](const Tensor& t) { return t.pow(0.3); },
       [](double v) { return std::pow(v, double(0.3f)); }},
  };
  constexpr size_t kCases = std::size(cases);
  Worst worst[kCases];
  const uint64_t step = sweep_step(), span = step * (uint64_t(1) << 22);
  for (uint64_t begin = 0; begin < (uint64_t(1) << 32); begin += span) {
    std::vector<float> xs = patterns(begin, std::min(begin + span, uint64_t(1) << 32), step);
    if (begin == 0) xs.insert(xs.end(), std::begin(kSpecials), std::end(kSpecials));
    const Tensor x = tensor_of(xs);
    for (size_t i = 0; i < kCases; ++i) {
      const Worst w = worst_unary(xs, cases[i].f(x), cases[i].ref);
      if (w.ulps > worst[i].ulps) worst[i] = w;
    }
  }
  for (size_t i = 0; i < kCases; ++i) {
    std::printf("%-5s worst %.3f ulp at x = %.9g\n", cases[i].name, worst[i].ulps, worst[i].x);
    EXPECT_LE(worst[i].ulps, 1.0) << cases[i].name << " at x = " << worst[i].x;
  }
}

// Pairs over every binade: x from the sweep, y from a shuffled copy, plus pairs of
// moderate magnitudes where pow's results stay finite and fmod's quotients are small.
struct Pairs {
  std::vector<float> x, y;
};
Pairs pairs() {
  Pairs p;
  p.x = sweep();
  p.y = p.x;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (size_t i = p.y.size() - 1; i > 0; --i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(p.y[i], p.y[(s >> 33) % (i + 1)]);
  }
  for (int i = 0; i < 1 << 20; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(s >> 11) * 0x1p-53;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double v = static_cast<double>(s >> 11) * 0x1p-53;
    p.x.push_back(static_cast<float>(std::ldexp(u - 0.5, static_cast<int>(v * 40) - 20)));
    p.y.push_back(static_cast<float>((v - 0.5) * 60));
  }
  // Integer exponents of negative bases, zeros, infinities, NaN.
  const float specials[] = {0.0f,  -0.0f, kInf,  -kInf, kNaN, 1.0f,
                            -1.0f, 2.0f,  -2.0f, 3.0f,  0.5f, -3.5f};
  for (float a : specials)
    for (float b : specials) p.x.push_back(a), p.y.push_back(b);
  return p;
}

TEST_F(TranscendentalKernels, BinaryWithinOneUlpOverEveryBinade) {
  const Pairs p = pairs();
  const Tensor x = tensor_of(p.x), y = tensor_of(p.y);
  struct Case {
    const char* name;
    Tensor (*f)(const Tensor&, const Tensor&);
    double (*ref)(double, double);
  };
  const Case cases[] = {
      {"atan2", [](const Tensor& a, const Tensor& b) { return a.atan2(b); },
       [](double a, double b) { return std::atan2(a, b); }},
      {"pow |x|", [](const Tensor& a, const Tensor& b) { return a.abs().pow(b); },
       [](double a, double b) { return std::pow(std::fabs(a), b); }},
      {"pow", [](const Tensor& a, const Tensor& b) { return a.pow(b); },
       [](double a, double b) { return std::pow(a, b); }},
  };
  for (const Case& c : cases) {
    const Worst w = worst_binary(p.x, p.y, c.f(x, y), c.ref);
    std::printf("%-7s worst %.3f ulp at (%.9g, %.9g)\n", c.name, w.ulps, w.x, w.y);
    EXPECT_LE(w.ulps, 1.0) << c.name << " at (" << w.x << ", " << w.y << ")";
  }
}

TEST_F(TranscendentalKernels, FmodAndRemainderExact) {
  const Pairs p = pairs();
  const Tensor x = tensor_of(p.x), y = tensor_of(p.y);
  const std::vector<float> f = values_of(nabla::fmod(x, y)), r = values_of(x.remainder(y));
  int64_t fmod_wrong = 0, rem_wrong = 0;
  for (size_t i = 0; i < p.x.size(); ++i) {
    const float want = std::fmod(p.x[i], p.y[i]);
    // torch.remainder: fmod moved by the divisor when the signs differ, rounded in float.
    const float want_rem = want != 0 && ((want < 0) != (p.y[i] < 0)) ? want + p.y[i] : want;
    auto same = [](float a, float b) {
      return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
    };
    if (!same(f[i], want) && fmod_wrong++ < 5)
      ADD_FAILURE() << "fmod(" << p.x[i] << ", " << p.y[i] << ") = " << f[i] << ", want " << want;
    if (!same(r[i], want_rem) && rem_wrong++ < 5)
      ADD_FAILURE() << "remainder(" << p.x[i] << ", " << p.y[i] << ") = " << r[i] << ", want "
                    << want_rem;
  }
  EXPECT_EQ(fmod_wrong, 0);
  EXPECT_EQ(rem_wrong, 0);
}

// The libm fallback inside a vector block, on strided and broadcast operands: blocks of
// ordinary values with one huge, infinite or NaN element at every offset of a block.
TEST_F(TranscendentalKernels, FallbackElementsAtAnyPositionAndLayout) {
  nabla::manual_seed(3);
  for (float odd : {1e30f, kInf, kNaN, -8e7f}) {
    Tensor x = nabla::randn({300, 7}) * 10;  // transposed below: strided rows
    for (int64_t i = 0; i < x.size(0); i += 37) x.index_put_({i, i % 7}, odd);
    for (const Tensor& t : {x, x.t(), x.t().contiguous()}) {
      const std::vector<float> xs = values_of(t);
      const Worst w = worst_unary(xs, t.sin().contiguous(), [](double v) { return std::sin(v); });
      EXPECT_LE(w.ulps, 1.0) << "sin at x = " << w.x << " (odd value " << odd << ")";
      const Tensor b = nabla::full({}, 2.5f);  // a broadcast operand (stride 0)
      const std::vector<float> pw = values_of(t.pow(b)), at = values_of(b.atan2(t));
      for (size_t i = 0; i < xs.size(); ++i) {
        EXPECT_LE(ulps(pw[i], std::pow(static_cast<double>(xs[i]), 2.5)), 1.0) << xs[i];
        EXPECT_LE(ulps(at[i], std::atan2(2.5, static_cast<double>(xs[i]))), 1.0) << xs[i];
      }
    }
  }
}

}  // namespace
