#pragma once
// Small helpers shared by the test executables.
#include <gtest/gtest.h>
#include <nabla/nabla.h>

#include <string>
#include <vector>

namespace nabla::testing {

/// The elements of `t` in row-major order, as doubles.
inline std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

inline std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

/// Runs `fn`, expects a nabla::Error whose message contains every fragment.
template <class F>
void expect_error(F&& fn, std::initializer_list<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected nabla::Error";
  } catch (const nabla::Error& e) {
    std::string msg = e.what();
    for (const auto& f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "message lacks '" << f << "': " << msg;
  }
}

/// A fixture for tests that ctest runs again under NABLA_ISA=avx2 and scalar: skipped on
/// a CPU that lacks the path asked for (the library refuses it with a nabla::Error).
class IsaPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      (void)active_isa();
    } catch (const Error& e) {
      GTEST_SKIP() << e.what();
    }
  }
};

/// A float64 leaf that requires grad, uniform in [lo, hi) (gradcheck input).
inline Tensor rnd(IntArrayRef shape, double lo = -1, double hi = 1) {
  return (rand(shape, kDouble) * (hi - lo) + lo).requires_grad_();
}

/// The PyTorch name of t's grad_fn, or "none".
inline std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }

}  // namespace nabla::testing
