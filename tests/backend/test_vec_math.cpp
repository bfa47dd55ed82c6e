// The vectorizable float functions of the CPU kernels (src/backend/cpu/vec_math.h)
// against libm in double precision, over a sweep of float bit patterns covering every
// binade (subnormals to FLT_MAX, both signs), plus the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/cpu/vec_math.h"
#include "float_ulps.h"

namespace {

using namespace nabla::cpu;

using nabla::testing::kInf;
using nabla::testing::kNaN;

using nabla::testing::from_bits;
using nabla::testing::ulps;

struct Sweep {
  double worst = 0;
  float at = 0;
};

// Every 1009th bit pattern of both signs (about 8.5 million floats), in [lo, hi].
template <class F, class R>
Sweep sweep(F f, R ref, float lo, float hi, double abs_floor) {
  Sweep s;
  for (uint64_t b = 0; b < 0xFFFFFFFFull; b += 1009) {
    const float x = from_bits(static_cast<uint32_t>(b));
    if (!(x >= lo && x <= hi)) continue;  // also skips NaN patterns
    const double e = ulps(f(x), ref(static_cast<double>(x)), abs_floor);
    if (e > s.worst) s = {e, x};
  }
  return s;
}

// One row per function: the float version, libm's in double, the range swept, the
// magnitude below which errors count in units of abs_floor (subnormal results), and the
// largest error allowed in ulps.
struct UlpCase {
  const char* name;
  float (*f)(float);
  double (*ref)(double);
  float lo, hi;
  double abs_floor, max_ulps;
};

TEST(VecMath, WithinTheirUlpBounds) {
  const UlpCase cases[] = {
      // exp up to overflow (inf) and down into subnormal results.
      {"exp", [](float x) { return vec_exp(x); }, [](double x) { return std::exp(x); }, -110.0f,
       90.0f, 1.5e-45, 2},
      {"log", [](float x) { return vec_log(x); }, [](double x) { return std::log(x); }, 1e-45f,
       3.4e38f, 0, 2},
      {"log1p", [](float x) { return vec_log1p(x); }, [](double x) { return std::log1p(x); },
       -0.99999f, 3.4e38f, 0, 3},
      {"expm1", [](float x) { return vec_expm1(x); }, [](double x) { return std::expm1(x); },
       -100.0f, 88.0f, 0, 3},
      {"tanh", [](float x) { return vec_tanh(x); }, [](double x) { return std::tanh(x); }, -3.4e38f,
       3.4e38f, 0, 3},
      {"sigmoid", [](float x) { return vec_sigmoid(x); },
       [](double x) { return 1 / (1 + std::exp(-x)); }, -3.4e38f, 3.4e38f, 1.5e-45, 3},
  };
  for (const UlpCase& c : cases) {
    const Sweep s = sweep(c.f, c.ref, c.lo, c.hi, c.abs_floor);
    EXPECT_LE(s.worst, c.max_ulps) << c.name << " at x = " << s.at;
  }
}

TEST(VecMath, ErfWithinThreeUlpsOrTwoTenMillionths) {
  // Below |x| = 1 (Taylor series) relative accuracy; above, absolute 2e-7 (A&S 7.1.26).
  auto small = sweep([](float x) { return vec_erf(x); }, [](double x) { return std::erf(x); },
                     -1.0f, 1.0f, 0);
  EXPECT_LE(small.worst, 3.0) << "at x = " << small.at;
  double worst_abs = 0;
  for (uint64_t b = 0; b < 0xFFFFFFFFull; b += 1009) {
    const float x = from_bits(static_cast<uint32_t>(b));
    if (!(std::fabs(x) >= 1.0f) || std::isinf(x)) continue;
    worst_abs = std::max(worst_abs, std::fabs(vec_erf(x) - std::erf(static_cast<double>(x))));
  }
  EXPECT_LE(worst_abs, 2e-7);
}

TEST(VecMath, SpecialValuesAsLibm) {
  EXPECT_EQ(vec_exp(kInf), kInf);
  EXPECT_EQ(vec_exp(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(vec_exp(kNaN)));
  EXPECT_EQ(vec_exp(0.0f), 1.0f);
  EXPECT_EQ(vec_log(0.0f), -kInf);
  EXPECT_EQ(vec_log(-0.0f), -kInf);
  EXPECT_TRUE(std::isnan(vec_log(-1.0f)));
  EXPECT_EQ(vec_log(kInf), kInf);
  EXPECT_EQ(vec_log(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vec_log(kNaN)));
  EXPECT_EQ(vec_log1p(-1.0f), -kInf);
  EXPECT_EQ(vec_log1p(kInf), kInf);
  EXPECT_TRUE(std::isnan(vec_log1p(-2.0f)));
  EXPECT_EQ(vec_log1p(1e-30f), 1e-30f);
  EXPECT_EQ(vec_expm1(-kInf), -1.0f);
  EXPECT_EQ(vec_expm1(kInf), kInf);
  EXPECT_EQ(vec_expm1(1e-30f), 1e-30f);
  EXPECT_EQ(vec_tanh(kInf), 1.0f);
  EXPECT_EQ(vec_tanh(-kInf), -1.0f);
  EXPECT_TRUE(std::isnan(vec_tanh(kNaN)));
  EXPECT_EQ(vec_erf(kInf), 1.0f);
  EXPECT_EQ(vec_erf(-kInf), -1.0f);
  EXPECT_TRUE(std::isnan(vec_erf(kNaN)));
  EXPECT_EQ(vec_sigmoid(kInf), 1.0f);
  EXPECT_EQ(vec_sigmoid(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(vec_sigmoid(kNaN)));
  // Signs of zero are kept by the odd functions.
  EXPECT_TRUE(std::signbit(vec_tanh(-0.0f)));
  EXPECT_TRUE(std::signbit(vec_erf(-0.0f)));
  EXPECT_TRUE(std::signbit(vec_expm1(-0.0f)));
}

}  // namespace
